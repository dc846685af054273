"""Bone keys as the file has them, after Blender's glTF importer.

Blender keeps a bone's rest pose as head, tail and roll in float32, so the rest matrix it
rebuilds is a little off the one the glTF importer used to turn each key into a pose
(measured on UNIGINE's actor_00: 2.4e-5 on the hips' translation, more than one
quantization step of the .anim it came from). An export then writes every key off by that
much. Here each translation and rotation key of a bone with a parent is worked out again,
in float64, against the rest matrices Blender actually kept, so an export gives the
file's keys back to f32 noise (6e-7 on actor_00). Scales need nothing: a bone's rest has
none.
"""

import math

import numpy


def _accessor(doc, binary, index):
    """A float accessor's values as an (count, n) float64 array, or None."""
    acc = doc["accessors"][index]
    n = {"SCALAR": 1, "VEC3": 3, "VEC4": 4}.get(acc["type"])
    if n is None or acc.get("componentType") != 5126 or "bufferView" not in acc or "sparse" in acc:
        return None
    view = doc["bufferViews"][acc["bufferView"]]
    at = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    count = acc["count"]
    if at + count * n * 4 > len(binary):
        return None
    return numpy.frombuffer(binary, dtype="<f4", count=count * n, offset=at).astype(numpy.float64).reshape(count, n)


def _matrix_quat(m):
    """(w, x, y, z) of a 3x3 rotation matrix."""
    t = m[0, 0] + m[1, 1] + m[2, 2]
    if t > 0:
        s = math.sqrt(t + 1.0) * 2
        return numpy.array([0.25 * s, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s])
    i = int(numpy.argmax([m[0, 0], m[1, 1], m[2, 2]]))
    if i == 0:
        s = math.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2]) * 2
        return numpy.array([(m[2, 1] - m[1, 2]) / s, 0.25 * s, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s])
    if i == 1:
        s = math.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2]) * 2
        return numpy.array([(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, 0.25 * s, (m[1, 2] + m[2, 1]) / s])
    s = math.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1]) * 2
    return numpy.array([(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, 0.25 * s])


def _quat_mul(a, b):
    """Hamilton products of (w, x, y, z) quaternions, `a` one, `b` rows."""
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b[:, 0], b[:, 1], b[:, 2], b[:, 3]
    return numpy.stack(
        [
            w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2,
            w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
            w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2,
            w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2,
        ],
        axis=1,
    )


def refine(glb, armatures, actions):
    """Rewrites the translation and rotation keys of `actions` (made by the glTF
    importer from `glb`, a .glb's bytes, on `armatures`) against the bones' rest as
    Blender keeps it. A channel is left as imported unless the armature has the bone
    and its parent, the action has one key per glTF key on every axis, and the new
    values are within 1e-3 of the imported ones (the same keys, not another channel's).
    Returns how many channels were rewritten."""
    from . import common

    doc, binary = common.glb_parts(glb)
    animations = {a.get("name"): a for a in doc.get("animations", [])}
    nodes = doc.get("nodes", [])
    rewritten = 0
    for arm in armatures:
        ad = arm.animation_data
        if ad is None:
            continue
        for track in ad.nla_tracks:
            for strip in track.strips:
                anim = animations.get(track.name)
                if anim is None or strip.action not in actions:
                    continue
                rewritten += _refine_action(doc, binary, nodes, arm, anim, strip.action)
    return rewritten


def _refine_action(doc, binary, nodes, arm, anim, action):
    curves = {(f.data_path, f.array_index): f for f in action.fcurves}
    done = 0
    for ch in anim.get("channels", []):
        target = ch.get("target", {})
        path = target.get("path")
        if path not in ("translation", "rotation") or "node" not in target:
            continue
        name = nodes[target["node"]].get("name")
        bone = arm.data.bones.get(name) if name else None
        if bone is None or bone.parent is None:
            continue
        sampler = anim["samplers"][ch["sampler"]]
        if sampler.get("interpolation", "LINEAR") != "LINEAR":
            continue
        values = _accessor(doc, binary, sampler["output"])
        if values is None:
            continue
        # The bone's rest relative to its parent's, as Blender keeps them.
        rest = numpy.linalg.inv(numpy.array(bone.parent.matrix_local, dtype=numpy.float64)) @ numpy.array(
            bone.matrix_local, dtype=numpy.float64
        )
        rot, offset = rest[:3, :3], rest[:3, 3]
        pose_bone = f'pose.bones["{bone.name}"]'
        if path == "translation":
            fcurves = [curves.get((pose_bone + ".location", i)) for i in range(3)]
            new = (values - offset) @ rot  # rot^T (t - offset), row by row
        else:
            fcurves = [curves.get((pose_bone + ".rotation_quaternion", i)) for i in range(4)]
            q = _matrix_quat(rot)
            inverse = numpy.array([q[0], -q[1], -q[2], -q[3]]) / numpy.dot(q, q)
            new = _quat_mul(inverse, values[:, [3, 0, 1, 2]])  # glTF keys are (x, y, z, w)
        if any(f is None or len(f.keyframe_points) != len(values) for f in fcurves):
            continue
        old = numpy.array([[kp.co[1] for kp in f.keyframe_points] for f in fcurves]).T
        if path == "rotation":  # the importer keeps neighbouring keys' signs alike
            new[(old * new).sum(axis=1) < 0] *= -1
        if numpy.abs(new - old).max(initial=0.0) > 1e-3:
            continue
        for i, f in enumerate(fcurves):
            for k, kp in enumerate(f.keyframe_points):
                delta = new[k, i] - kp.co[1]
                kp.co[1] = new[k, i]
                kp.handle_left[1] += delta
                kp.handle_right[1] += delta
            f.update()
        done += 1
    return done
