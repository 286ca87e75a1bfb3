"""Blender 3.4 as an independent reference for corskin's Delta Mush (method `dm`).

Imports a glTF with Blender's own importer (merge_vertices=True: one surface, as corskin welds
it), adds a Corrective Smooth modifier after the armature (rest source: original coordinates),
and writes, per requested clip time, the evaluated world-space positions with and without it
(the latter is Blender's linear blend skinning), next to each vertex's rest position in glTF axes.

Run: blender -b --factory-startup --python corrective-smooth.py -- IN.glb OUT.json \
       TIMES(comma-separated seconds) ITERATIONS FACTOR SIMPLE|LENGTH_WEIGHTED PIN(0|1)
"""
import json
import sys

import numpy

numpy.bool = bool  # Debian's numpy 1.24 lacks the alias Blender 3.4's glTF importer uses

import bpy  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
src, dst, times, iterations, factor, kind, pin = args
times = [float(t) for t in times.split(",")]

bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src, merge_vertices=True)
scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base

meshes = [o for o in scene.objects if o.type == "MESH" and any(m.type == "ARMATURE" for m in o.modifiers)]
if not meshes:
    raise SystemExit(f"{src}: no skinned mesh after import")
defaults = None
for o in meshes:
    cs = o.modifiers.new("corskin reference", "CORRECTIVE_SMOOTH")
    defaults = defaults or {
        "factor": cs.factor, "iterations": cs.iterations, "smooth_type": cs.smooth_type,
        "use_pin_boundary": cs.use_pin_boundary, "rest_source": cs.rest_source, "scale": cs.scale,
    }
    cs.factor = float(factor)
    cs.iterations = int(iterations)
    cs.smooth_type = kind
    cs.use_pin_boundary = pin == "1"
    cs.rest_source = "ORCO"
    cs.scale = 1.0


def gltf_axes(v):
    # Blender is Z-up, glTF Y-up: (x, y, z)_blender = (x, -z, y)_glTF
    return [v[0], v[2], -v[1]]


def evaluated(o):
    depsgraph = bpy.context.evaluated_depsgraph_get()
    e = o.evaluated_get(depsgraph)
    m = e.to_mesh()
    world = e.matrix_world
    out = [c for v in m.vertices for c in gltf_axes(world @ v.co)]
    e.to_mesh_clear()
    return out


result = {"defaults": defaults, "fps": fps, "meshes": []}
for o in meshes:
    result["meshes"].append({"name": o.name, "rest": [c for v in o.data.vertices for c in gltf_axes(v.co)],
                             "smoothed": [], "lbs": []})
for t in times:
    frame = t * fps
    scene.frame_set(int(frame), subframe=frame - int(frame))
    for o, r in zip(meshes, result["meshes"]):
        cs = o.modifiers["corskin reference"]
        cs.show_viewport = True
        r["smoothed"].append(evaluated(o))
        cs.show_viewport = False
        r["lbs"].append(evaluated(o))
        cs.show_viewport = True

with open(dst, "w") as f:
    json.dump(result, f)
