"""The meshfmt add-on in real Blender, headless:

    blender -b --factory-startup --python blender/tests/test_blender.py -- OUT_DIR

with the meshfmt module importable (PYTHONPATH, or its wheel in the add-on's wheels/).
Imports the real samples and checks them against `meshfmt info --json` and meshfmt's
own read, exports back to each format and reads the result with meshfmt. Exits 1 on
any failure, naming it. Samples come from $MESHFMT_SAMPLES or ../shared/samples beside
the checkout; the meshfmt command from $MESHFMT_BIN or the workspace's target/."""

import json
import math
import os
import subprocess
import sys
import traceback

import numpy

# Debian's numpy lacks numpy.bool, which Blender 3.4's glTF add-on uses.
if not hasattr(numpy, "bool"):
    numpy.bool = bool  # noqa: E402

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "blender"))

import meshfmt_io  # noqa: E402
from meshfmt_io import common, exporter, importer  # noqa: E402

meshfmt = common.meshfmt_module()
SAMPLES = os.environ.get("MESHFMT_SAMPLES", os.path.join(ROOT, "..", "shared", "samples"))
OUT = sys.argv[sys.argv.index("--") + 1] if "--" in sys.argv else os.path.join(ROOT, "target", "blender")
UNIGINE = os.path.join(SAMPLES, "unigine")
ACTOR = os.path.join(UNIGINE, "wakqaz4__Unigine_FPS_Demo1", "source", "meshes", "actor_00.mesh")
AGENT = os.path.join(
    UNIGINE, "trinet-fasie__unigine-mockup", "data", "vr_sample", "props", "animation", "meshes", "agent.mesh"
)


def meshfmt_bin():
    for c in (
        os.environ.get("MESHFMT_BIN"),
        os.path.join(ROOT, "target", "release", "meshfmt"),
        os.path.join(ROOT, "target", "debug", "meshfmt"),
    ):
        if c and os.path.isfile(c):
            return c
    raise RuntimeError("the meshfmt command is not built (cargo build -p meshfmt)")


def info_json(path):
    out = subprocess.run([meshfmt_bin(), "info", "--json", path], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def fresh_scene():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def scene_counts(objects):
    """Vertices, triangles and bones of the imported objects (glTF's importer makes
    triangles; vertices are not merged)."""
    verts = tris = bones = 0
    for o in objects:
        if o.type == "MESH":
            verts += len(o.data.vertices)
            tris += sum(len(p.vertices) - 2 for p in o.data.polygons)
        elif o.type == "ARMATURE":
            bones += len(o.data.bones)
    return verts, tris, bones


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def import_character(path, clips, **kw):
    got = importer.import_file(bpy.context, path, **kw)
    read = got["read"].model
    armatures = [o for o in got["objects"] if o.type == "ARMATURE"]
    check(len(armatures) == 1, f"{path}: {len(armatures)} armatures")
    names = sorted(a.name for a in got["actions"])
    check(names == sorted(clips), f"{path}: actions {names}, expected {sorted(clips)}")
    rate = got["frame_rate"]
    check(bpy.context.scene.render.fps == round(rate), f"scene at {bpy.context.scene.render.fps} fps, clips at {rate}")
    # Each action spans its clip's frames at the clips' rate.
    for clip in read.clips:
        action = bpy.data.actions[clip.name]
        frames = action.frame_range[1] - action.frame_range[0]
        check(
            abs(frames - clip.duration * rate) < 0.51,
            f"{clip.name}: {frames} frames for {clip.duration} s at {rate} fps",
        )
    verts, tris, bones = scene_counts(got["objects"])
    info = info_json(path)
    check(tris == info["triangles"], f"{path}: {tris} triangles, info says {info['triangles']}")
    check(verts == read.vertex_count(), f"{path}: {verts} vertices, meshfmt read {read.vertex_count()}")
    check(bones == len(read.bones), f"{path}: {bones} bones, meshfmt read {len(read.bones)}")
    return got


def steps_off(original, written):
    """The worst difference of the written clips' keys from the original's, per clip and
    kind, in units of the written file's quantization step (an10: a translation or
    scale axis stores u16 across its box of size max - min + 1; a rotation component
    i16 / 32767), matched by bone name and key time."""
    obones = [b.name for b in original.bones]
    wbones = [b.name for b in written.bones]
    worst = {}
    for wc in written.clips:
        oc = next(c for c in original.clips if c.name == wc.name)
        boxes = {}
        for kind in ("translation", "scale"):
            vals = [getattr(ch, kind).values for ch in wc.channels if len(getattr(ch, kind).values)]
            v = numpy.concatenate(vals)
            boxes[kind] = (v.max(axis=0) - v.min(axis=0) + 1.0) / 65535.0
        boxes["rotation"] = numpy.full(4, 1.0 / 32767.0)
        w = {"translation": 0.0, "rotation": 0.0, "scale": 0.0}
        ochannels = {obones[ch.bone]: ch for ch in oc.channels}
        for ch in wc.channels:
            och = ochannels.get(wbones[ch.bone])
            if och is None:
                continue
            for kind in w:
                wt, ot = getattr(ch, kind), getattr(och, kind)
                n = min(len(wt.times), len(ot.times))
                if n == 0:
                    continue
                check(numpy.allclose(wt.times[:n], ot.times[:n], atol=1e-4), f"{wc.name}: key times moved")
                d = numpy.abs(wt.values[:n] - ot.values[:n])
                if kind == "rotation":  # q and -q are one rotation
                    d = numpy.minimum(d, numpy.abs(wt.values[:n] + ot.values[:n]))
                w[kind] = max(w[kind], float((d / boxes[kind]).max()))
        worst[wc.name] = w
    return worst


def test_actor_00_with_six_clips():
    fresh_scene()
    got = import_character(ACTOR, ["idle", "jump", "run_fwd", "run_lt", "walk_fwd", "walk_lt"])
    # Back to UNIGINE: the .mesh and one .anim per action.
    out = os.path.join(OUT, "actor")
    os.makedirs(out, exist_ok=True)
    report = exporter.export_file(bpy.context, os.path.join(out, "actor_00.mesh"), to="unigine-mesh")
    anims = sorted(f for f in report.files if f.endswith(".anim"))
    check(len(anims) == 6, f"wrote {report.files}")
    original = meshfmt.read(ACTOR, anims=[os.path.join(os.path.dirname(ACTOR), "actor_00", "*.anim")]).model
    written = meshfmt.read(os.path.join(out, "actor_00.mesh"), anims=anims).model
    check(written.triangle_count() == original.triangle_count(), "triangles changed")
    steps = steps_off(original, written)
    print("actor_00 re-exported, worst key difference in quantization steps:", json.dumps(steps))
    # Half a quantization step is the done-when of issue 32. Measured on the six clips:
    # translations within 0.01 of a step and rotations within 0.009 (the importer's keys
    # are worked out again against the rest Blender keeps, keys.py; before, 1.34 and
    # 0.71), scales within 0.0004, but 0.49 in jump, whose boxes also spanned the 12
    # finger-nub bones the mesh lacks (their channels are dropped, so the grid moves).
    for clip, kinds in steps.items():
        for kind, worst in kinds.items():
            check(worst <= 0.5, f"{clip}: {kind} keys {worst} steps off")
    check(got["refined_channels"] > 0, "no bone keys were refined")
    # The .glb Blender wrote, kept for a look (render.sh).
    exporter.export_file(bpy.context, os.path.join(OUT, "actor_00.glb"), split_clips=False)


def test_agent_with_two_clips():
    fresh_scene()
    folder = os.path.join(os.path.dirname(AGENT), "..", "animations")
    import_character(AGENT, ["agent_punch", "agent_walk"], anims=os.path.join(folder, "agent_*.anim"))


def test_vitaboy_mesh_skeleton_and_clip():
    fresh_scene()
    mesh = os.path.join(SAMPLES, "niotso", "Meshes", "fso-slippers-green.083d9f1800000009.mesh")
    skel = os.path.join(ROOT, "fixtures", "niotso-mesh", "adult.skel")
    got = importer.import_file(bpy.context, mesh, skeleton=skel)
    verts, tris, bones = scene_counts(got["objects"])
    info = info_json(mesh)
    check(tris == info["triangles"], f"{tris} triangles, info says {info['triangles']}")
    check(bones == len(got["read"].model.bones), "bones")


def test_vitaboy_character_to_apr_and_back():
    fresh_scene()
    mesh = os.path.join(SAMPLES, "niotso", "Meshes", "fso-slippers-green.083d9f1800000009.mesh")
    skel = os.path.join(ROOT, "fixtures", "niotso-mesh", "adult.skel")
    anim = os.path.join(SAMPLES, "niotso", "Animations", "a2o-lever-pull-start.7bf8038300000007.anim")
    got = importer.import_file(bpy.context, mesh, skeleton=skel, anims=anim)
    source = got["read"].model
    check(len(got["actions"]) == 1, f"actions {[a.name for a in got['actions']]}")
    # The clip's timeprops are pose markers of its action, at their frames.
    events = source.clips[0].events
    markers = got["actions"][0].pose_markers
    check(len(events) > 0 and len(markers) == len(events), f"{len(markers)} markers for {len(events)} events")
    rate = bpy.context.scene.render.fps
    check(
        sorted((m.frame, m.name) for m in markers) == sorted((round(e.time * rate), e.label()) for e in events),
        "markers differ from the events",
    )
    out = os.path.join(OUT, "outfit")
    os.makedirs(out, exist_ok=True)
    report = exporter.export_file(bpy.context, os.path.join(out, "outfit.apr"), to="niotso-mesh")
    kinds = sorted({os.path.splitext(f)[1] for f in report.files})
    check(kinds == [".anim", ".apr", ".bnd", ".mesh", ".skel"], f"wrote {report.files}")
    # The character assembled back by the tool, as a user would.
    glb = os.path.join(out, "outfit.glb")
    subprocess.run(
        [meshfmt_bin(), "convert", os.path.join(out, "outfit.apr"), "--skeleton", os.path.join(out, "outfit.skel"),
         "--anim", os.path.join(out, "*.anim"), glb, "--force"],
        check=True, capture_output=True,
    )
    back = meshfmt.read(glb).model
    check(back.triangle_count() == source.triangle_count(), f"{back.triangle_count()} triangles, {source.triangle_count()} before")
    check(len(back.bones) == len(source.bones), f"{len(back.bones)} bones, {len(source.bones)} before")
    check(len(back.clips) == 1, f"{len(back.clips)} clips")
    # The markers went back to timeprops: the written .anim's events are the original's.
    anim_file = next(f for f in report.files if f.endswith(".anim"))
    written = meshfmt.read(anim_file, skeleton=os.path.join(out, "outfit.skel")).model
    def named(model, clip):
        return sorted(
            (round(e.time, 3), model.bones[e.bone].name if e.bone is not None else "", tuple(e.props))
            for e in clip.events
        )
    check(named(written, written.clips[0]) == named(source, source.clips[0]), "timeprops changed on the way")
    print("vitaboy character:", ", ".join(os.path.basename(f) for f in report.files), f"({len(events)} timeprops kept)")


def test_cesium_man_with_its_animation():
    fresh_scene()
    path = os.path.join(SAMPLES, "m3d", "CesiumMan.m3d")
    got = import_character(path, [c.name for c in meshfmt.read(path).model.clips])
    check(len(got["actions"]) >= 1, "no action")
    out = os.path.join(OUT, "cesium")
    os.makedirs(out, exist_ok=True)
    report = exporter.export_file(bpy.context, os.path.join(out, "CesiumMan.m3d"))
    back = meshfmt.read(report.files[0]).model
    check(len(back.clips) == len(got["actions"]), "clips lost on the way back")


def test_unity_fixture_both_ways():
    fresh_scene()
    path = os.path.join(ROOT, "fixtures", "unity-meshser", "cube.bytes")
    got = importer.import_file(bpy.context, path)
    verts, tris, _ = scene_counts(got["objects"])
    check((verts, tris) == (24, 12), f"{verts} vertices, {tris} triangles")
    out = os.path.join(OUT, "unity")
    os.makedirs(out, exist_ok=True)
    report = exporter.export_file(bpy.context, os.path.join(out, "cube.bytes"))
    check(meshfmt.info(report.files[0])["triangles"] == 12, "the cube did not come back")


def gltf_world_points(path):
    """Blender's own glTF importer on `path`: the meshes' vertices in world space (the
    importer puts skinned vertices in their bind pose through the inverse bind
    matrices), and the triangle and action counts."""
    fresh_scene()
    bpy.ops.import_scene.gltf(filepath=path)
    points = []
    tris = 0
    for o in bpy.context.scene.objects:
        if o.type == "MESH":
            m = o.matrix_world
            points.extend(tuple(m @ v.co) for v in o.data.vertices)
            tris += sum(len(p.vertices) - 2 for p in o.data.polygons)
    return numpy.array(points, dtype=numpy.float64), tris, len(bpy.data.actions)


def farthest_from(a, b):
    """The largest distance (per axis) from a point of `a` to its nearest point of `b`."""
    worst = 0.0
    for chunk in numpy.array_split(a, max(1, len(a) // 512)):
        d = numpy.abs(chunk[:, None, :] - b[None, :, :]).max(axis=2).min(axis=1)
        worst = max(worst, float(d.max()))
    return worst


def test_quantized_gltf_in_blenders_importer():
    """`--quality quantized` (KHR_mesh_quantization, KHR_texture_transform) read by
    Blender 3.4's glTF importer: the same triangles and clips as the float export, every
    vertex within the position bound the report states."""
    out = os.path.join(OUT, "quantized")
    os.makedirs(out, exist_ok=True)
    cases = [
        ("actor", [ACTOR, "--anim", os.path.join(os.path.dirname(ACTOR), "actor_00", "*.anim")]),
        ("cesium", [os.path.join(SAMPLES, "m3d", "CesiumMan.m3d")]),
        ("cube", [os.path.join(ROOT, "fixtures", "unity-meshser", "cube.bytes")]),
    ]
    for name, args in cases:
        plain = os.path.join(out, name + ".glb")
        packed = os.path.join(out, name + ".quantized.glb")
        report = os.path.join(out, name + ".report.json")
        subprocess.run([meshfmt_bin(), "convert", *args, plain], check=True, capture_output=True)
        subprocess.run(
            [meshfmt_bin(), "convert", *args, packed, "--quality", "quantized", "--report", report],
            check=True,
            capture_output=True,
        )
        with open(report) as f:
            losses = json.load(f)["losses"]
        # Skinned positions keep their floats in `quantized` (Blender builds the bones from
        # the inverse bind matrices, where meshopt's coding puts the dequantization).
        bound = max(
            (x["bound"] for x in losses if x["feature"] == "geometry" and x["reason"].startswith("positions")),
            default=0.0,
        )
        a, tris_a, clips_a = gltf_world_points(plain)
        b, tris_b, clips_b = gltf_world_points(packed)
        # Every triangle the file holds (quantization drops those it collapses to a line).
        stored = info_json(packed)["triangles"]
        check(tris_b == stored and 0 < tris_b <= tris_a, f"{name}: {tris_b} triangles, {stored} stored, {tris_a} in float")
        check(clips_a == clips_b, f"{name}: {clips_b} actions, the float export has {clips_a}")
        # Blender works in f32: a few ulps of the model's size on top of the bound. A
        # skinned model is skinned into its bind pose at import, through the 8-bit weights
        # (each within 1/255): a thousandth of its size more.
        slack = 4 * numpy.finfo(numpy.float32).eps * float(numpy.abs(a).max())
        if any(x["feature"] == "skin" for x in losses):
            slack += 1e-3 * float(numpy.linalg.norm(a.max(axis=0) - a.min(axis=0)))
        worst = max(farthest_from(b, a), farthest_from(a, b))
        check(worst <= bound + slack, f"{name}: a vertex moved {worst}, the report's bound is {bound}")
        print(f"     {name}: {tris_b} triangles, {len(b)} vertices, worst {worst:.3g} <= bound {bound:.3g}")


def main():
    os.makedirs(OUT, exist_ok=True)
    meshfmt_io.register()
    tests = [v for k, v in sorted(globals().items()) if k.startswith("test_")]
    failed = 0
    for t in tests:
        try:
            t()
            print(f"ok   {t.__name__}")
        except Exception:
            failed += 1
            print(f"FAIL {t.__name__}")
            traceback.print_exc()
    print(f"blender: {len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
