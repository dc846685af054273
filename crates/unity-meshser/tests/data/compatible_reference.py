"""Independent reference for the Compatible-mode fixtures in tests/compatible.rs.

Re-implements MeshSerializer.js's WriteMesh arithmetic in Python with every float
operation rounded to IEEE single precision (a double operation on single operands,
rounded once to single, is the correctly rounded single result for + - * /), and
Unity's Bounds struct (center/extents, SetMinMax on every Encapsulate).

Run: python3 tests/data/compatible_reference.py  (prints the expected bytes)
"""
import math
import struct


def f(x):
    """Round a Python float to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def vsub(a, b): return [f(x - y) for x, y in zip(a, b)]
def vadd(a, b): return [f(x + y) for x, y in zip(a, b)]
def vmul(a, s): return [f(x * s) for x in a]
def mmin(a, b): return a if a < b else b   # Mathf.Min
def mmax(a, b): return a if a > b else b   # Mathf.Max
def clamp(v, lo, hi): return lo if v < lo else (hi if v > hi else v)


def trunc_u(v, hi):
    """float -> unsigned cast (truncation toward zero); NaN -> 0."""
    if v != v:
        return 0
    return max(0, min(hi, int(math.trunc(v))))


def position_bounds(points):
    # Bounds(points[0], Vector3(0.001, 0.001, 0.001)): extents = size * 0.5
    center = [f(c) for c in points[0]]
    extents = vmul([f(0.001)] * 3, 0.5)
    for p in points:
        mn = vsub(center, extents)
        mx = vadd(center, extents)
        nmin = [mmin(a, b) for a, b in zip(mn, p)]
        nmax = [mmax(a, b) for a, b in zip(mx, p)]
        extents = vmul(vsub(nmax, nmin), 0.5)
        center = vadd(nmin, extents)
    mn = vsub(center, extents)
    mx = vadd(center, extents)
    return [mn[0], mx[0], mn[1], mx[1], mn[2], mx[2]]


def uv_bounds(uvs):
    mn = vsub(uvs[0], [f(0.001)] * 2)
    mx = vadd(uvs[0], [f(0.001)] * 2)
    for v in uvs:
        mn = [mmin(mn[0], v[0]), mmin(mn[1], v[1])]
        mx = [mmax(mx[0], v[0]), mmax(mx[1], v[1])]
    return [mn[0], mx[0], mn[1], mx[1]]


def q16(v, lo, hi, clamped):
    x = f(f(f(v - lo) / f(hi - lo)) * 65535.0)
    if clamped:
        x = clamp(x, 0.0, 65535.0)
    return trunc_u(x, 65535)


def q8(v):
    return trunc_u(clamp(f(f(v * 127.0) + 128.0), 0.0, 255.0), 255)


def write_mesh(verts, normals, tangents, uvs, tris, save_tangents):
    fmt = 1
    if normals: fmt |= 2
    if save_tangents and tangents: fmt |= 4
    if uvs: fmt |= 8
    out = struct.pack("<HHB", len(verts), len(tris) // 3, fmt)
    if verts:
        b = position_bounds(verts)
        out += struct.pack("<6f", *b)
        for v in verts:
            out += struct.pack("<3H", q16(v[0], b[0], b[1], True),
                               q16(v[1], b[2], b[3], True), q16(v[2], b[4], b[5], True))
    for n in normals:
        out += bytes(q8(c) for c in n)
    if save_tangents:
        for t in tangents:
            out += bytes(q8(c) for c in t)
    if uvs:
        b = uv_bounds(uvs)
        out += struct.pack("<4f", *b)
        for v in uvs:
            out += struct.pack("<2H", q16(v[0], b[0], b[1], False), q16(v[1], b[2], b[3], False))
    for i in tris:
        out += struct.pack("<H", i)
    return out


CASES = {
    "triangle": dict(
        verts=[(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 2.0, -1.0)],
        normals=[(0.0, 0.0, 1.0), (0.0, 0.0, 1.0), (0.0, -0.6, 0.8)],
        tangents=[(1.0, 0.0, 0.0, 1.0), (1.0, 0.0, 0.0, -1.0), (0.6, 0.8, 0.0, 1.0)],
        uvs=[(0.0, 0.0), (1.0, 0.0), (0.25, 0.75)],
        tris=[0, 1, 2],
    ),
    "offset_quad": dict(
        verts=[(10.5, -3.25, 100.0), (11.5, -3.25, 100.0), (11.5, -2.25, 100.0), (10.5, -2.25, 100.0)],
        normals=[],
        tangents=[],
        uvs=[(0.1, 0.2), (0.9, 0.2), (0.9, 0.8), (0.1, 0.8)],
        tris=[0, 1, 2, 0, 2, 3],
    ),
}

if __name__ == "__main__":
    for name, c in CASES.items():
        for save in (False, True):
            b = write_mesh(c["verts"], c["normals"], c["tangents"], c["uvs"], c["tris"], save)
            print(name, "save_tangents" if save else "", b.hex())
