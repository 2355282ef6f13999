"""MindSpore-style dtypes (``symgrad.dtype.float32`` prints as ``Float32``)."""

from __future__ import annotations

import numpy as np


class DType:
    """A tensor element type, backed by a NumPy dtype."""

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return self.np == other.np
        try:
            return self.np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.np)

    @property
    def is_float(self) -> bool:
        return self.np.kind == "f"


float16 = DType("Float16", np.float16)
float32 = DType("Float32", np.float32)
float64 = DType("Float64", np.float64)
int8 = DType("Int8", np.int8)
int16 = DType("Int16", np.int16)
int32 = DType("Int32", np.int32)
int64 = DType("Int64", np.int64)
uint8 = DType("UInt8", np.uint8)
bool_ = DType("Bool", np.bool_)
float_ = float32
half, single, double = float16, float32, float64

# complex numbers are a deliberate difference from MindSpore (README: known differences)
REAL_ONLY = "symgrad differentiates real-valued functions (pass the real and imaginary parts as two tensors)"
COMPLEX_NAMES = ("complex64", "complex128")

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_BY_NUMPY = {d.np: d for d in _ALL}


def to_dtype(value) -> DType:
    """A DType from a DType, NumPy dtype, type or name."""
    if isinstance(value, DType):
        return value
    try:
        return _BY_NUMPY[np.dtype(value)]
    except (TypeError, KeyError):
        names = ", ".join(d.name for d in _ALL)
        raise TypeError(f"unsupported dtype {value!r}; supported: {names}") from None


def dtype_to_nptype(dtype) -> type:
    """MindSpore's helper: the NumPy scalar type of a dtype."""
    return to_dtype(dtype).np.type


def __getattr__(name: str):
    if name in COMPLEX_NAMES:
        raise AttributeError(f"symgrad.dtype has no {name}: complex dtypes are not supported; {REAL_ONLY}")
    raise AttributeError(f"module 'symgrad.dtype' has no attribute {name!r}")
