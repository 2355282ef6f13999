"""Ops built from table rows (softmax, logsumexp, norm, prod, tile, clip, batch matmul, einsum, ...)
and rows with parameters (leaky_relu, elu, select): values against NumPy, gradients against
central finite differences in float64, MindSpore's conventions at kinks, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

import lowering
import symgrad
from symgrad import Tensor, nn, ops
from symgrad.errors import OpError


def central_difference(f, x: np.ndarray, h: float = 1e-6) -> np.ndarray:
    """d sum(f(x)) / dx by central differences, f a NumPy function."""
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (np.sum(f(x + e)) - np.sum(f(x - e))) / (2 * h)
    return g


def np_logsumexp(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    return np.squeeze(m, axis) + np.log(np.sum(np.exp(x - m), axis=axis))


def np_softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


WEIGHTS = np.random.default_rng(7).normal(size=(3, 4))
# name -> (symgrad function, NumPy reference), both of one (3, 4) float64 array
CASES = {
    "softmax": (lambda t: ops.softmax(t, 1) * WEIGHTS, lambda a: np_softmax(a, 1) * WEIGHTS),
    "softmax_axis0": (lambda t: ops.Softmax(0)(t) * WEIGHTS, lambda a: np_softmax(a, 0) * WEIGHTS),
    "log_softmax": (lambda t: ops.log_softmax(t) * WEIGHTS, lambda a: np.log(np_softmax(a)) * WEIGHTS),
    "logsumexp": (
        lambda t: ops.logsumexp(t, 1) * WEIGHTS[:, 0],
        lambda a: np_logsumexp(a, 1) * WEIGHTS[:, 0],
    ),
    "norm": (lambda t: ops.norm(t), lambda a: np.sqrt(np.sum(a * a))),
    "norm_p3_dim": (lambda t: ops.norm(t, 3, dim=0), lambda a: np.sum(np.abs(a) ** 3, axis=0) ** (1 / 3)),
    "prod": (lambda t: ops.prod(t, 1), lambda a: np.prod(a, axis=1)),
    "ReduceProd_keep": (
        lambda t: ops.ReduceProd(True)(t, 0) * WEIGHTS,
        lambda a: np.prod(a, 0, keepdims=True) * WEIGHTS,
    ),
    "reduce_min": (lambda t: ops.ReduceMin()(t, 1) * WEIGHTS[:, 1], lambda a: np.min(a, 1) * WEIGHTS[:, 1]),
    "tile": (lambda t: ops.tile(t, (2, 1, 3)) ** 2, lambda a: np.tile(a, (2, 1, 3)) ** 2),
    "batch_matmul": (
        lambda t: (
            ops.BatchMatMul(transpose_b=True)(t.reshape(1, 3, 4), Tensor(WEIGHTS.reshape(1, 3, 4) * 0.5)) ** 2
        ),
        lambda a: (a.reshape(1, 3, 4) @ (WEIGHTS.reshape(1, 3, 4) * 0.5).transpose(0, 2, 1)) ** 2,
    ),
    "einsum_matmul": (
        lambda t: ops.einsum("ij,kj->ik", t, Tensor(WEIGHTS)) ** 2,
        lambda a: np.einsum("ij,kj->ik", a, WEIGHTS) ** 2,
    ),
    "einsum_implicit_trace": (
        lambda t: ops.einsum("ij,ij", t, t) + ops.einsum("ii", t[:, :3]),
        lambda a: np.einsum("ij,ij", a, a) + np.einsum("ii", a[:, :3]),
    ),
    "Einsum_class": (
        lambda t: ops.Einsum("ij->j")((t * t,)),
        lambda a: np.einsum("ij->j", a * a),
    ),
    "clip_by_value": (
        lambda t: ops.clip_by_value(t, -0.5, 0.7) * WEIGHTS,
        lambda a: np.clip(a, -0.5, 0.7) * WEIGHTS,
    ),
    "where": (lambda t: ops.where(t > 0, t * t, ops.sin(t)), lambda a: np.where(a > 0, a * a, np.sin(a))),
    "Select": (lambda t: ops.Select()(t < 0.2, ops.exp(t), 2.0), lambda a: np.where(a < 0.2, np.exp(a), 2.0)),
    "leaky_relu": (lambda t: ops.leaky_relu(t, 0.1) ** 2, lambda a: np.where(a > 0, a, 0.1 * a) ** 2),
    "elu": (lambda t: ops.elu(t, 0.5) * WEIGHTS, lambda a: np.where(a > 0, a, 0.5 * np.expm1(a)) * WEIGHTS),
    "gelu_tanh": (
        lambda t: nn.GELU()(t),
        lambda a: 0.5 * a * (1 + np.tanh(np.sqrt(2 / np.pi) * (a + 0.044715 * a**3))),
    ),
    "softplus_large": (lambda t: ops.softplus(t * 300), lambda a: np.logaddexp(0, a * 300)),
    "gather_repeats": (
        lambda t: ops.gather(t, Tensor(np.array([[3, 0], [3, 3]], np.int32)), 1) ** 2,
        lambda a: np.take(a, [[3, 0], [3, 3]], axis=1) ** 2,
    ),
    "Gather_rows": (lambda t: ops.Gather()(t, [2, 0], 0) * WEIGHTS[:2], lambda a: a[[2, 0]] * WEIGHTS[:2]),
    "concat_unequal_pieces": (
        lambda t: ops.concat((t, t[:, 1:] * 2, t[:, :1]), 1) ** 2,
        lambda a: np.concatenate((a, a[:, 1:] * 2, a[:, :1]), 1) ** 2,
    ),
    "cumsum": (lambda t: ops.cumsum(t, 1) * WEIGHTS, lambda a: np.cumsum(a, 1) * WEIGHTS),
    "CumSum_exclusive_reverse": (
        lambda t: ops.CumSum(exclusive=True, reverse=True)(t, 0) * WEIGHTS,
        lambda a: (np.cumsum(a[::-1], 0)[::-1] - a) * WEIGHTS,
    ),
    "floor_div": (
        lambda t: ops.FloorDiv()(t, 0.3) + t // 0.7 + t,
        lambda a: np.floor_divide(a, 0.3) + a // 0.7 + a,
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_numpy_and_finite_differences(name, rng):
    fn, reference = CASES[name]
    x = rng.normal(size=(3, 4))
    value = fn(Tensor(x))
    np.testing.assert_allclose(value.asnumpy(), reference(x), rtol=1e-12, atol=1e-12)
    (grad,) = ops.grad(lambda t: fn(t).sum(), (0,))(Tensor(x))
    np.testing.assert_allclose(grad.asnumpy(), central_difference(reference, x), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "name", ["softmax", "log_softmax", "logsumexp", "norm", "elu", "einsum_matmul", "tile", "prod"]
)
def test_second_derivatives_match_finite_differences_of_the_gradient(name, rng):
    """Where MindSpore 2.10's own second derivatives are missing (softmax) or drop terms (logsumexp, norm)."""
    fn, _ = CASES[name]
    x, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))

    def directional(a):  # <grad f(a), v> by symgrad, as a NumPy function of a
        return np.sum(ops.grad(lambda t: fn(t).sum())(Tensor(a)).asnumpy() * v)

    hvp = ops.grad(lambda t: (ops.grad(lambda s: fn(s).sum())(t) * Tensor(v)).sum())(Tensor(x))
    np.testing.assert_allclose(hvp.asnumpy(), central_difference(directional, x, 1e-5), rtol=1e-5, atol=1e-5)


def test_the_compiled_kernels_agree_with_eager_values(rng):
    def fn(t):
        joined = ops.concat((t, t[1:] * 3), 0)
        return ops.logsumexp(t, 0) + ops.softmax(t)[1] + ops.norm(t) + ops.prod(t) + ops.elu(joined).sum()

    x = symgrad.placeholder("x", (4,))
    (g,) = ops.grad(fn, (0,))(x)
    points = rng.normal(size=(6, 4))
    for backend in [b for b in ("numpy", "c") if b in lowering.available_backends()]:
        value, grad = symgrad.kernel([fn(x), g], [x], backend=backend)(points)
        for p, v, gp in zip(points, value, grad):
            np.testing.assert_allclose(v, fn(Tensor(p)).asnumpy(), rtol=1e-12)
            np.testing.assert_allclose(gp, ops.grad(fn)(Tensor(p)).asnumpy(), rtol=1e-11, atol=1e-14)


def test_kinks_follow_mindspore():
    at = Tensor(np.array([-0.2, 0.0, 0.3]))
    # LeakyReLU is maximum(alpha x, x) in MindSpore: the tie at 0 splits, (1 + alpha) / 2
    np.testing.assert_allclose(
        ops.grad(lambda t: ops.leaky_relu(t, 0.2).sum())(at).asnumpy(), [0.2, 0.6, 1.0]
    )
    # ELU'(0) = alpha, the left derivative
    np.testing.assert_allclose(
        ops.grad(lambda t: ops.elu(t, 0.5).sum())(at).asnumpy(), [0.5 * np.exp(-0.2), 0.5, 1.0]
    )
    # clip_by_value is maximum(minimum(x, hi), lo): a value on a bound gets half the gradient
    np.testing.assert_allclose(
        ops.grad(lambda t: ops.clip_by_value(t, -0.2, 0.3).sum())(at).asnumpy(), [0.5, 1, 0.5]
    )
    # a product with a zero entry: the exact gradient (the product of the others), not 0/0
    np.testing.assert_allclose(ops.grad(lambda t: ops.prod(t))(at).asnumpy(), [0.0, -0.06, 0.0])


def test_select_sends_the_gradient_to_the_chosen_branch_only():
    x, y = Tensor(np.array([1.0, -2.0, 3.0])), Tensor(np.array([10.0, 20.0, 30.0]))
    gx, gy = ops.grad(lambda a, b: ops.where(a > 0, a * b, b).sum(), (0, 1))(x, y)
    np.testing.assert_array_equal(gx.asnumpy(), [10.0, 0.0, 30.0])
    np.testing.assert_array_equal(gy.asnumpy(), [1.0, 1.0, 3.0])
    # float32 stays float32 through the mask
    g32 = ops.grad(lambda a: ops.where(a > 0, a, 0.0).sum())(Tensor(np.array([1.0, -1.0], np.float32)))
    assert g32.dtype == symgrad.float32


def test_floor_div_has_no_gradient():
    g = ops.grad(lambda a: (ops.floor_div(a, 2.0) * a).sum())(Tensor(np.array([3.0, 5.0])))
    np.testing.assert_array_equal(g.asnumpy(), [1.0, 2.0])  # only the second factor's derivative


def test_new_activation_cells_and_squeeze_classes():
    x = Tensor(np.array([[-1.0, 0.5]]))
    np.testing.assert_allclose(nn.SiLU()(x).asnumpy(), x.asnumpy() / (1 + np.exp(-x.asnumpy())))
    np.testing.assert_allclose(nn.Softplus()(x).asnumpy(), np.logaddexp(0, x.asnumpy()))
    np.testing.assert_allclose(nn.LeakyReLU(0.3)(x).asnumpy(), [[-0.3, 0.5]])
    dense = nn.Dense(2, 2, weight_init="ones", bias_init="zeros", activation="gelu")
    assert dense(x).shape == (1, 2)
    assert ops.Squeeze()(x.reshape(1, 2, 1)).shape == (2,) and ops.Squeeze(0)(x).shape == (2,)
    assert ops.ExpandDims()(x, 0).shape == (1, 1, 2)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda t: ops.where(t, t, t), "Select: argument 'cond' must be a bool tensor, got dtype float64"),
        (lambda t: ops.einsum("ij,j->i", t), "Einsum: equation 'ij,j->i' does not fit 1 operand"),
        (lambda t: ops.einsum("ij,jk->ik", t, t), "Einsum: letter 'j' has sizes 4 and 3"),
        (lambda t: ops.einsum("i...->i", t), "no ellipsis"),
        (lambda t: ops.einsum("ij->k", t), "Einsum: output 'k' must name distinct letters"),
        (lambda t: ops.gather(t, [0, 4], 1), r"Gather: input_indices must lie in \[0, 4\) .* from 0 to 4"),
        (lambda t: ops.gather(t, [-1], 0), r"Gather: input_indices must lie in \[0, 3\)"),
        (
            lambda t: ops.gather(t, [0], 2),
            r"Gather: axis 2 is out of range for input_params of shape \(3, 4\)",
        ),
        (lambda t: ops.gather(t, [0], 0, batch_dims=1), "Gather: batch_dims=1 is not supported"),
        (
            lambda t: ops.concat((t, t.T), 1),
            r"Concat: the tensors must agree on every axis but 1; got shapes",
        ),
        (lambda t: ops.CumSum()(t, -3), r"CumSum: axis -3 is out of range for x of shape \(3, 4\)"),
        (lambda t: ops.tile(t, (0, 1)), r"Tile: every multiple must be >= 1, got \(0, 1\)"),
        (lambda t: ops.norm(t, "fro"), "Norm: ord must be None or a number >= 1"),
        (lambda t: ops.BatchMatMul()(t, t), r"BatchMatMul: shapes \(3, 4\) and \(3, 4\) do not chain"),
        (lambda t: ops.prod(t, 5), r"ReduceProd: axis 5 is out of range for a tensor of shape \(3, 4\)"),
        # it used to wrap around (axis 2 of a 2-D tensor meant axis 0): a silently different answer
        (
            lambda t: ops.ReduceMax()(t, 2),
            r"ReduceMax: axis 2 is out of range for a tensor of shape \(3, 4\)",
        ),
    ],
)
def test_bad_arguments_name_the_op(call, message):
    with pytest.raises(OpError, match=message):
        call(Tensor(np.ones((3, 4))))


def test_gather_refuses_float_indices_with_a_type_error():
    with pytest.raises(TypeError, match="Gather: input_indices must hold integers, got dtype float64"):
        ops.gather(Tensor(np.ones((3, 4))), np.array([0.0, 1.0]), 0)


def test_a_float32_gradient_is_float32_even_through_broadcast_numbers():
    """Weakly typed arrays (a broadcast 1 times 3) are computed in float64; the result keeps its dtype."""
    x = Tensor(np.array([0.5, -1.0, 2.0], np.float32))
    g = ops.grad(lambda t: ops.square(ops.cast(t, symgrad.float64)).sum() + (t * 3).sum())(x)
    assert g.dtype == symgrad.float32 and g.asnumpy().dtype == np.float32
    np.testing.assert_allclose(g.asnumpy(), 2 * x.asnumpy() + 3)
