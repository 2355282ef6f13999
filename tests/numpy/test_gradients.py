"""First derivatives of ``symgrad.numpy`` and the ``ops`` names added with it: symgrad's against
central differences of the NumPy reference in float64, and against MindSpore 2.10's where it is
installed (with the values, same structure, dtypes, shapes and numbers).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import ops
from tests.numpy.helpers import IDX, P, X, Y, close_to_numpy, library, needs_mindspore, same


# ----- derivatives: name -> (function of a library and tensors, NumPy reference, inputs) -----
def _unary_case(name: str, reference, x=X):
    return (lambda L, t: getattr(L.np, name)(t)), reference, (x,)


def _binary_case(name: str, reference, x=X, y=Y):
    return (lambda L, a, b: getattr(L.np, name)(a, b)), reference, (x, y)


GRADS = {
    **{f"mnp.{n}": _unary_case(n, f) for n, f in {
        "sin": np.sin, "cos": np.cos, "tan": np.tan, "tanh": np.tanh, "sinh": np.sinh, "cosh": np.cosh,
        "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "square": np.square, "abs": np.abs,
        "absolute": np.abs, "negative": np.negative, "positive": np.positive, "arctan": np.arctan,
        "deg2rad": np.deg2rad, "radians": np.radians, "rad2deg": np.rad2deg, "reciprocal": np.reciprocal,
    }.items()},
    **{f"mnp.{n}": _unary_case(n, f, P) for n, f in {
        "log": np.log, "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt,
        "arcsin": np.arcsin, "arccos": np.arccos, "arctanh": np.arctanh,
    }.items()},
    "mnp.arcsinh": _unary_case("arcsinh", np.arcsinh, Y * 3),
    "mnp.arccosh": _unary_case("arccosh", np.arccosh, 1 + P * 2),
    "ops.asinh": (lambda L, a: L.ops.asinh(a) + L.ops.Asinh()(a * 2), lambda a: np.arcsinh(a) + np.arcsinh(2 * a), (X,)),
    "ops.acosh": (lambda L, a: L.ops.arccosh(a) + L.ops.Acosh()(a * 2), lambda a: np.arccosh(a) + np.arccosh(2 * a), (1 + P,)),
    **{f"mnp.{n}": _binary_case(n, f) for n, f in {
        "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "divide": np.divide,
        "true_divide": np.true_divide, "maximum": np.maximum, "minimum": np.minimum, "arctan2": np.arctan2,
        "hypot": np.hypot,
    }.items()},
    "mnp.power": (lambda L, a, b: L.np.power(a, b), np.power, (P, Y)),
    "mnp.power_number": (lambda L, a: L.np.power(a, 3), lambda a: a**3, (X,)),
    "mnp.clip": (lambda L, a: L.np.clip(a, -0.45, 0.65), lambda a: np.clip(a, -0.45, 0.65), (X,)),
    "mnp.clip_upper": (lambda L, a: L.np.clip(a, None, 0.5), lambda a: np.clip(a, None, 0.5), (X,)),
    # reductions
    "mnp.sum": (lambda L, a: L.np.sum(a, 1, keepdims=True), lambda a: a.sum(1, keepdims=True), (X,)),
    "mnp.sum_initial": (lambda L, a: L.np.sum(a, initial=2.0), lambda a: a.sum() + 2, (X,)),
    "mnp.mean": (lambda L, a: L.np.mean(a, 0), lambda a: a.mean(0), (X,)),
    "mnp.mean_all": (lambda L, a: L.np.mean(L.np.square(a)), lambda a: (a * a).mean(), (X,)),
    "mnp.amax": (lambda L, a: L.np.amax(a, 1), lambda a: a.max(1), (X,)),
    "mnp.amin": (lambda L, a: L.np.amin(a), lambda a: a.min(), (X,)),
    "mnp.max": (lambda L, a: L.np.max(a, axis=0, keepdims=True), lambda a: a.max(0, keepdims=True), (X,)),
    "mnp.min": (lambda L, a: L.np.min(a, 1), lambda a: a.min(1), (X,)),
    "mnp.ptp": (lambda L, a: L.np.ptp(a, 1), lambda a: np.ptp(a, 1), (X,)),
    "mnp.var": (lambda L, a: L.np.var(a, 1), lambda a: a.var(1), (X,)),
    "mnp.std": (lambda L, a: L.np.std(a, 0, ddof=1), lambda a: a.std(0, ddof=1), (X,)),
    "mnp.cumsum": (lambda L, a: L.np.cumsum(a, 1), lambda a: a.cumsum(1), (X,)),
    "mnp.cumsum_flat": (lambda L, a: L.np.cumsum(a), lambda a: a.cumsum(), (X,)),
    "mnp.norm": (lambda L, a: L.np.norm(a), np.linalg.norm, (X,)),
    "mnp.norm_axis": (lambda L, a: L.np.norm(a, axis=1, keepdims=True), lambda a: np.linalg.norm(a, axis=1, keepdims=True), (X,)),
    # shapes
    "mnp.reshape": (lambda L, a: L.np.reshape(a, (3, -1)) * L.np.arange(2.0), lambda a: a.reshape(3, -1) * np.arange(2), (X,)),
    "mnp.ravel": (lambda L, a: L.np.ravel(a), np.ravel, (X,)),
    "mnp.transpose": (lambda L, a: L.np.transpose(a), np.transpose, (X,)),
    "mnp.swapaxes": (lambda L, a: L.np.swapaxes(a, 0, 1), lambda a: np.swapaxes(a, 0, 1), (X,)),
    "mnp.moveaxis": (lambda L, a: L.np.moveaxis(L.np.expand_dims(a, 0), 0, -1), lambda a: np.moveaxis(a[None], 0, -1), (X,)),
    "mnp.expand_dims": (lambda L, a: L.np.expand_dims(a, (0, 3)), lambda a: np.expand_dims(a, (0, 3)), (X,)),
    "mnp.squeeze": (lambda L, a: L.np.squeeze(L.np.reshape(a, (1, 2, 1, 3))), lambda a: a, (X,)),
    "mnp.concatenate": (lambda L, a, b: L.np.concatenate((a, b), 1), lambda a, b: np.concatenate((a, b), 1), (X, Y)),
    "mnp.concatenate_none": (lambda L, a, b: L.np.concatenate((a, b[0]), axis=None), lambda a, b: np.concatenate((a, b[0]), axis=None), (X, Y)),
    "mnp.stack": (lambda L, a, b: L.np.stack((a, b), 2), lambda a, b: np.stack((a, b), 2), (X, Y)),
    "mnp.hstack": (lambda L, a, b: L.np.hstack((a, b)), lambda a, b: np.hstack((a, b)), (X, Y)),
    "mnp.vstack": (lambda L, a, b: L.np.vstack((a[0], b)), lambda a, b: np.vstack((a[0], b)), (X, Y)),
    "mnp.column_stack": (lambda L, a, b: L.np.column_stack((a[0], b.T)), lambda a, b: np.column_stack((a[0], b.T)), (X, Y)),
    "mnp.split_pieces": (lambda L, a: L.np.split(a, [1], axis=1)[1] * 2, lambda a: np.split(a, [1], axis=1)[1] * 2, (X,)),
    "mnp.tile": (lambda L, a: L.np.tile(a, (2, 1)), lambda a: np.tile(a, (2, 1)), (X,)),
    "mnp.broadcast_to": (lambda L, a: L.np.broadcast_to(a[0], (4, 3)), lambda a: np.broadcast_to(a[0], (4, 3)), (X,)),
    "mnp.broadcast_arrays": (lambda L, a, b: L.np.broadcast_arrays(a[0:1], b)[0] * 2, lambda a, b: np.broadcast_arrays(a[0:1], b)[0] * 2, (X, Y)),
    "mnp.flip": (lambda L, a: L.np.flip(a), np.flip, (X,)),
    "mnp.fliplr": (lambda L, a: L.np.fliplr(a), np.fliplr, (X,)),
    "mnp.flipud": (lambda L, a: L.np.flipud(a), np.flipud, (X,)),
    "mnp.atleast_3d": (lambda L, a: L.np.atleast_3d(a), np.atleast_3d, (X,)),
    "mnp.where": (lambda L, a, b: L.np.where(a > b, a * b, b), lambda a, b: np.where(a > b, a * b, b), (X, Y)),
    "mnp.meshgrid_grad": (lambda L, a, b: L.np.meshgrid(a[0], b[1])[0] * L.np.meshgrid(a[0], b[1])[1],
                          lambda a, b: np.meshgrid(a[0], b[1])[0] * np.meshgrid(a[0], b[1])[1], (X, Y)),  # fmt: skip
    "mnp.tril": (lambda L, a: L.np.tril(a, 1), lambda a: np.tril(a, 1), (X,)),
    "mnp.triu": (lambda L, a: L.np.triu(a), np.triu, (X,)),
    # products
    "mnp.matmul": (lambda L, a, b: L.np.matmul(a, b.T), lambda a, b: a @ b.T, (X, Y)),
    "mnp.dot": (lambda L, a, b: L.np.dot(a, b.T), lambda a, b: np.dot(a, b.T), (X, Y)),
    "mnp.dot_vector": (lambda L, a, b: L.np.dot(a, b[0]), lambda a, b: np.dot(a, b[0]), (X, Y)),
    "mnp.outer": (lambda L, a, b: L.np.outer(a[0], b[1]), lambda a, b: np.outer(a[0], b[1]), (X, Y)),
    "mnp.inner": (lambda L, a, b: L.np.inner(a, b), np.inner, (X, Y)),
    "mnp.tensordot": (lambda L, a, b: L.np.tensordot(a, b, ((1,), (1,))), lambda a, b: np.tensordot(a, b, ((1,), (1,))), (X, Y)),
    "mnp.tensordot_all": (lambda L, a, b: L.np.tensordot(a, b), lambda a, b: np.tensordot(a, b), (X, Y)),
    "mnp.trace": (lambda L, a: L.np.trace(a), np.trace, (X,)),
    "mnp.trace_offset": (lambda L, a: L.np.trace(a, 1), lambda a: np.trace(a, 1), (X,)),
    # ops added with symgrad.numpy
    "ops.L2Normalize": (lambda L, a: L.ops.L2Normalize()(a), lambda a: a / np.sqrt((a * a).sum(0, keepdims=True)), (X,)),
    "ops.L2Normalize_axis": (lambda L, a: L.ops.L2Normalize(axis=-1, epsilon=1e-6)(a),
                             lambda a: a / np.sqrt((a * a).sum(-1, keepdims=True)), (X,)),  # fmt: skip
    "ops.gather_d": (lambda L, a: L.ops.gather_d(a, 1, L.T(IDX)), lambda a: np.take_along_axis(a, IDX, 1), (X,)),
    "ops.GatherD": (lambda L, a: L.ops.GatherD()(a, 0, L.T(IDX[:1] // 2)), lambda a: np.take_along_axis(a[:, :2], IDX[:1] // 2, 0), (X,)),
    "ops.gather_elements": (lambda L, a: L.ops.gather_elements(a, 1, L.T(IDX)), lambda a: np.take_along_axis(a, IDX, 1), (X,)),
    "ops.ArgMaxWithValue": (lambda L, a: L.ops.ArgMaxWithValue(1)(a)[1], lambda a: a.max(1), (X,)),
    "ops.ArgMinWithValue": (lambda L, a: L.ops.ArgMinWithValue(0, True)(a)[1], lambda a: a.min(0, keepdims=True), (X,)),
    "ops.max": (lambda L, a: L.ops.max(a, 1)[0], lambda a: a.max(1), (X,)),
    "ops.min": (lambda L, a: L.ops.min(a)[0], lambda a: a.min(), (X,)),
    "ops.amax": (lambda L, a: L.ops.amax(a, 0), lambda a: a.max(0), (X,)),
    "ops.amin": (lambda L, a: L.ops.amin(a, 1, True), lambda a: a.min(1, keepdims=True), (X,)),
    "ops.cat": (lambda L, a, b: L.ops.cat((a, b), 1), lambda a, b: np.concatenate((a, b), 1), (X, Y)),
    "ops.unsqueeze": (lambda L, a: L.ops.unsqueeze(a, 1), lambda a: a[:, None], (X,)),
    "ops.flatten": (lambda L, a: L.ops.flatten(L.ops.reshape(a, (1, 2, 3))), lambda a: a.reshape(1, 6), (X,)),
    "ops.Flatten": (lambda L, a: L.ops.Flatten()(L.ops.reshape(a, (2, 3, 1))), lambda a: a, (X,)),
    "ops.permute": (lambda L, a: L.ops.permute(a, (1, 0)), np.transpose, (X,)),
    "ops.swapaxes": (lambda L, a: L.ops.swapaxes(a, 0, 1), np.transpose, (X,)),
    "ops.moveaxis": (lambda L, a: L.ops.moveaxis(a, 0, 1), np.transpose, (X,)),
    "ops.movedim": (lambda L, a: L.ops.movedim(a, 1, 0), np.transpose, (X,)),
    "ops.ravel": (lambda L, a: L.ops.ravel(a), np.ravel, (X,)),
    "ops.hstack": (lambda L, a, b: L.ops.hstack((a, b)), lambda a, b: np.hstack((a, b)), (X, Y)),
    "ops.vstack": (lambda L, a, b: L.ops.vstack((a[0], b[1])), lambda a, b: np.vstack((a[0], b[1])), (X, Y)),
    "ops.flip": (lambda L, a: L.ops.flip(a, (0, 1)), np.flip, (X,)),
    "ops.fliplr": (lambda L, a: L.ops.fliplr(a), np.fliplr, (X,)),
    "ops.flipud": (lambda L, a: L.ops.flipud(a), np.flipud, (X,)),
    "ops.tril": (lambda L, a: L.ops.tril(a, -1), lambda a: np.tril(a, -1), (X,)),
    "ops.triu": (lambda L, a: L.ops.triu(a, 1), lambda a: np.triu(a, 1), (X,)),
    "ops.Tril": (lambda L, a: L.ops.Tril()(a), np.tril, (X,)),
    "ops.Triu": (lambda L, a: L.ops.Triu(-1)(a), lambda a: np.triu(a, -1), (X,)),
    "ops.meshgrid": (lambda L, a, b: L.ops.meshgrid(a[0], b[1])[1] * L.ops.meshgrid(a[0], b[1], indexing="ij")[0].T,
                     lambda a, b: np.meshgrid(a[0], b[1])[1] * np.meshgrid(a[0], b[1], indexing="ij")[0].T, (X, Y)),  # fmt: skip
    "ops.var": (lambda L, a: L.ops.var(a, 1, 1), lambda a: a.var(1, ddof=1), (X,)),
    "ops.std": (lambda L, a: L.ops.std(a), lambda a: a.std(), (X,)),
    "ops.trace": (lambda L, a: L.ops.trace(a), np.trace, (X,)),
    "ops.reciprocal": (lambda L, a: L.ops.reciprocal(a), np.reciprocal, (X,)),
    "ops.Reciprocal": (lambda L, a: L.ops.Reciprocal()(a), np.reciprocal, (X,)),
    "ops.rsqrt": (lambda L, a: L.ops.rsqrt(a), lambda a: 1 / np.sqrt(a), (P,)),
    "ops.Rsqrt": (lambda L, a: L.ops.Rsqrt()(a), lambda a: 1 / np.sqrt(a), (P,)),
    "ops.log2": (lambda L, a: L.ops.log2(a), np.log2, (P,)),
    "ops.log10": (lambda L, a: L.ops.log10(a), np.log10, (P,)),
    "ops.exp2": (lambda L, a: L.ops.exp2(a), np.exp2, (X,)),
    "ops.hypot": (lambda L, a, b: L.ops.hypot(a, b), np.hypot, (X, Y)),
    "ops.deg2rad": (lambda L, a: L.ops.deg2rad(a), np.deg2rad, (X,)),
    "ops.rad2deg": (lambda L, a: L.ops.rad2deg(a), np.rad2deg, (X,)),
    "ops.clip": (lambda L, a: L.ops.clip(a, -0.45, 0.65), lambda a: np.clip(a, -0.45, 0.65), (X,)),
    "ops.dot": (lambda L, a, b: L.ops.dot(a, b.T), lambda a, b: a @ b.T, (X, Y)),
    "ops.inner": (lambda L, a, b: L.ops.inner(a, b), np.inner, (X, Y)),
    "ops.outer": (lambda L, a, b: L.ops.outer(a[0], b[1]), lambda a, b: np.outer(a[0], b[1]), (X, Y)),
    "ops.tensor_dot": (lambda L, a, b: L.ops.tensor_dot(a, b, ((0, 1), (0, 1))), lambda a, b: np.tensordot(a, b), (X, Y)),
}  # fmt: skip


def _weighted(fn, L, weights):
    """``sum(fn(...) * weights)`` with the weights cut to the output's size, so each entry counts differently."""

    def total(*ts):
        out = fn(L, *ts)
        w = weights.ravel()[: int(np.prod(out.shape))].reshape(out.shape) if out.ndim else weights.ravel()[0]
        return (out * L.T(np.asarray(w, out.asnumpy().dtype))).sum()

    return total


def _finite_differences(reference, inputs, weights, h=1e-6) -> list[np.ndarray]:
    def total(*xs):
        out = np.asarray(reference(*xs), np.float64)
        w = weights.ravel()[: out.size].reshape(out.shape) if out.ndim else weights.ravel()[0]
        return float((out * w).sum())

    grads = []
    xs = [x.astype(np.float64) for x in inputs]
    for k, x in enumerate(xs):
        g = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            up, down = [v.copy() for v in xs], [v.copy() for v in xs]
            up[k][i] += h
            down[k][i] -= h
            g[i] = (total(*up) - total(*down)) / (2 * h)
        grads.append(g)
    return grads


WEIGHTS = np.array([1.0, -2.0, 0.5, 0.25, 3.0, -1.5, 0.75, 2.5, -0.5, 1.25, -3.0, 0.4, 1.5, -0.8, 2.2, 0.6])
WEIGHTS = np.concatenate([WEIGHTS] * 4)


@pytest.mark.parametrize("name", sorted(GRADS))
def test_value_and_gradient_match_numpy(name):
    fn, reference, inputs = GRADS[name]
    L = library("symgrad")
    close_to_numpy(fn(L, *(L.T(x) for x in inputs)), reference(*inputs), rtol=2e-6, atol=1e-6)
    in64 = [symgrad.Tensor(x.astype(np.float64)) for x in inputs]
    grads = ops.grad(_weighted(fn, L, WEIGHTS), tuple(range(len(inputs))))(*in64)
    grads = grads if isinstance(grads, tuple) else (grads,)
    for g, fd in zip(grads, _finite_differences(reference, inputs, WEIGHTS)):
        np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-6, atol=1e-7, err_msg=name)


# MindSpore 2.10 itself fails to differentiate these ("The int value(-1) is less than 0" in its
# flip's gradient): their values are compared, their gradients only against NumPy
MINDSPORE_CANNOT_DIFFERENTIATE = {"mnp.flip", "mnp.fliplr", "mnp.flipud"}


@needs_mindspore
@pytest.mark.parametrize("name", sorted(GRADS))
def test_value_and_gradient_match_mindspore(name, ms):
    fn, _, inputs = GRADS[name]
    results = []
    for L in (library("symgrad"), ms):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ts = [L.T(x) for x in inputs]
            positions = 0 if len(ts) == 1 else tuple(range(len(ts)))  # (0,): MindSpore returns no tuple
            total = _weighted(fn, L, WEIGHTS.astype(np.float32))
            grads = None if name in MINDSPORE_CANNOT_DIFFERENTIATE else L.ops.grad(total, positions)(*ts)
            results.append((fn(L, *ts), grads))
    same(*results, rtol=2e-6, atol=2e-6)
