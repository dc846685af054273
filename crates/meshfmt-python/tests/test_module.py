"""The meshfmt Python module against the repository's fixtures, the real samples, the
meshfmt command and the hostile corpus."""

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import meshfmt

COUNTS = re.compile(
    r"counts surfaces=(\d+) vertices=(\d+) triangles=(\d+) bones=(\d+) animations=(\d+) materials=(\d+) textures=(\d+)"
)


def fixture_files(root: Path) -> list[Path]:
    """Every fixture file a format reads: those with a model dump beside them."""
    out = []
    for p in sorted((root / "fixtures").rglob("*")):
        if p.is_file() and p.suffix not in (".txt", ".md") and p.with_name(p.name + ".txt").is_file():
            out.append(p)
    return out


def dump_counts(p: Path) -> tuple[int, ...]:
    """The counts line of the dump xtask wrote beside a fixture (read by the Rust code,
    written as text: an independent path from the numpy arrays here)."""
    m = COUNTS.search(p.with_name(p.name + ".txt").read_text())
    assert m, p
    return tuple(int(x) for x in m.groups())


def model_counts(m: meshfmt.Model) -> tuple[int, ...]:
    return (
        len(m.surfaces),
        m.vertex_count(),
        m.triangle_count(),
        len(m.bones),
        len(m.clips),
        len(m.materials),
        len(m.textures),
    )


def test_formats_are_the_registry(meshfmt_bin):
    names = [f["name"] for f in meshfmt.formats()]
    out = subprocess.run([meshfmt_bin, "formats"], capture_output=True, text=True, check=True)
    listed = [line.split()[0] for line in out.stdout.splitlines()[1:] if line and not line.startswith(" ")]
    assert names == listed
    mesh = next(f for f in meshfmt.formats() if f["name"] == "unigine-mesh")
    assert mesh["versions"][0]["name"] == "ms11"
    assert mesh["versions"][0]["clip_files"][0] == "unigine-anim"


def test_every_fixture_reads_with_its_dumped_counts(root):
    files = fixture_files(root)
    # Every committed fixture xtask wrote a model dump beside.
    assert len(files) == 74, len(files)
    for p in files:
        got = meshfmt.read(p)
        assert model_counts(got.model) == dump_counts(p), p
        s = got.model.surfaces
        for surf in s:
            n = len(surf.positions)
            assert surf.positions.dtype == np.float32 and surf.positions.shape == (n, 3)
            assert surf.indices.dtype == np.uint32 and surf.indices.shape[1] == 3
            assert len(surf.normals) in (0, n) and len(surf.uv0) in (0, n)
            if len(surf.indices):
                assert surf.indices.max() < n, p


def test_every_fixture_info_equals_the_command(root, meshfmt_bin):
    for p in fixture_files(root):
        ours = meshfmt.info(p)
        out = subprocess.run([meshfmt_bin, "info", "--json", p], capture_output=True, text=True)
        assert out.returncode == 0, (p, out.stderr)
        theirs = json.loads(out.stdout)
        ours.pop("warnings")
        assert ours == theirs, p


def test_every_fixture_converts_to_glb_and_back(root, tmp_path):
    for k, p in enumerate(fixture_files(root)):
        src = meshfmt.read(p).model
        if not src.surfaces and not src.clips:
            continue
        out = tmp_path / f"f{k}.glb"
        report = meshfmt.convert(p, out)
        assert report.written and report.files == [str(out)], p
        back = meshfmt.read(out).model
        assert back.triangle_count() == src.triangle_count(), p
        assert len(back.bones) == len(src.bones), p
        assert len(back.clips) == len(src.clips), p


def test_delivery_glb_reads_back_within_its_bounds(root, tmp_path):
    # quality="meshopt" (the CLI's --compress): the same triangles read back, every
    # position within the bound the report gives (vertices welded and reordered, so each
    # is matched to its nearest original).
    p = root / "fixtures" / "unigine-mesh" / "skinned_arm3.ms11.mesh"
    src = meshfmt.read(p).model
    for quality in ("meshopt", "quantized", "meshopt-keep"):
        out = tmp_path / f"arm-{quality}.glb"
        report = meshfmt.convert(p, out, quality=quality)
        # A skinned model's positions are quantized under meshopt only (`quantized` keeps
        # their floats, for Blender's importer): no bound, and no error, then.
        bound = max(
            (x.bound for x in report.losses if x.feature == "geometry" and x.reason.startswith("positions")),
            default=0.0,
        )
        back = meshfmt.read(out).model
        assert back.triangle_count() == src.triangle_count(), quality
        a = np.concatenate([s.positions for s in src.surfaces])
        b = np.concatenate([s.positions for s in back.surfaces])
        nearest = np.abs(b[:, None, :] - a[None, :, :]).max(axis=2).min(axis=1)
        assert (bound > 0) == quality.startswith("meshopt"), (quality, bound)
        assert bound < 1e-3 and nearest.max() <= bound, (quality, nearest.max(), bound)
        assert len(back.clips) == len(src.clips), quality


def test_bytes_read_like_the_file(root):
    p = root / "fixtures" / "unity-meshser" / "cube.bytes"
    by_path = meshfmt.read(p).model
    by_bytes = meshfmt.read(p.read_bytes(), name="cube.bytes").model
    for a, b in zip(by_path.surfaces, by_bytes.surfaces):
        assert np.array_equal(a.positions, b.positions)
        assert np.array_equal(a.indices, b.indices)
    with pytest.raises(ValueError, match="name="):
        meshfmt.read(p.read_bytes())


def test_bytes_find_side_files_only_in_the_folders_given(tmp_path, root):
    model = root / "fixtures" / "unity-meshser" / "cube.bytes"
    gltf = tmp_path / "cube.gltf"
    meshfmt.convert(model, gltf)
    data = gltf.read_bytes()
    # Without side_files a .gltf held in memory has no folder: its buffer is missing,
    # never looked for in the current folder.
    with pytest.raises(meshfmt.FormatError, match="cube.bin"):
        meshfmt.read(data, name="cube.gltf")
    got = meshfmt.read(data, name="cube.gltf", side_files=[tmp_path]).model
    assert got.triangle_count() == 12


def test_errors_are_typed_with_the_commands_message(tmp_path, meshfmt_bin):
    bad = tmp_path / "bad.mesh"
    bad.write_bytes(b"ms11garbage")
    with pytest.raises(meshfmt.FormatError) as e:
        meshfmt.info(bad)
    assert isinstance(e.value, ValueError)
    out = subprocess.run([meshfmt_bin, "info", bad], capture_output=True, text=True)
    assert out.stderr.strip() == f"meshfmt: {e.value}"
    assert "offset 0x4" in str(e.value)
    with pytest.raises(FileNotFoundError):
        meshfmt.read(tmp_path / "missing.mesh")
    with pytest.raises(ValueError, match="unknown format name"):
        meshfmt.read(bad, format="nope")
    with pytest.raises(ValueError, match="max_memory"):
        meshfmt.read(bad, max_memory="12Q")


def test_over_budget_is_its_own_error(root):
    p = root / "fixtures" / "unigine-mesh" / "multi_surface.ms14.mesh"
    with pytest.raises(meshfmt.OverBudget, match="memory budget exceeded"):
        meshfmt.read(p, max_memory="1K")
    assert issubclass(meshfmt.OverBudget, meshfmt.FormatError)


def test_convert_refuses_to_overwrite_and_strict_writes_nothing(root, tmp_path):
    src = root / "fixtures" / "unigine-mesh" / "skinned_arm.ms11.mesh"
    out = tmp_path / "arm.gltf"
    meshfmt.convert(src, out)
    with pytest.raises(FileExistsError):
        meshfmt.convert(src, out)
    meshfmt.convert(src, out, force=True)
    strict = tmp_path / "arm.bytes"
    with pytest.raises(meshfmt.FormatError, match="--strict"):
        meshfmt.convert(src, strict, strict=True)
    assert not strict.exists()


def test_every_hostile_input_raises_or_reads(hostile, tmp_path):
    files = sorted(p for p in hostile.iterdir() if p.name != "corpus.tsv")
    listed = (hostile / "corpus.tsv").read_text().splitlines()[1:]
    assert len(files) == len(listed) >= 14
    for p in files:
        for call in (
            lambda: meshfmt.info(p, max_memory="64M"),
            lambda: meshfmt.validate(p, max_memory="64M"),
            lambda: meshfmt.read(p, max_memory="64M"),
            lambda: meshfmt.convert(p, tmp_path / "out.glb", force=True, max_memory="64M"),
        ):
            try:
                call()
            except (meshfmt.FormatError, OSError) as e:
                assert "\n" not in str(e) and str(e), p


def test_the_gil_is_released_while_reading():
    # A large OBJ (text) read on a thread while this thread notes the time in a loop:
    # were the GIL held through the read (one call), the loop would stop for all of it.
    n = 500
    xs, ys = np.meshgrid(np.arange(n, dtype=np.float32), np.arange(n, dtype=np.float32))
    v = "".join(f"v {x} {y} 0\n" for x, y in zip(xs.ravel(), ys.ravel()))
    i = np.arange(n * n).reshape(n, n)[:-1, :-1].ravel() + 1
    f = "".join(f"f {a} {a + 1} {a + n}\n" for a in i)
    data = (v + f).encode()
    start = time.perf_counter()
    meshfmt.read(data, name="grid.obj")
    alone = time.perf_counter() - start
    done = threading.Event()
    stamps = []

    def work():
        meshfmt.read(data, name="grid.obj")
        done.set()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-4)
    try:
        t = threading.Thread(target=work)
        t.start()
        while not done.is_set():
            stamps.append(time.perf_counter())
        t.join()
    finally:
        sys.setswitchinterval(old)
    gap = max(np.diff(stamps)) if len(stamps) > 1 else alone
    assert alone > 0.02, alone
    assert gap < alone / 2, (gap, alone)


def test_actor_00_reads_with_its_six_clips(samples, meshfmt_bin):
    d = samples / "unigine" / "wakqaz4__Unigine_FPS_Demo1" / "source" / "meshes"
    got = meshfmt.read(d / "actor_00.mesh", anims=[d / "actor_00" / "*.anim"])
    m = got.model
    info = json.loads(
        subprocess.run(
            [meshfmt_bin, "info", "--json", d / "actor_00.mesh"], capture_output=True, text=True, check=True
        ).stdout
    )
    assert (got.format, got.version) == ("unigine-mesh", "ms11")
    assert m.triangle_count() == info["triangles"]
    assert len(m.bones) == info["bones"]
    assert sorted(c.name for c in m.clips) == ["idle", "jump", "run_fwd", "run_lt", "walk_fwd", "walk_lt"]
    assert {c.frame_rate() for c in m.clips} == {30.0}


def test_vitaboy_timeprops_are_clip_events(samples, tmp_path):
    anim = samples / "niotso" / "Animations" / "a2o-lever-pull-start.7bf8038300000007.anim"
    model = meshfmt.read(anim).model
    clip = model.clips[0]
    # Every motion (54 bones) carries the same two timed lists: a sound at 500 ms and an
    # event at 2350 ms; each key and value is a Pascal string of the file.
    data = anim.read_bytes()
    for e in clip.events:
        for k, v in e.props:
            assert bytes([len(k)]) + k.encode() in data and bytes([len(v)]) + v.encode() in data
    assert len(model.bones) == 54
    got = sorted({(round(e.time, 3), e.label()) for e in clip.events})
    assert got == [(0.5, "sound=garden_kneel_wipehands"), (2.35, "xevt=101")]
    assert len(clip.events) == 2 * 54 and {e.bone for e in clip.events} == set(range(54))
    # Through glTF and back to a Vitaboy .anim, every event stays.
    glb = tmp_path / "lever.glb"
    meshfmt.convert(anim, glb)
    back = tmp_path / "lever.anim"
    meshfmt.convert(glb, back, to="niotso-mesh")
    again = meshfmt.read(back).model.clips[0]
    assert [(e.time, e.props) for e in again.events] == [(e.time, e.props) for e in clip.events]
