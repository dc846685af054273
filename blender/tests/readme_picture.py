"""The README's picture: the canonical three-bone arm (fixtures/, our own model) imported
through the add-on with its two clips, posed mid-'bend', rendered by Blender's
workbench engine. Regenerate with

    blender -b --factory-startup --python blender/tests/readme_picture.py -- docs/blender-import.png

with the meshfmt module importable, as for test_blender.py."""

import math
import os
import sys

import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool

import bpy
import mathutils

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "blender"))
from meshfmt_io import importer  # noqa: E402

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
mesh = os.path.join(ROOT, "fixtures", "unigine-mesh", "skinned_arm3.ms11.mesh")
anim = os.path.join(ROOT, "fixtures", "unigine-anim", "skinned_arm3.anim")
got = importer.import_file(bpy.context, mesh, anims=anim)
scene = bpy.context.scene
arm = next(o for o in got["objects"] if o.type == "ARMATURE")
arm.animation_data.action = bpy.data.actions["bend"]
start, end = bpy.data.actions["bend"].frame_range
scene.frame_set(int((start + end) / 2))
scene.render.engine = "BLENDER_WORKBENCH"
scene.display.shading.light = "STUDIO"
scene.display.shading.color_type = "SINGLE"
scene.display.shading.show_cavity = True
scene.render.resolution_x, scene.render.resolution_y = 800, 450
scene.render.film_transparent = False
world = bpy.data.worlds.new("bg")
scene.world = world
world.color = (0.55, 0.6, 0.66)
# The camera looks at the posed mesh's bounds from the front and a little above.
points = [o.matrix_world @ mathutils.Vector(c) for o in got["objects"] if o.type == "MESH" for c in o.bound_box]
lo = mathutils.Vector([min(p[i] for p in points) for i in range(3)])
hi = mathutils.Vector([max(p[i] for p in points) for i in range(3)])
center, size = (lo + hi) / 2, max((hi - lo).length, 1e-3)
cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
scene.collection.objects.link(cam)
cam.location = center + mathutils.Vector((0.9, -1.6, 0.7)).normalized() * size * 1.8
cam.rotation_euler = (center - cam.location).to_track_quat("-Z", "Y").to_euler()
scene.camera = cam
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
print("wrote", out, "frame", scene.frame_current, "of bend", (start, end))
