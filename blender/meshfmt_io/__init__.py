"""meshfmt for Blender: File > Import and File > Export for every format meshfmt reads
and writes (UNIGINE .mesh/.anim, The Sims Online Vitaboy .mesh/.skel/.anim/.apr, Model 3D,
Unity MeshSerializer2, OBJ), characters whole: armature, skin, one action per clip,
materials and textures.

Blender 3.4 to 4.1 install this folder as an add-on (with the meshfmt wheel in
`wheels/`, or meshfmt pip-installed into Blender's Python); Blender 4.2 and later install
it as an extension (`blender_manifest.toml` lists the wheel).
"""

bl_info = {
    "name": "meshfmt: game meshes and animations",
    "author": "The meshfmt developers",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import / Export > Game meshes (meshfmt)",
    "description": "Import and export UNIGINE, Vitaboy, Model 3D and Unity meshes with skeletons, clips and textures",
    "category": "Import-Export",
}

import bpy

from . import exporter, importer

CLASSES = (importer.ImportMeshfmt, exporter.ExportMeshfmt)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(importer.menu_import)
    bpy.types.TOPBAR_MT_file_export.append(exporter.menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(exporter.menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(importer.menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
