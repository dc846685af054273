"""File > Export > Game meshes (meshfmt): the scene or the selection to any format
meshfmt writes.

Blender's own glTF exporter writes the scene to an in-memory .glb (one glTF animation
per NLA track, times in seconds at the scene's frame rate); meshfmt converts that to the
chosen format and version. A mesh format whose clips live in files of their own gets
one animation file per action beside the mesh (UNIGINE: `.anim`; Vitaboy: `.anim`,
with the `.skel` beside the `.mesh`).
"""

import json
import os
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper

from . import common


def _format_items(self, context):
    meshfmt = common.meshfmt_module()
    return [
        (f["name"], f["name"], f["description"])
        for f in meshfmt.formats()
        if f["can_write"] and f["name"] != "gltf"
    ]


def export_file(
    context,
    path,
    to=None,
    version=None,
    quality=None,
    use_selection=False,
    split_clips=True,
    anims_dir=None,
):
    """Exports the scene (or the selection) to `path`; returns meshfmt's report. With
    `split_clips`, a format with clip files gets one per action in `anims_dir` (the
    output's folder by default)."""
    meshfmt = common.meshfmt_module()
    with tempfile.TemporaryDirectory(prefix="meshfmt-export-") as tmp:
        glb = os.path.join(tmp, "scene.glb")
        bpy.ops.export_scene.gltf(
            filepath=glb,
            export_format="GLB",
            use_selection=use_selection,
            export_animations=True,
            export_nla_strips=True,
            export_force_sampling=False,
            export_def_bones=False,
            export_apply=False,
        )
        events = markers_to_events(context)
        if events:
            with open(glb, "rb") as f:
                data = f.read()
            with open(glb, "wb") as f:
                f.write(common.with_events(data, events))
        clips = None
        if split_clips and meshfmt.info(glb)["animations"]:
            v = _version_facts(_format_of(meshfmt, path, to), path, version)
            if v is not None and v["clip_files"]:
                clips = anims_dir or os.path.dirname(os.path.abspath(path))
        return meshfmt.convert(
            glb,
            path,
            to=to,
            version=version or None,
            quality=quality or None,
            anims_dir=clips,
            force=True,
        )


def markers_to_events(context):
    """Each action's pose markers as clip events, by action name (the glTF exporter
    names an animation after its NLA track, which the importer named after the action):
    a marker still at the frame and with the name the importer gave it keeps the
    event it stood for (bone and every property); any other is read from its name,
    `key=value;...` (a name without `=` is one property, `event`), on no bone."""
    rate = context.scene.render.fps / context.scene.render.fps_base
    out = {}
    for action in bpy.data.actions:
        if not action.pose_markers:
            continue
        stored = {}
        for e in json.loads(action.get("meshfmt_events", "[]")):
            stored.setdefault((e["frame"], e["label"]), []).append(e)
        events = []
        for m in sorted(action.pose_markers, key=lambda m: m.frame):
            kept = stored.get((m.frame, m.name))
            if kept:
                e = kept.pop(0)
                events.append({"time": e["time"], "bone": e["bone"], "props": e["props"]})
                continue
            props = []
            for part in m.name.split(";"):
                key, sep, value = part.partition("=")
                props.append([key, value] if sep else ["event", part])
            events.append({"time": m.frame / rate, "bone": None, "props": props})
        out[action.name] = events
    return out


def _format_of(meshfmt, path, to):
    """The facts of the format `to`, or of the one that owns `path`'s extension."""
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    for f in meshfmt.formats():
        if (to and f["name"] == to) or (not to and f["can_write"] and ext in f["extensions"]):
            return f
    return None


def _version_facts(fmt, path, version):
    """The facts of the version a write of `path` as `fmt` gives: `version`, else the
    one the extension implies, else the format's default; None without versions."""
    if fmt is None or not fmt["versions"]:
        return None
    ext = os.path.splitext(path)[1].lstrip(".").lower()
    implied = next((v["name"] for v in fmt["versions"] if v["extension"] == ext), None)
    name = version or implied or fmt["versions"][0]["name"]
    return next((v for v in fmt["versions"] if v["name"] == name), None)


class ExportMeshfmt(bpy.types.Operator, ExportHelper):
    """Export the scene or the selection to a game mesh format (UNIGINE, Vitaboy, Model
    3D, Unity MeshSerializer2, OBJ), clips in the format's animation files"""

    bl_idname = "export_scene.meshfmt"
    bl_label = "Export (meshfmt)"
    bl_options = {"PRESET"}

    filename_ext = ""
    filter_glob: StringProperty(default="*.mesh;*.smesh;*.mesh_skinned;*.anim;*.skel;*.m3d;*.a3d;*.bytes;*.obj", options={"HIDDEN"})
    to: EnumProperty(name="Format", items=_format_items)
    version: StringProperty(
        name="Version",
        description="The version or form to write (ms14, an10, ascii, skel, ...); empty: the one the extension implies, else the format's default",
        default="",
    )
    quality: StringProperty(
        name="Quality",
        description="Quantization quality for formats that quantize by choice (int16, rounded, ...); empty: the format's default",
        default="",
    )
    use_selection: BoolProperty(name="Selected only", default=False)
    split_clips: BoolProperty(
        name="Clips in their own files",
        description="For formats whose clips live in animation files (UNIGINE, Vitaboy): one file per action beside the mesh",
        default=True,
    )

    def invoke(self, context, event):
        meshfmt = common.meshfmt_module()
        ext = next(
            (f["extensions"][0] for f in meshfmt.formats() if f["name"] == self.to),
            "mesh",
        )
        self.filename_ext = "." + ext
        return super().invoke(context, event)

    def execute(self, context):
        meshfmt = common.meshfmt_module()
        try:
            report = export_file(
                context,
                self.filepath,
                to=self.to,
                version=self.version,
                quality=self.quality,
                use_selection=self.use_selection,
                split_clips=self.split_clips,
            )
        except (meshfmt.FormatError, OSError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        common.report_losses(self, report)
        self.report({"INFO"}, f"wrote {len(report.files)} files")
        return {"FINISHED"}


def menu_export(self, context):
    self.layout.operator(ExportMeshfmt.bl_idname, text="Game meshes (meshfmt)")
