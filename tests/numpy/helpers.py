"""Shared by the ``symgrad.numpy`` tests: the inputs, a case's names from symgrad or MindSpore
(``library``), and comparisons of results with MindSpore's (``same``) and with NumPy's.
"""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import numpy as np
import pytest

import symgrad
import symgrad.numpy as mnp
from symgrad import ops

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None
needs_mindspore = pytest.mark.skipif(
    not HAS_MINDSPORE, reason="MindSpore is not installed (pip install mindspore)"
)

X = np.array([[0.3, -0.5, 0.7], [0.2, 0.9, -0.4]], np.float32)  # a general input
P = np.array([[0.3, 0.55, 0.7], [0.2, 0.9, 0.45]], np.float32)  # inside (0, 1): logs, roots, arcsin
Y = np.array([[1.5, -0.25, 0.6], [-1.1, 0.35, 2.0]], np.float32)
W = np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.5]], np.float32)  # weights of the summed output
V = np.array([0.5, -1.0, 2.0], np.float32)
IDX = np.array([[0, 2], [1, 1]], np.int32)


def library(name: str) -> SimpleNamespace:
    """The names a case uses, from symgrad or from MindSpore."""
    if name == "symgrad":
        return SimpleNamespace(np=mnp, ops=ops, T=symgrad.Tensor, ms=symgrad)
    import mindspore
    import mindspore.numpy

    return SimpleNamespace(np=mindspore.numpy, ops=mindspore.ops, T=mindspore.Tensor, ms=mindspore)


def leaves(value, path="result"):
    """(path, kind, array) of each leaf: tuples/lists keep their kind and length."""
    if isinstance(value, tuple | list):
        yield path, f"{type(value).__name__}[{len(value)}]", None
        for i, item in enumerate(value):
            yield from leaves(item, f"{path}[{i}]")
    elif hasattr(value, "asnumpy"):
        array = value.asnumpy()
        yield path, f"tensor{array.shape}:{array.dtype}", array
    elif isinstance(value, bool | int | float):
        yield path, type(value).__name__, np.asarray(value)
    else:  # a dtype
        yield path, f"dtype:{str(value).lower()}", None


def same(got, expected, rtol=2e-6, atol=1e-6) -> None:
    """The same structure, dtypes, shapes and numbers."""
    got, expected = list(leaves(got)), list(leaves(expected))
    assert [(p, k) for p, k, _ in got] == [(p, k) for p, k, _ in expected]
    for (path, _, g), (_, _, e) in zip(got, expected):
        if e is not None:
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=path)


def close_to_numpy(got, reference, rtol=2e-6, atol=1e-6) -> None:
    """The numbers (and shapes) of ``reference``, a NumPy value or a sequence of them."""
    if isinstance(got, tuple | list):
        assert len(got) == len(reference)
        for g, r in zip(got, reference):
            close_to_numpy(g, r, rtol, atol)
        return
    value = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    assert value.shape == np.shape(reference)
    np.testing.assert_allclose(
        value.astype(np.float64), np.asarray(reference, np.float64), rtol=rtol, atol=atol
    )
