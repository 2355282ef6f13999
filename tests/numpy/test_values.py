"""Values of ``symgrad.numpy`` (MindSpore's ``mindspore.numpy``) and the ``ops`` names added with it.

Every case runs on symgrad against a NumPy reference (always), and on real MindSpore 2.10 where it
is installed (same structure, dtypes, shapes and numbers).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from tests.numpy.helpers import IDX, V, X, Y, close_to_numpy, library, needs_mindspore, same


# ----- values: name -> (case on a library, NumPy reference) -----
def _onehot(index, depth, axis=-1):
    return np.moveaxis((np.expand_dims(index, -1) == np.arange(depth)).astype(np.float32), -1, axis)


VALUES = {
    # mindspore.numpy creation
    "mnp.linspace": (lambda L: L.np.linspace(-1.3, 2.9, 11), np.linspace(-1.3, 2.9, 11)),
    "mnp.linspace_default_num": (lambda L: L.np.linspace(0, 1), np.linspace(0, 1)),
    "mnp.linspace_retstep": (
        lambda L: L.np.linspace(0.0, 1.0, 5, endpoint=False, retstep=True),
        np.linspace(0.0, 1.0, 5, endpoint=False, retstep=True),
    ),
    "mnp.linspace_int_dtype": (lambda L: L.np.linspace(0, 10, 5, dtype=L.ms.int32), [0, 2, 5, 7, 10]),
    "mnp.linspace_tensor_bounds": (
        lambda L: L.np.linspace(L.T(V[:2]), L.T(V[1:]), 4, axis=1),
        np.linspace(V[:2], V[1:], 4, axis=1),
    ),
    "mnp.logspace": (lambda L: L.np.logspace(0, 2, 3), np.logspace(0, 2, 3)),
    "mnp.arange": (lambda L: L.np.arange(5), np.arange(5)),
    "mnp.arange_step": (lambda L: L.np.arange(5, 0, -2), np.arange(5, 0, -2)),
    "mnp.arange_float": (lambda L: L.np.arange(0.5, 3.3, 0.7), np.arange(0.5, 3.3, 0.7)),
    "mnp.arange_dtype": (lambda L: L.np.arange(4, dtype=L.ms.float64), np.arange(4.0)),
    "mnp.zeros": (lambda L: L.np.zeros((2, 3)), np.zeros((2, 3))),
    "mnp.zeros_int": (lambda L: L.np.zeros(3, L.ms.int32), np.zeros(3)),
    "mnp.ones": (lambda L: L.np.ones([2, 1]), np.ones((2, 1))),
    "mnp.empty": (lambda L: L.np.empty((2,)).shape, (2,)),
    "mnp.full_int": (lambda L: L.np.full((2, 2), 3), np.full((2, 2), 3)),
    "mnp.full_float_row": (lambda L: L.np.full((2, 2), [1.5, 2.0]), np.full((2, 2), [1.5, 2.0])),
    "mnp.full_bool": (lambda L: L.np.full((2,), True), np.full((2,), True)),
    "mnp.zeros_like": (lambda L: L.np.zeros_like(L.T(X)), np.zeros_like(X)),
    "mnp.ones_like_dtype": (lambda L: L.np.ones_like(L.T(X), L.ms.int32), np.ones((2, 3))),
    "mnp.full_like": (lambda L: L.np.full_like(L.T(X), 7), np.full_like(X, 7)),
    "mnp.empty_like": (lambda L: L.np.empty_like(L.T(X)).shape, (2, 3)),
    "mnp.eye": (lambda L: L.np.eye(3, 4, 1), np.eye(3, 4, 1)),
    "mnp.eye_below": (lambda L: L.np.eye(3, k=-1, dtype=L.ms.int32), np.eye(3, k=-1)),
    "mnp.identity": (lambda L: L.np.identity(3), np.identity(3)),
    "mnp.array": (
        lambda L: (L.np.array([1, 2]), L.np.array([1.0, 2.0]), L.np.asarray([True])),
        ([1, 2], [1, 2], [1]),
    ),
    "mnp.array_ndmin": (lambda L: L.np.array([1.5, 2.5], ndmin=3), [[[1.5, 2.5]]]),
    "mnp.constants": (
        lambda L: (L.np.pi, L.np.inf, L.np.NINF, L.np.PINF),
        (math.pi, math.inf, -math.inf, math.inf),
    ),
    "mnp.meshgrid": (
        lambda L: L.np.meshgrid(L.T(V), L.T(V[:2])),
        np.meshgrid(V, V[:2]),
    ),
    "mnp.meshgrid_ij": (
        lambda L: L.np.meshgrid(L.T(V), L.T(V[:2]), indexing="ij"),
        np.meshgrid(V, V[:2], indexing="ij"),
    ),
    "mnp.meshgrid_sparse": (
        lambda L: L.np.meshgrid(L.T(V), L.T(V[:2]), sparse=True),
        np.meshgrid(V, V[:2], sparse=True),
    ),
    # mindspore.numpy logic and integer results
    "mnp.comparisons": (
        lambda L: tuple(
            getattr(L.np, f)(L.T(X), L.T(Y)) for f in ("equal", "less", "greater_equal", "not_equal")
        ),
        (X == Y, X < Y, X >= Y, X != Y),
    ),
    "mnp.logical": (
        lambda L: (
            L.np.logical_and(L.T(X) > 0, L.T(Y) > 0),
            L.np.logical_or(L.T(X) > 0, L.T(Y) > 0),
            L.np.logical_not(L.T(X) > 0),
            L.np.logical_xor(L.T(X) > 0, L.T(Y) > 0),
        ),
        (np.logical_and(X > 0, Y > 0), np.logical_or(X > 0, Y > 0), X <= 0, np.logical_xor(X > 0, Y > 0)),
    ),  # fmt: skip
    "mnp.isnan_isinf_isfinite": (
        lambda L: tuple(
            getattr(L.np, f)(L.T(np.array([1.0, np.nan, np.inf, -np.inf], np.float32)))
            for f in ("isnan", "isinf", "isfinite")
        ),
        ([0, 1, 0, 0], [0, 0, 1, 1], [1, 0, 0, 0]),
    ),  # fmt: skip
    "mnp.argmax_argmin": (
        lambda L: (L.np.argmax(L.T(X)), L.np.argmax(L.T(X), 1), L.np.argmin(L.T(X), 0)),
        (np.argmax(X), np.argmax(X, 1), np.argmin(X, 0)),
    ),
    "mnp.sum_int": (lambda L: L.np.sum(L.T(IDX), 0), IDX.sum(0)),
    "mnp.mean_int": (lambda L: L.np.mean(L.T(np.array([1, 2, 4], np.int32))), 2),
    "mnp.size": (lambda L: (L.np.size(L.T(X)), L.np.size(L.T(X), 1)), (6, 3)),
    "mnp.split": (lambda L: L.np.split(L.T(X), 3, axis=1), np.split(X, 3, axis=1)),
    "mnp.split_at": (
        lambda L: L.np.split(L.T(np.arange(6, dtype=np.float32)), [1, 4]),
        np.split(np.arange(6), [1, 4]),
    ),
    "mnp.hsplit_vsplit": (
        lambda L: (L.np.hsplit(L.T(X), 3), L.np.vsplit(L.T(X), 2)),
        (np.hsplit(X, 3), np.vsplit(X, 2)),
    ),
    "mnp.divide_int": (lambda L: L.np.divide(L.T(IDX), 2), IDX / 2),
    "mnp.divide_float64": (lambda L: L.np.divide(L.T(X.astype(np.float64)), 3.0), X / 3),
    "mnp.where": (lambda L: L.np.where(L.T(X) > 0, L.T(X), 0.0), np.where(X > 0, X, 0)),
    "mnp.norm_variants": (
        lambda L: (
            L.np.norm(L.T(X)),
            L.np.norm(L.T(X), axis=1),
            L.np.norm(L.T(X), 1),
            L.np.norm(L.T(X), np.inf),
            L.np.norm(L.T(X), "fro"),
            L.np.norm(L.T(V), np.inf),
            L.np.norm(L.T(V), 1),
        ),
        (
            np.linalg.norm(X),
            np.linalg.norm(X, axis=1),
            np.linalg.norm(X, 1),
            np.linalg.norm(X, np.inf),
            np.linalg.norm(X, "fro"),
            np.linalg.norm(V, np.inf),
            np.linalg.norm(V, 1),
        ),
    ),  # fmt: skip
    # ops: creation
    "ops.zeros": (
        lambda L: (L.ops.zeros(3), L.ops.zeros((2, 3), L.ms.int32), L.ops.Zeros()((2,), L.ms.float32)),
        (np.zeros(3), np.zeros((2, 3)), np.zeros(2)),
    ),  # fmt: skip
    "ops.ones": (
        lambda L: (L.ops.ones((2,)), L.ops.ones((2, 3), L.ms.int32), L.ops.Ones()((2,), L.ms.float32)),
        (np.ones(2), np.ones((2, 3)), np.ones(2)),
    ),  # fmt: skip
    "ops.full": (
        lambda L: (L.ops.full((2,), 3), L.ops.full((2,), 1.2), L.ops.full((2,), 1.5, dtype=L.ms.float32)),
        ([3, 3], [1, 1], [1.5, 1.5]),
    ),
    "ops.full_like": (
        lambda L: (L.ops.full_like(L.T(X), 2), L.ops.full_like(L.T(IDX), 2.7)),
        (np.full((2, 3), 2.0), np.full((2, 2), 2)),
    ),
    "ops.fill": (
        lambda L: (L.ops.fill(L.ms.float32, (2, 2), 1), L.ops.Fill()(L.ms.int32, (2,), 3)),
        (np.ones((2, 2)), [3, 3]),
    ),
    "ops.eye": (
        lambda L: (L.ops.eye(2), L.ops.eye(2, 3, L.ms.int32), L.ops.Eye()(2, 3, L.ms.float32)),
        (np.eye(2), np.eye(2, 3), np.eye(2, 3)),
    ),
    "ops.linspace": (
        lambda L: (
            L.ops.linspace(-1.3, 2.9, 11),
            L.ops.LinSpace()(L.T(0.0, L.ms.float32), L.T(1.0, L.ms.float32), 5),
        ),
        (np.linspace(-1.3, 2.9, 11), np.linspace(0, 1, 5)),
    ),
    "ops.arange": (
        lambda L: (
            L.ops.arange(5),
            L.ops.arange(1, 5, 2),
            L.ops.arange(0, 1, 0.1),
            L.ops.arange(5, 0, -2),
            L.ops.arange(3, dtype=L.ms.float32),
        ),
        (np.arange(5), np.arange(1, 5, 2), np.arange(0, 1, 0.1), np.arange(5, 0, -2), np.arange(3)),
    ),  # fmt: skip
    "ops.Range": (
        lambda L: (
            L.ops.Range()(L.T(0.5, L.ms.float32), L.T(3.3, L.ms.float32), L.T(0.7, L.ms.float32)),
            L.ops.Range()(L.T(0, L.ms.int32), L.T(5, L.ms.int32), L.T(2, L.ms.int32)),
        ),
        (np.arange(0.5, 3.3, 0.7), np.arange(0, 5, 2)),
    ),  # fmt: skip
    "ops.one_hot": (
        lambda L: (
            L.ops.one_hot(L.T(IDX[0]), 3, L.T(1.0, L.ms.float32), L.T(0.0, L.ms.float32)),
            L.ops.one_hot(L.T(IDX), 3),
            L.ops.one_hot(L.T(IDX[0]), 3, 1.0, 0.0, 0),
            L.ops.OneHot()(L.T(IDX[1]), 3, L.T(5.0, L.ms.float32), L.T(-1.0, L.ms.float32)),
        ),
        (_onehot(IDX[0], 3), _onehot(IDX, 3), _onehot(IDX[0], 3, 0), _onehot(IDX[1], 3) * 6 - 1),
    ),  # fmt: skip
    "ops.scalar_to_tensor": (
        lambda L: (
            L.ops.scalar_to_tensor(3),
            L.ops.scalar_to_tensor(3, L.ms.int32),
            L.ops.ScalarToTensor()(2.5),
        ),
        (3, 3, 2.5),
    ),
    # ops: inspection
    "ops.dtype": (lambda L: (L.ops.dtype(L.T(X)), L.ops.DType()(L.T(IDX))), None),
    "ops.shape_size_rank": (
        lambda L: (
            L.ops.shape(L.T(X)),
            L.ops.size(L.T(X)),
            L.ops.rank(L.T(X)),
            L.ops.Rank()(L.T(X)),
            L.ops.Size()(L.T(X)),
        ),
        ((2, 3), 6, 2, 2, 6),
    ),  # fmt: skip
    "ops.depend": (lambda L: (L.ops.depend(L.T(X), L.T(Y)), L.ops.Depend()(L.T(Y), L.T(X))), (X, Y)),
    # ops: indices and tests
    "ops.argmax_argmin": (
        lambda L: (L.ops.argmax(L.T(X)), L.ops.argmax(L.T(X), 1, True), L.ops.argmin(L.T(X), 1)),
        (np.argmax(X), np.argmax(X, 1)[:, None], np.argmin(X, 1)),
    ),
    "ops.isnan_isinf_isfinite": (
        lambda L: (
            tuple(
                getattr(L.ops, f)(L.T(np.array([1.0, np.nan, -np.inf], np.float32)))
                for f in ("isnan", "isinf", "isfinite")
            )
            + tuple(
                getattr(L.ops, c)()(L.T(np.array([np.inf, 2.0], np.float32)))
                for c in ("IsNan", "IsInf", "IsFinite")
            )
        ),
        ([0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0], [1, 0], [0, 1]),
    ),  # fmt: skip
    "ops.logical": (
        lambda L: (
            L.ops.logical_and(L.T(X), L.T(Y) > 0),
            L.ops.logical_or(L.T(X) > 0, L.T(Y) > 0),
            L.ops.logical_not(L.T(X) > 0),
            L.ops.logical_xor(L.T(X) > 0, L.T(Y) > 0),
            L.ops.LogicalAnd()(L.T(X) > 0, L.T(Y) > 0),
        ),
        (
            Y > 0,
            np.logical_or(X > 0, Y > 0),
            X <= 0,
            np.logical_xor(X > 0, Y > 0),
            np.logical_and(X > 0, Y > 0),
        ),
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", sorted(VALUES))
def test_value_matches_numpy(name):
    case, reference = VALUES[name]
    got = case(library("symgrad"))
    if reference is None:  # dtypes
        assert [str(d) for d in got] == ["Float32", "Int32"]
    else:
        close_to_numpy(got, reference, rtol=1e-6)


@needs_mindspore
@pytest.mark.parametrize("name", sorted(VALUES))
def test_value_matches_mindspore(name, ms):
    case, _ = VALUES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = case(ms)
    same(case(library("symgrad")), expected, rtol=0, atol=0)
