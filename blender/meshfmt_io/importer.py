"""File > Import > Game meshes (meshfmt): any file meshfmt reads, as a whole character.

The file, its clips and its skeleton are assembled by meshfmt into one in-memory glTF,
which Blender's own glTF importer brings in (armature, skin weights, materials,
textures, one action per clip). What that trip loses is put back here: the scene's
frame rate is the clips' own (set before the import, which turns seconds into frames
at the scene's rate), bone keys are worked out again against the rest Blender keeps
(`keys.py`), actions and NLA tracks carry the clips' names, and meshfmt's losses go
to Blender's report.
"""

import json
import os
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ImportHelper

from . import common, keys

EXTENSIONS = "*.mesh;*.smesh;*.mesh_skinned;*.skeleton;*.anim;*.sanim;*.skel;*.apr;*.m3d;*.a3d;*.bytes;*.data;*.glb;*.gltf;*.obj"


def import_file(
    context, path, anims="auto", skeleton="auto", side_files=(), frame_rate=True, bones="BLENDER"
):
    """Imports `path` (with its clips and skeleton, found as `common` says) into the
    current scene; returns what was imported and meshfmt's report. `bones` is the glTF
    importer's bone heuristic: `BLENDER` keeps each bone's rest rotation as the file
    has it, so an export writes the same local transforms back (the default);
    `TEMPERANCE` and `FORTUNE` point bones at their children, which reads better in
    Blender but changes every bone's local axes."""
    meshfmt = common.meshfmt_module()
    patterns = common.clip_patterns(path, anims)
    skel = common.skeleton_beside(path, skeleton)
    side = [os.path.abspath(s) for s in side_files if s]
    read = meshfmt.read(path, anims=patterns, skeleton=skel, side_files=side)
    clips = read.model.clips
    if frame_rate and clips:
        rate = clips[0].frame_rate()
        context.scene.render.fps = max(1, round(rate))
        context.scene.render.fps_base = context.scene.render.fps / rate
    before = set(bpy.data.actions)
    objects_before = set(bpy.data.objects)
    with tempfile.TemporaryDirectory(prefix="meshfmt-import-") as tmp:
        glb = os.path.join(tmp, "model.glb")
        report = meshfmt.convert(path, glb, anims=patterns, skeleton=skel, side_files=side)
        bpy.ops.import_scene.gltf(filepath=glb, bone_heuristic=bones)
        new_actions = [a for a in bpy.data.actions if a not in before]
        armatures = [o for o in bpy.data.objects if o not in objects_before and o.type == "ARMATURE"]
        refined = 0
        if bones == "BLENDER" and new_actions:
            with open(glb, "rb") as f:
                refined = keys.refine(f.read(), armatures, new_actions)
    names = [c.name for c in clips]
    _restore_clip_names(new_actions, names)
    _events_to_markers(context, read.model, new_actions)
    for a in new_actions:
        a.use_fake_user = True
    if new_actions:
        first = min(new_actions, key=lambda a: names.index(a.name) if a.name in names else len(names))
        start, end = first.frame_range
        context.scene.frame_start = int(start)
        context.scene.frame_end = max(int(start), int(round(end)))
    objects = [o for o in bpy.data.objects if o not in objects_before]
    return {
        "read": read,
        "report": report,
        "objects": objects,
        "actions": new_actions,
        "frame_rate": clips[0].frame_rate() if clips else None,
        "refined_channels": refined,
    }


def _events_to_markers(context, model, actions):
    """Each clip's events (The Sims Online's timeprops) as pose markers of its action,
    named `key=value;...` at the event's frame; the events themselves, bones and all
    properties, are kept in the action's `meshfmt_events` property, which the exporter
    writes back for the markers that still stand where they were."""
    rate = context.scene.render.fps / context.scene.render.fps_base
    by_name = {a.name: a for a in actions}
    for clip in model.clips:
        action = by_name.get(clip.name)
        if action is None or not clip.events:
            continue
        stored = []
        for e in clip.events:
            frame = int(round(e.time * rate))
            label = e.label()[:63] or "event"
            marker = action.pose_markers.new(label)
            marker.frame = frame
            bone = model.bones[e.bone].name if e.bone is not None and e.bone < len(model.bones) else None
            stored.append({"time": e.time, "frame": frame, "label": label, "bone": bone, "props": [list(p) for p in e.props]})
        action["meshfmt_events"] = json.dumps(stored)


def _restore_clip_names(actions, names):
    """glTF's importer names an action `CLIP_OBJECT`; the clip's own name comes back (a
    name another action already has keeps the importer's)."""
    taken = {a.name for a in bpy.data.actions}
    for a in actions:
        for n in sorted(names, key=len, reverse=True):
            if a.name.startswith(n + "_") and n not in taken:
                a.name = n
                taken.add(n)
                break
    for o in bpy.data.objects:
        ad = o.animation_data
        if ad is None:
            continue
        for t in ad.nla_tracks:
            for s in t.strips:
                if s.action in actions:
                    s.name = s.action.name
                    t.name = s.action.name


class ImportMeshfmt(bpy.types.Operator, ImportHelper):
    """Import a game mesh, skeleton or animation (UNIGINE, Vitaboy, Model 3D, Unity
    MeshSerializer2, glTF, OBJ) with its clips"""

    bl_idname = "import_scene.meshfmt"
    bl_label = "Import (meshfmt)"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filter_glob: StringProperty(default=EXTENSIONS, options={"HIDDEN"})
    anims: StringProperty(
        name="Clips",
        description="Animation files to attach: 'auto' finds a UNIGINE mesh's (NAME/*.anim, NAME_*.anim, ../animations/NAME_*.anim); or ';'-separated patterns relative to the file",
        default="auto",
    )
    skeleton: StringProperty(
        name="Skeleton",
        description="A Vitaboy .mesh/.anim/.apr's .skel: 'auto' takes the one .skel beside it (or adult.skel); or a path",
        default="auto",
    )
    side_files: StringProperty(
        name="Side files",
        description="A folder besides the file's own that names inside it may lead into (FreeSO's content folder for an .apr)",
        default="",
    )
    bones: EnumProperty(
        name="Bone orientation",
        items=(
            ("BLENDER", "As stored", "Each bone keeps its rest rotation as the file has it: exports write the same transforms back"),
            ("TEMPERANCE", "Temperance", "Bones point at their children (reads better in Blender; changes every bone's local axes)"),
            ("FORTUNE", "Fortune", "Bones point at their children, more freely"),
        ),
        default="BLENDER",
    )
    frame_rate: BoolProperty(
        name="Scene frame rate from the clips",
        description="Set the scene's frame rate to the rate the clips are sampled at before importing",
        default=True,
    )

    def execute(self, context):
        meshfmt = common.meshfmt_module()
        try:
            got = import_file(
                context,
                self.filepath,
                anims=self.anims,
                skeleton=self.skeleton,
                side_files=[self.side_files],
                frame_rate=self.frame_rate,
                bones=self.bones,
            )
        except (meshfmt.FormatError, OSError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        common.report_losses(self, got["report"])
        return {"FINISHED"}


def menu_import(self, context):
    self.layout.operator(ImportMeshfmt.bl_idname, text="Game meshes (meshfmt)")
