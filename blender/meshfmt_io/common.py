"""What the importer and the exporter share: finding the meshfmt module, finding a mesh's
clips and skeleton beside it, and putting meshfmt's reports into Blender's."""

import glob
import os
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def meshfmt_module():
    """The meshfmt Python module: installed (Blender 4.2+ installs the extension's wheel;
    or `pip install` into Blender's Python), else unpacked from the wheel bundled in
    this add-on's `wheels/` folder (Blender 3.4 to 4.1, whose add-ons carry no wheels)."""
    try:
        import meshfmt

        return meshfmt
    except ImportError:
        pass
    wheels = sorted(glob.glob(os.path.join(HERE, "wheels", "meshfmt-*.whl")))
    if not wheels:
        raise ImportError(
            "the meshfmt module is not installed: pip install the meshfmt wheel into "
            "Blender's Python, or put it in this add-on's wheels/ folder"
        )
    target = os.path.join(HERE, "_vendor")
    stamp = os.path.join(target, os.path.basename(wheels[-1]) + ".unpacked")
    if not os.path.exists(stamp):
        os.makedirs(target, exist_ok=True)
        with zipfile.ZipFile(wheels[-1]) as z:
            z.extractall(target)
        open(stamp, "w").close()
    if target not in sys.path:
        sys.path.insert(0, target)
    import meshfmt

    return meshfmt


def clip_patterns(path, given):
    """The animation files to attach to the mesh at `path`: the `;`-separated patterns
    `given` (paths relative to the mesh's folder, `*` and `?` in file names), or with
    `auto` the files a UNIGINE export puts beside a mesh: `NAME/*.anim`,
    `NAME_*.anim`, and `../animations/NAME_*.anim`."""
    folder = os.path.dirname(os.path.abspath(path))
    given = (given or "").strip()
    if given and given != "auto":
        return [
            p if os.path.isabs(p) else os.path.join(folder, p)
            for p in (s.strip() for s in given.split(";"))
            if p
        ]
    if not path.lower().endswith((".mesh", ".smesh", ".mesh_skinned")) or _is_vitaboy(path):
        return []
    stem = os.path.splitext(os.path.basename(path))[0]
    found = []
    for pattern in (
        os.path.join(folder, stem, "*.anim"),
        os.path.join(folder, stem + "_*.anim"),
        os.path.join(folder, "..", "animations", stem + "_*.anim"),
    ):
        if glob.glob(pattern):
            found.append(pattern)
    return found


def skeleton_beside(path, given):
    """The skeleton file for a Vitaboy `.mesh`, `.anim` or `.apr` at `path`: `given`,
    or with `auto` the one `.skel` in its folder (or one of `adult.skel`/`child.skel`
    beside it, which FreeSO's content folders hold); None otherwise."""
    given = (given or "").strip()
    if given and given != "auto":
        return given
    if not path.lower().endswith((".mesh", ".anim", ".apr")) or not (
        path.lower().endswith(".apr") or _is_vitaboy(path)
    ):
        return None
    folder = os.path.dirname(os.path.abspath(path))
    skels = sorted(glob.glob(os.path.join(folder, "*.skel")))
    if len(skels) == 1:
        return skels[0]
    for name in ("adult.skel", "child.skel"):
        if os.path.join(folder, name) in skels:
            return os.path.join(folder, name)
    return None


def _is_vitaboy(path):
    """True when meshfmt reads `path` as a Vitaboy file."""
    try:
        return meshfmt_module().info(path)["format"] == "niotso-mesh"
    except (ValueError, OSError):
        return False


def report_losses(operator, report, limit=20):
    """meshfmt's losses and warnings as the operator's report: each one line, at most
    `limit` of them and a count of the rest."""
    lines = [f"{loss.path}: {loss.reason}" if loss.path else loss.reason for loss in report.losses]
    lines += list(report.warnings)
    for line in lines[:limit]:
        operator.report({"WARNING"}, line)
    if len(lines) > limit:
        operator.report({"WARNING"}, f"... and {len(lines) - limit} more (see the console)")
        for line in lines[limit:]:
            print("meshfmt:", line)


def glb_parts(data):
    """A .glb's JSON (parsed) and its binary chunk (b"" when it has none)."""
    import json
    import struct

    magic, version, length = struct.unpack_from("<4sII", data, 0)
    if magic != b"glTF" or version != 2 or length > len(data):
        raise ValueError("not a glTF 2.0 binary")
    json_len, json_type = struct.unpack_from("<I4s", data, 12)
    if json_type != b"JSON":
        raise ValueError("a .glb's first chunk is its JSON")
    doc = json.loads(data[20 : 20 + json_len])
    at = 20 + json_len
    binary = b""
    if at + 8 <= length:
        bin_len, bin_type = struct.unpack_from("<I4s", data, at)
        if bin_type == b"BIN\0":
            binary = data[at + 8 : at + 8 + bin_len]
    return doc, binary


def glb_bytes(doc, binary):
    """A .glb of `doc` (a dict) and `binary`, each chunk padded to 4 bytes as the
    format asks (JSON with spaces, the binary with zeros)."""
    import json
    import struct

    text = json.dumps(doc, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 4)
    chunks = struct.pack("<I4s", len(text), b"JSON") + text
    if binary:
        binary = binary + b"\0" * (-len(binary) % 4)
        chunks += struct.pack("<I4s", len(binary), b"BIN\0") + binary
    return struct.pack("<4sII", b"glTF", 2, 12 + len(chunks)) + chunks


def with_events(glb, events_by_animation):
    """`glb` with each animation named in `events_by_animation` carrying its events in
    its extras (`meshfmt_events`, what meshfmt reads back as clip events): a list of
    dicts with `time` (seconds), `bone` (a node name or None) and `props`
    ([key, value] pairs)."""
    doc, binary = glb_parts(glb)
    for anim in doc.get("animations", []):
        events = events_by_animation.get(anim.get("name"))
        if events:
            extras = anim.setdefault("extras", {})
            extras["meshfmt_events"] = events
    return glb_bytes(doc, binary)
