"""One meaning per input shape, and a named refusal for every other input, across the PINN toolkit.

Points are per-point arrays of one length n, each of shape (n,) or (n, 1) (the same thing); a
(dim, n) array is one row per input. Every other combination is refused naming the shapes, by the
loss, its residuals, its Jacobian and the causal loss alike. Each result is checked against NumPy.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import Parameter, Tensor, ops
from symgrad.pinn import MLP, CausalLoss, ResidualLoss, hard_constraint, predict, refine, resample

A = Parameter(Tensor(np.array(0.7)), name="a")
B = Parameter(Tensor(np.array(-0.4)), name="b")


def residual(x, t):
    return A * ops.sin(x) + B * t * t - x * t


def numpy_residual(x, t):
    return 0.7 * np.sin(x) - 0.4 * t * t - x * t


LOSS = ResidualLoss(residual, ("x", "t"), [A, B], backend="numpy", name="r")


def as_given(values: np.ndarray, column: bool) -> np.ndarray:
    return values.reshape(-1, 1) if column else values


@settings(max_examples=30)
@given(
    n=st.integers(1, 40),
    columns=st.tuples(st.booleans(), st.booleans()),
    dtype=st.sampled_from([np.float64, np.float32, np.int64]),
)
def test_column_and_flat_point_arrays_mean_the_same_points(n, columns, dtype):
    rng = np.random.default_rng(n)
    x, t = (rng.uniform(-2, 2, n).astype(dtype) for _ in range(2))
    given_points = [as_given(v, c) for v, c in zip((x, t), columns)]
    r = numpy_residual(x.astype(float), t.astype(float))
    loss, grads = LOSS(*given_points)
    assert loss == pytest.approx(np.mean(r**2), rel=1e-12)
    expected = [np.mean(2 * r * np.sin(x.astype(float))), np.mean(2 * r * t.astype(float) ** 2)]
    assert [float(g) for g in grads] == pytest.approx(expected, rel=1e-10, abs=1e-14)
    np.testing.assert_allclose(LOSS.residuals(*given_points), r, rtol=1e-12, atol=1e-14)
    scaled, jacobian = LOSS.jacobian(*given_points)
    np.testing.assert_allclose(scaled, r / math.sqrt(n), rtol=1e-12, atol=1e-14)
    assert jacobian.shape == (n, 2)


BAD_SHAPES = [
    ((5,), (4,)),  # two lengths
    ((5, 1), (4,)),
    ((5,), (1, 5)),  # a row beside a column of points
    ((5, 2), (5,)),
    ((5,), (5, 1, 1)),
    ((), (5,)),  # one point's scalar beside five points
]


@pytest.mark.parametrize("shapes", BAD_SHAPES, ids=str)
def test_mismatched_point_arrays_are_refused_with_their_shapes(shapes):
    arrays = [np.zeros(s) + 0.5 for s in shapes]
    named = rf"x {shapes[0]}, t {shapes[1]}".replace("(", r"\(").replace(")", r"\)")
    for method in (LOSS, LOSS.residuals, LOSS.jacobian, CausalLoss(LOSS, slabs=2)):
        with pytest.raises(ValueError, match=named):
            method(*arrays)


def test_points_that_are_not_numbers_are_refused_by_input_name():
    with pytest.raises(TypeError, match="the points of 't' are <U1 values"):
        LOSS(np.zeros(3), np.array(["a", "b", "c"]))


def test_causal_loss_uses_every_point_of_a_column_and_a_flat_array():
    rng = np.random.default_rng(0)
    x, t = rng.uniform(-1, 1, 64), rng.uniform(0, 1, 64)
    causal = CausalLoss(LOSS, slabs=4, tol=0.0)  # tol 0: every weight 1, so the plain mean loss
    assert causal(x.reshape(-1, 1), t)[0] == pytest.approx(np.mean(numpy_residual(x, t) ** 2), rel=1e-12)
    with pytest.raises(ValueError, match=r"x \(100,\), t \(64,\)"):
        causal(rng.uniform(-1, 1, 100), t)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"slabs": True}, "slabs must be a whole number"),
        ({"slabs": 2.0}, "slabs must be a whole number"),
        ({"tol": True}, "tol must be a finite number"),
        ({"time_input": 2}, "time_input 2 is not"),
        ({"time_input": 1.0}, "time_input 1.0 is not"),
    ],
)
def test_causal_loss_arguments_are_checked_by_name(kwargs, message):
    with pytest.raises(ValueError, match=message):
        CausalLoss(LOSS, **kwargs)


def test_causal_loss_refuses_what_is_not_a_residual_loss():
    with pytest.raises(TypeError, match="loss must be a ResidualLoss, got function"):
        CausalLoss(residual)


# ----- refine and resample: the same checks on candidates, counts and residuals -----
CANDIDATES = np.vstack([np.linspace(-1, 1, 6), np.linspace(0, 1, 6)])
POINTS = np.zeros((2, 3))


@settings(max_examples=30)
@given(count=st.integers(0, 6), sizes=st.lists(st.floats(0, 10), min_size=6, max_size=6, unique=True))
def test_refine_adds_the_candidates_of_largest_residual(count, sizes):
    sizes = np.array(sizes)
    refined = refine(POINTS, CANDIDATES, lambda x, t: -sizes, count)
    expected = CANDIDATES[:, np.argsort(-sizes)[:count]]  # NumPy's own choice of the largest |r|
    np.testing.assert_array_equal(refined, np.hstack([POINTS, expected]))


@pytest.mark.parametrize("function", [refine, resample])
@pytest.mark.parametrize(
    "count, residuals, message",
    [
        (-3, lambda x, t: x, "count must be a whole number in"),
        (2.5, lambda x, t: x, "count must be a whole number in"),
        (True, lambda x, t: x, "count must be a whole number in"),
        (7, lambda x, t: x, r"count must be a whole number in \d\.\.6"),
        (2, lambda x, t: x[:4], r"gave shape \(4,\) for 6 candidates"),
        (2, lambda x, t: np.float64(1.0), r"gave shape \(\) for 6 candidates"),
        (2, lambda x, t: np.where(x > 0, np.nan, x), "3 of 6 candidates have a non-finite residual"),
    ],
)
def test_refine_and_resample_refuse_what_they_cannot_use(function, count, residuals, message):
    args = (POINTS, CANDIDATES) if function is refine else (CANDIDATES,)
    with pytest.raises(ValueError, match=message):
        function(*args, residuals, count)


def test_refine_refuses_candidates_of_another_dimension():
    with pytest.raises(ValueError, match=r"candidates \(3, 6\) must be \(dim, n\) like points \(2, 3\)"):
        refine(POINTS, np.zeros((3, 6)), lambda *xs: xs[0], 1)


# ----- networks: sizes and activations refused by name; the network computes what NumPy does -----
@pytest.mark.parametrize(
    "sizes, kwargs, message",
    [
        ([2, 8.7, 1], {}, r"layer_sizes\[1\] must be a whole number >= 1, got 8.7"),
        ([2, True, 1], {}, r"layer_sizes\[1\] must be a whole number >= 1, got True"),
        ([2, 0, 1], {}, r"layer_sizes\[1\] must be a whole number >= 1, got 0"),
        ([2], {}, r"layer_sizes needs at least \[inputs, outputs\]"),
        ([2, 4, 1], {"activation": "grad"}, "activation 'grad' is not an elementwise function"),
        ([2, 4, 1], {"activation": "sum"}, "activation 'sum' is not an elementwise function"),
        ([2, 4, 1], {"activation": "no_such_op"}, "is not a function of symgrad.ops"),
    ],
)
def test_mlp_arguments_are_refused_by_name(sizes, kwargs, message):
    with pytest.raises(ValueError, match=message):
        MLP(sizes, **kwargs)


@settings(max_examples=15)
@given(
    sizes=st.lists(st.integers(1, 5), min_size=2, max_size=4),
    dtype=st.sampled_from([np.float64, np.float32]),
    activation=st.sampled_from(["tanh", "sin", "sigmoid"]),
)
def test_mlp_of_any_depth_computes_the_numpy_forward_pass(sizes, dtype, activation):
    net = MLP(sizes, activation=activation, dtype=dtype, seed=len(sizes))
    functions = {"tanh": np.tanh, "sin": np.sin, "sigmoid": lambda z: 1 / (1 + np.exp(-z))}
    points = np.random.default_rng(3).uniform(-1, 1, (sizes[0], 7)).astype(dtype)
    a = points.T.astype(np.float64)
    weights = [(p.asnumpy().astype(np.float64)) for p in net.params]
    for k in range(0, len(weights), 2):
        a = a @ weights[k] + weights[k + 1]
        if k + 2 < len(weights):
            a = functions[activation](a)
    got = predict(net, points)
    got = np.stack(got, axis=-1) if isinstance(got, tuple) else got.reshape(-1, 1)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, a, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)


def test_hard_constraint_takes_a_number_as_the_boundary_value():
    net = MLP([1, 4, 1], seed=2)
    u = hard_constraint(net, 2.5, lambda x: x * (1 - x))
    x = np.linspace(0, 1, 5)
    np.testing.assert_allclose(predict(u, [x]), 2.5 + x * (1 - x) * predict(net, [x]), rtol=1e-12)
    with pytest.raises(TypeError, match="boundary_value must be a function of the inputs or a number"):
        hard_constraint(net, "0", lambda x: x)
    with pytest.raises(TypeError, match="distance must be a function of the inputs, got 0.0"):
        hard_constraint(net, 0.0, 0.0)
