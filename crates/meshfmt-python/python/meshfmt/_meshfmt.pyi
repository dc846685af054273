"""The native half of meshfmt (see meshfmt/__init__.py for the documented API)."""

import os
from typing import Any, Optional, Sequence, Union

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
PathLike = Union[str, "os.PathLike[str]"]

class FormatError(ValueError): ...
class OverBudget(FormatError): ...

def formats() -> list[dict[str, Any]]: ...
def info_json(
    src: Source,
    *,
    name: Optional[str] = ...,
    format: Optional[str] = ...,
    side_files: Optional[Sequence[PathLike]] = ...,
    max_memory: Union[int, str, None] = ...,
) -> tuple[str, list[str]]: ...
def read(
    src: Source,
    *,
    name: Optional[str] = ...,
    format: Optional[str] = ...,
    skeleton: Optional[PathLike] = ...,
    anims: Optional[Sequence[PathLike]] = ...,
    mtllib: Optional[PathLike] = ...,
    side_files: Optional[Sequence[PathLike]] = ...,
    max_memory: Union[int, str, None] = ...,
) -> dict[str, Any]: ...
def validate(
    src: Source,
    *,
    name: Optional[str] = ...,
    format: Optional[str] = ...,
    side_files: Optional[Sequence[PathLike]] = ...,
    max_memory: Union[int, str, None] = ...,
) -> list[tuple[str, str]]: ...
def convert_json(
    src: Source,
    dst: PathLike,
    *,
    name: Optional[str] = ...,
    format: Optional[str] = ...,
    to: Optional[str] = ...,
    version: Optional[str] = ...,
    quality: Optional[str] = ...,
    compression: Optional[int] = ...,
    embed: bool = ...,
    anims: Optional[Sequence[PathLike]] = ...,
    skeleton: Optional[PathLike] = ...,
    anims_dir: Optional[PathLike] = ...,
    mtllib: Optional[PathLike] = ...,
    side_files: Optional[Sequence[PathLike]] = ...,
    strict: bool = ...,
    force: bool = ...,
    max_memory: Union[int, str, None] = ...,
) -> str: ...
