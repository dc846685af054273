"""Read, inspect, validate and convert game mesh and animation files.

The formats are those of the ``meshfmt`` command (UNIGINE ``.mesh``/``.anim``, The Sims
Online Vitaboy ``.mesh``/``.skel``/``.anim``/``.apr``, Unity MeshSerializer2, Model 3D,
glTF, OBJ), read and written by the same Rust code, with the GIL released while a file
is read or converted::

    import meshfmt
    meshfmt.info("actor.mesh")["triangles"]
    model = meshfmt.read("actor.mesh", anims=["actor/*.anim"]).model
    model.surfaces[0].positions          # numpy (n, 3) float32
    report = meshfmt.convert("actor.mesh", "actor.glb", anims=["actor/*.anim"])
    report.losses                        # what the conversion could not carry

A source is a path (``str`` or ``os.PathLike``) or bytes (``bytes``, ``bytearray``,
``memoryview``) with ``name=`` giving a file name whose extension says what they are.
Files a source names (a ``.gltf``'s buffer, an M3D texture, a Vitaboy appearance's loose
files) are read only from its folder and the ``side_files`` folders; for bytes, from the
``side_files`` folders alone.

Errors: :class:`FormatError` (a ``ValueError``) for a file no format reads or that its
format refuses, with the tool's one-line message naming the byte offset and what was
being read; :class:`OverBudget` (a ``FormatError``) when ``max_memory`` (bytes, or a size
like ``"512M"``; default 1 GiB) runs out; ``OSError`` for files that cannot be read or
written; ``ValueError`` for arguments that make no request.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Optional, Sequence, Union

import numpy as np

from . import _meshfmt
from ._meshfmt import FormatError, OverBudget

__all__ = [
    "Bone",
    "Channel",
    "Clip",
    "ClipEvent",
    "FormatError",
    "Loss",
    "Material",
    "Model",
    "MorphTarget",
    "OverBudget",
    "Read",
    "Report",
    "Surface",
    "Texture",
    "Track",
    "convert",
    "formats",
    "info",
    "read",
    "validate",
]

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
PathLike = Union[str, "os.PathLike[str]"]
Size = Union[int, str, None]


@dataclass
class MorphTarget:
    """One blend shape: ``kind`` is ``"delta"`` (offsets) or ``"absolute"``."""

    name: str
    kind: str
    positions: np.ndarray
    normals: np.ndarray


@dataclass
class Surface:
    """A renderable piece. Arrays are numpy, one row per vertex: ``positions``,
    ``normals`` (n, 3) float32; ``tangents`` (n, 4) (w: handedness); ``uv0``, ``uv1``
    (n, 2), glTF's convention (v grows downwards); ``colors`` (n, 4) linear RGBA;
    ``joints`` (n, 4) uint32 and ``weights`` (n, 4) float32 (empty when static);
    ``indices`` (t, 3) uint32 triangles. An array the file lacks has 0 rows."""

    name: str
    positions: np.ndarray
    normals: np.ndarray
    tangents: np.ndarray
    uv0: np.ndarray
    uv1: np.ndarray
    colors: np.ndarray
    indices: np.ndarray
    material: Optional[int]
    joints: np.ndarray
    weights: np.ndarray
    morph_targets: list[MorphTarget] = field(default_factory=list)


@dataclass
class Bone:
    """A bone: its rest pose relative to its parent (``rotation`` as x, y, z, w) and,
    when the file stores one that differs from the rest pose's, an inverse bind
    matrix (4, 4), row-major."""

    name: str
    parent: Optional[int]
    translation: tuple[float, float, float]
    rotation: tuple[float, float, float, float]
    scale: tuple[float, float, float]
    inverse_bind: Optional[np.ndarray]


@dataclass
class Track:
    """Keys of one property: ``times`` (k,) seconds, ``values`` (k, 3) or, for
    rotations, (k, 4) x, y, z, w; ``interpolation`` is ``"linear"`` or ``"step"``."""

    times: np.ndarray
    values: np.ndarray
    interpolation: str


@dataclass
class Channel:
    """One animated bone of a clip."""

    bone: int
    translation: Track
    rotation: Track
    scale: Track


@dataclass
class ClipEvent:
    """A timed event of a clip (The Sims Online's timeprops: a sound, an object taken in
    a hand): ``time`` in seconds, the ``bone`` whose track carries it (an index into
    the model's bones) or None, and its ``props`` as ``(key, value)`` pairs."""

    time: float
    bone: Optional[int]
    props: list[tuple[str, str]]

    def label(self) -> str:
        """The properties as one line, ``key=value;key=value``."""
        return ";".join(f"{k}={v}" for k, v in self.props)


@dataclass
class Clip:
    """A named animation; ``duration`` in seconds; ``events`` in time order.
    :meth:`frame_rate` gives the rate its keys are sampled at."""

    name: str
    channels: list[Channel]
    duration: float
    events: list[ClipEvent] = field(default_factory=list)

    def frame_rate(self, default: float = 30.0) -> float:
        """The rate the keys are sampled at: the inverse of the shortest step between
        two keys of a track, rounded to a whole number of frames per second when
        within 1e-3 of one; ``default`` for a clip with no two keys."""
        steps = [
            np.diff(t.times)
            for c in self.channels
            for t in (c.translation, c.rotation, c.scale)
            if len(t.times) > 1
        ]
        positive = [s[s > 1e-6] for s in steps]
        positive = [s for s in positive if len(s)]
        if not positive:
            return default
        rate = 1.0 / float(min(s.min() for s in positive))
        whole = round(rate)
        return float(whole) if abs(rate - whole) < 1e-3 * max(1.0, rate) else rate


@dataclass
class Material:
    """A metallic-roughness material; ``textures`` are ``(role, texture index, uv set)``
    with roles ``base_color``, ``normal``, ``metallic_roughness``, ``emissive``,
    ``occlusion``."""

    name: str
    base_color: tuple[float, float, float, float]
    metallic: float
    roughness: float
    emissive: tuple[float, float, float]
    textures: list[tuple[str, int, int]]


@dataclass
class Texture:
    """A texture: a ``path`` as the file names it (not resolved), or decoded ``pixels``
    (h, w, 4) uint8 RGBA, rows top to bottom."""

    name: str
    path: Optional[str]
    pixels: Optional[np.ndarray]


@dataclass
class Model:
    """meshfmt's format-neutral model. ``coordinate_system`` is ``(up, handedness,
    meters_per_unit)``: ``("y", "right", 1.0)`` is glTF's frame."""

    name: str
    coordinate_system: tuple[str, str, float]
    surfaces: list[Surface]
    bones: list[Bone]
    clips: list[Clip]
    materials: list[Material]
    textures: list[Texture]

    def vertex_count(self) -> int:
        """Vertices over all surfaces."""
        return sum(len(s.positions) for s in self.surfaces)

    def triangle_count(self) -> int:
        """Triangles over all surfaces."""
        return sum(len(s.indices) for s in self.surfaces)


@dataclass
class Loss:
    """What a read or conversion could not carry: ``kind`` is ``dropped``, ``reduced``
    or ``quantized`` (``bound``: the worst absolute error, in the feature's units)."""

    feature: str
    kind: str
    bound: Optional[float]
    path: str
    reason: str


@dataclass
class Read:
    """What :func:`read` gives: the model, the format and version it was read as, what
    reading could not carry, and warnings (a skeleton not given, side files refused)."""

    model: Model
    format: str
    version: str
    losses: list[Loss]
    warnings: list[str]


@dataclass
class Report:
    """What :func:`convert` did (the tool's ``--report``): the files written, every
    loss, every warning."""

    input: str
    output: str
    written: bool
    files: list[str]
    losses: list[Loss]
    warnings: list[str]


def formats() -> list[dict[str, Any]]:
    """Every format meshfmt knows, with its facts: ``name``, ``description``,
    ``extensions`` (the first is the default output), ``versions`` (each with the
    extension that implies it, the features it ``holds`` and its ``clip_files``),
    ``qualities``, ``can_write`` and the rest of the format's ``FormatInfo``."""
    return _meshfmt.formats()


def info(
    src: Source,
    *,
    name: Optional[str] = None,
    format: Optional[str] = None,
    side_files: Optional[Sequence[PathLike]] = None,
    max_memory: Size = None,
) -> dict[str, Any]:
    """What a file holds, as ``meshfmt info --json`` gives it: ``format``,
    ``version``, the counts (``surfaces``, ``vertices``, ``triangles``, ``bones``,
    ``animations``, ``frames``, ``materials``, ``textures``), ``file``, ``file_size``
    and ``detail`` (the sections in full); ``warnings`` lists side files refused."""
    text, warnings = _meshfmt.info_json(
        src, name=name, format=format, side_files=_paths(side_files), max_memory=max_memory
    )
    out = json.loads(text)
    out["warnings"] = warnings
    return out


def validate(
    src: Source,
    *,
    name: Optional[str] = None,
    format: Optional[str] = None,
    side_files: Optional[Sequence[PathLike]] = None,
    max_memory: Size = None,
) -> list[tuple[str, str]]:
    """Every problem of the file's model, as ``(path, message)``; empty when valid."""
    return _meshfmt.validate(
        src, name=name, format=format, side_files=_paths(side_files), max_memory=max_memory
    )


def read(
    src: Source,
    *,
    name: Optional[str] = None,
    format: Optional[str] = None,
    skeleton: Optional[PathLike] = None,
    anims: Optional[Sequence[PathLike]] = None,
    mtllib: Optional[PathLike] = None,
    side_files: Optional[Sequence[PathLike]] = None,
    max_memory: Size = None,
) -> Read:
    """A file as meshfmt's model, its companions joined as ``meshfmt convert`` joins
    them: ``skeleton`` (a Vitaboy ``.skel`` for a ``.mesh``, ``.anim`` or ``.apr``;
    for other formats any file with a skeleton, which the model is put on),
    ``anims`` (animation files or patterns such as ``"actor/*.anim"``, whose clips are
    attached), ``mtllib`` (an M3D material library)."""
    got = _meshfmt.read(
        src,
        name=name,
        format=format,
        skeleton=_path(skeleton),
        anims=_paths(anims),
        mtllib=_path(mtllib),
        side_files=_paths(side_files),
        max_memory=max_memory,
    )
    return Read(
        model=_model(got["model"]),
        format=got["format"],
        version=got["version"],
        losses=[Loss(**loss) for loss in got["losses"]],
        warnings=list(got["warnings"]),
    )


def convert(
    src: Source,
    dst: PathLike,
    *,
    name: Optional[str] = None,
    format: Optional[str] = None,
    to: Optional[str] = None,
    version: Optional[str] = None,
    quality: Optional[str] = None,
    compression: Optional[int] = None,
    embed: bool = False,
    anims: Optional[Sequence[PathLike]] = None,
    skeleton: Optional[PathLike] = None,
    anims_dir: Optional[PathLike] = None,
    mtllib: Optional[PathLike] = None,
    side_files: Optional[Sequence[PathLike]] = None,
    strict: bool = False,
    force: bool = False,
    max_memory: Size = None,
) -> Report:
    """``meshfmt convert SRC DST``: writes ``dst`` (and its side files, and with
    ``anims_dir`` one animation file per clip) all or nothing, and returns the report.
    ``to`` names the output format when ``dst``'s extension does not; ``version``,
    ``quality`` and ``compression`` choose how it is written. With ``strict``, any loss
    or warning raises :class:`FormatError` and nothing is written; a file beside the
    output that exists raises ``FileExistsError`` unless ``force``."""
    text = _meshfmt.convert_json(
        src,
        os.fspath(dst),
        name=name,
        format=format,
        to=to,
        version=version,
        quality=quality,
        compression=compression,
        embed=embed,
        anims=_paths(anims),
        skeleton=_path(skeleton),
        anims_dir=_path(anims_dir),
        mtllib=_path(mtllib),
        side_files=_paths(side_files),
        strict=strict,
        force=force,
        max_memory=max_memory,
    )
    r = json.loads(text)
    return Report(
        input=r["input"],
        output=r["output"],
        written=r["written"],
        files=list(r["files"]),
        losses=[_loss(loss) for loss in r["losses"]],
        warnings=list(r["warnings"]),
    )


def _path(p: Optional[PathLike]) -> Optional[str]:
    return None if p is None else os.fspath(p)


def _paths(ps: Optional[Sequence[PathLike]]) -> Optional[list[str]]:
    if ps is None:
        return None
    if isinstance(ps, (str, bytes)) or hasattr(ps, "__fspath__"):
        raise TypeError("expected a list of paths, not one path")
    return [os.fspath(p) for p in ps]


def _loss(d: dict[str, Any]) -> Loss:
    return Loss(
        feature=d["feature"],
        kind=d["kind"],
        bound=d.get("bound"),
        path=d["path"],
        reason=d["reason"],
    )


def _track(d: dict[str, Any]) -> Track:
    return Track(times=d["times"], values=d["values"], interpolation=d["interpolation"])


def _model(d: dict[str, Any]) -> Model:
    return Model(
        name=d["name"],
        coordinate_system=tuple(d["coordinate_system"]),
        surfaces=[
            Surface(
                **{k: v for k, v in s.items() if k != "morph_targets"},
                morph_targets=[MorphTarget(**m) for m in s["morph_targets"]],
            )
            for s in d["surfaces"]
        ],
        bones=[
            Bone(
                name=b["name"],
                parent=b["parent"],
                translation=tuple(b["translation"]),
                rotation=tuple(b["rotation"]),
                scale=tuple(b["scale"]),
                inverse_bind=b["inverse_bind"],
            )
            for b in d["bones"]
        ],
        clips=[
            Clip(
                name=c["name"],
                channels=[
                    Channel(
                        bone=ch["bone"],
                        translation=_track(ch["translation"]),
                        rotation=_track(ch["rotation"]),
                        scale=_track(ch["scale"]),
                    )
                    for ch in c["channels"]
                ],
                duration=c["duration"],
                events=[ClipEvent(time=t, bone=b, props=[tuple(p) for p in props]) for t, b, props in c["events"]],
            )
            for c in d["clips"]
        ],
        materials=[
            Material(
                name=m["name"],
                base_color=tuple(m["base_color"]),
                metallic=m["metallic"],
                roughness=m["roughness"],
                emissive=tuple(m["emissive"]),
                textures=[tuple(t) for t in m["textures"]],
            )
            for m in d["materials"]
        ],
        textures=[Texture(**t) for t in d["textures"]],
    )
