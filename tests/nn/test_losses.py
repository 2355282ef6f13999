"""MindSpore 2.10's losses: values and input gradients against NumPy, SymPy's closed forms and
finite differences, weights differentiated.

Every behaviour is asserted without MindSpore, against a NumPy reference written here or numbers
MindSpore 2.10 printed on the CPU; where MindSpore is installed the same programs also run on it
(``LIB`` is the library) and the two results are compared to float32 precision.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import Tensor, nn, ops
from tests.nn.helpers import assert_same, dtypes, f32, needs_mindspore, run, shapes


def reduce_np(values: np.ndarray, reduction: str):
    return values.mean() if reduction == "mean" else values.sum() if reduction == "sum" else values


def smooth_l1_np(x, y, beta, reduction):
    """(value, d value.sum() / dx)."""
    beta = f32(beta)
    d = x - y
    small = np.abs(d) < beta
    value = np.where(small, 0.5 * d * d / beta, np.abs(d) - 0.5 * beta)
    grad = np.where(small, d / beta, np.sign(d))
    return reduce_np(value, reduction), grad / (d.size if reduction == "mean" else 1)


def huber_np(x, y, delta, reduction):
    d = x - y
    small = np.abs(d) < delta
    value = np.where(small, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))
    grad = np.where(small, d, delta * np.sign(d))
    return reduce_np(value, reduction), grad / (d.size if reduction == "mean" else 1)


def bce_with_logits_np(x, t, weight, pos_weight, reduction):
    w = 1.0 if weight is None else weight
    scale = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * t
    softplus = np.logaddexp(0, -x)
    value = w * ((1 - t) * x + scale * softplus)
    grad = w * ((1 - t) - scale / (1 + np.exp(x)))
    grad = np.broadcast_to(grad, x.shape)
    return reduce_np(value, reduction), grad / (x.size if reduction == "mean" else 1)


def bce_np(p, t, weight, reduction):
    eps = 1e-12
    w = 1.0 if weight is None else weight
    value = -w * (t * np.log(p + eps) + (1 - t) * np.log(1 - p + eps))
    grad = -w * (t / (p + eps) - (1 - t) / (1 - p + eps))
    return reduce_np(value, reduction), grad / (p.size if reduction == "mean" else 1)


def cross_entropy_np(logits, target, weight, ignore_index, reduction, smoothing):
    """(value, d value.sum() / d logits): the loss is ``-sum(Q * log_softmax)`` for target weights Q,
    whose gradient is ``softmax * sum_c(Q) - Q``."""
    axis = 0 if logits.ndim == 1 else 1
    classes = logits.shape[axis]
    along = [1] * logits.ndim
    along[axis] = classes
    w = np.ones(classes) if weight is None else weight
    w = w.reshape(along)
    shifted = logits - logits.max(axis, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))
    if target.dtype.kind == "f":
        q = (target * (1 - smoothing) + smoothing / classes) * w
        norm = logits.size / classes if reduction == "mean" else 1.0
    else:
        keep = np.expand_dims(target != ignore_index, axis)
        one_hot = (np.expand_dims(np.where(target == ignore_index, 0, target % classes), axis)
                   == np.arange(classes).reshape(along))  # fmt: skip
        q = w * keep * ((1 - smoothing) * one_hot + smoothing / classes)
        norm = (w * one_hot * keep).sum() if reduction == "mean" else 1.0
    per_example = -(q * log_p).sum(axis) / norm
    value = per_example if reduction == "none" else per_example.sum()
    grad = (np.exp(log_p) * q.sum(axis, keepdims=True) - q) / norm
    return value, grad


def value_and_input_grad(loss, *args):
    """The loss and the gradient of its sum in the first argument, from symgrad."""
    value = loss(*args)
    return value, ops.grad(lambda a: loss(a, *args[1:]).sum())(args[0])


def close(dtype) -> dict:
    return {"rtol": 1e-10, "atol": 1e-12} if dtype == np.float64 else {"rtol": 2e-5, "atol": 2e-6}


reductions = st.sampled_from(["none", "mean", "sum"])


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    beta=st.floats(0.05, 3.0),
    reduction=reductions,
)
def test_smooth_l1_loss_property(seed, shape, dtype, beta, reduction):
    rng = np.random.default_rng(seed)
    x, y = (rng.normal(0, 2, shape).astype(dtype) for _ in range(2))
    value, grad = value_and_input_grad(nn.SmoothL1Loss(beta, reduction), Tensor(x), Tensor(y))
    expected_value, expected_grad = smooth_l1_np(x.astype(float), y.astype(float), beta, reduction)
    assert value.dtype == dtype and grad.dtype == dtype
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    delta=st.floats(0.05, 3.0) | st.integers(1, 3),
    reduction=reductions,
)
def test_huber_loss_property(seed, shape, dtype, delta, reduction):
    rng = np.random.default_rng(seed)
    x, y = (rng.normal(0, 2, shape).astype(dtype) for _ in range(2))
    value, grad = value_and_input_grad(nn.HuberLoss(reduction, delta), Tensor(x), Tensor(y))
    expected_value, expected_grad = huber_np(x.astype(float), y.astype(float), delta, reduction)
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
    dtype=dtypes,
    reduction=reductions,
    weighted=st.sampled_from(["none", "full", "last_axis"]),
    pos_weighted=st.sampled_from(["none", "full", "last_axis"]),
)
def test_bce_with_logits_loss_property(seed, shape, dtype, reduction, weighted, pos_weighted):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, shape).astype(dtype)
    t = rng.uniform(0, 1, shape).astype(dtype)
    shapes_of = {"none": None, "full": shape, "last_axis": shape[-1:]}
    w, pw = (
        None if shapes_of[k] is None else rng.uniform(0.1, 3, shapes_of[k]).astype(dtype)
        for k in (weighted, pos_weighted)
    )
    loss = nn.BCEWithLogitsLoss(
        reduction, None if w is None else Tensor(w), None if pw is None else Tensor(pw)
    )
    value, grad = value_and_input_grad(loss, Tensor(x), Tensor(t))

    def cast(a):
        return None if a is None else a.astype(float)

    expected_value, expected_grad = bce_with_logits_np(
        x.astype(float), t.astype(float), cast(w), cast(pw), reduction
    )
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))
    functional = nn.loss.binary_cross_entropy_with_logits(
        Tensor(x), Tensor(t), loss.weight, loss.pos_weight, reduction
    )
    np.testing.assert_array_equal(functional.asnumpy(), value.asnumpy())


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
    dtype=dtypes,
    reduction=reductions,
    weighted=st.booleans(),
)
def test_bce_loss_property(seed, shape, dtype, reduction, weighted):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, shape).astype(dtype)
    t = rng.uniform(0, 1, shape).astype(dtype)
    w = rng.uniform(0.1, 3, shape).astype(dtype) if weighted else None
    loss = nn.BCELoss(None if w is None else Tensor(w), reduction)
    value, grad = value_and_input_grad(loss, Tensor(p), Tensor(t))
    expected_value, expected_grad = bce_np(
        p.astype(float), t.astype(float), None if w is None else w.astype(float), reduction
    )
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))


@settings(max_examples=50)
@given(
    seed=st.integers(0, 2**16),
    batch=st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple),
    classes=st.integers(1, 4),
    dtype=dtypes,
    reduction=reductions,
    weighted=st.booleans(),
    smoothing=st.sampled_from([0.0, 0.1, 0.5, 1.0, 1.5]),
    ignore_index=st.sampled_from([-100, 0, 1]),
    labels=st.sampled_from(["indices", "probabilities"]),
)
def test_cross_entropy_property(
    seed, batch, classes, dtype, reduction, weighted, smoothing, ignore_index, labels
):
    rng = np.random.default_rng(seed)
    shape = (classes,) if not batch else (batch[0], classes, *batch[1:])
    logits = rng.normal(0, 2, shape).astype(dtype)
    weight = rng.uniform(0.1, 3, classes).astype(dtype) if weighted else None
    if labels == "indices":
        target = rng.integers(-classes, classes, shape[:1] + shape[2:] if batch else ()).astype(np.int32)
        target[rng.uniform(size=target.shape) < 0.2] = ignore_index
        if reduction == "mean" and np.all(target == ignore_index):
            target[...] = classes - 1 if ignore_index != classes - 1 else 0  # a mean over nothing is NaN
    else:
        target = rng.dirichlet(np.ones(classes), shape[:1] + shape[2:] if batch else ())
        target = np.moveaxis(target, -1, 1 if batch else 0).astype(dtype)
    args = (weight if weight is None else Tensor(weight), ignore_index, reduction, smoothing)
    value, grad = value_and_input_grad(
        lambda x, t: ops.cross_entropy(x, t, *args), Tensor(logits), Tensor(target)
    )
    expected_value, expected_grad = cross_entropy_np(
        logits.astype(float), target if labels == "indices" else target.astype(float),
        None if weight is None else weight.astype(float), ignore_index, reduction, smoothing,
    )  # fmt: skip
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))
    if (
        smoothing <= 1.0
        and dtype == np.float32
        and (labels == "probabilities" or target.ndim == logits.ndim - 1)
    ):
        cell = nn.CrossEntropyLoss(args[0], ignore_index, reduction, smoothing)
        np.testing.assert_array_equal(cell(Tensor(logits), Tensor(target)).asnumpy(), value.asnumpy())


def test_loss_gradients_are_the_closed_forms_sympy_derives():
    t, pw = sympy.Rational(1, 5), sympy.Integer(2)
    loss = nn.BCEWithLogitsLoss("sum", pos_weight=Tensor(np.array([2.0, 2.0])))
    g = ops.grad(lambda x: loss(x, Tensor(np.array([0.2, 0.2]))))(Tensor(np.array([0.3, -1.2])))
    inputs = sorted(
        sympy.Matrix(g.expr).free_symbols, key=str
    )  # x1, x2: symgrad names inputs after the argument
    for a, got in zip(inputs, g.expr):
        forward = (1 - t) * a + (1 + (pw - 1) * t) * sympy.log(1 + sympy.exp(-a))
        assert sympy.simplify(sympy.nsimplify(got) - sympy.diff(forward, a)) == 0
    ce = nn.CrossEntropyLoss(label_smoothing=0.25)
    g = ops.grad(lambda x: ce(x, Tensor(np.array([1, 0], np.int32))))(
        Tensor(np.array([[0.3, -1.2], [0.5, 0.1]]))
    )
    x1, x2, x3, x4 = sorted(sympy.Matrix(g.expr).free_symbols, key=str)
    forward = 0
    for x0, x1_, label in ((x1, x2, 1), (x3, x4, 0)):  # the mean of -(7/8 log p_label + 1/8 log p_other)
        log_norm = sympy.log(sympy.exp(x0) + sympy.exp(x1_))
        log_p = (x0 - log_norm, x1_ - log_norm)
        forward += -(sympy.Rational(7, 8) * log_p[label] + sympy.Rational(1, 8) * log_p[1 - label]) / 2
    point = {x1: 0.3, x2: -1.2, x3: 0.5, x4: 0.1}
    for got, a in zip(np.ravel(g.expr), (x1, x2, x3, x4)):
        assert abs(float(sympy.nsimplify(got).subs(point) - sympy.diff(forward, a).subs(point))) < 1e-14


@pytest.mark.parametrize(
    "loss",
    [
        lambda x: nn.SmoothL1Loss(0.7, "mean")(x, Tensor(np.array([[0.1, 0.5], [-1.0, 2.0]]))),
        lambda x: nn.HuberLoss("sum", 0.9)(x, Tensor(np.array([[0.1, 0.5], [-1.0, 2.0]]))),
        lambda x: nn.BCELoss(Tensor(np.array([[1.0, 2.0], [0.5, 1.5]])))(
            ops.sigmoid(x), Tensor(np.array([[0.2, 0.9], [1.0, 0.0]]))
        ),
        lambda x: ops.cross_entropy(
            x, Tensor(np.array([1, -100], np.int32)), Tensor(np.array([0.3, 2.0])), label_smoothing=0.3
        ),
        lambda x: ops.cross_entropy(
            x, Tensor(np.array([[0.1, 0.9], [0.6, 0.4]])), reduction="sum", label_smoothing=0.2
        ),
    ],
)
def test_loss_gradients_match_finite_differences(loss):
    x0 = np.array([[0.3, -1.1], [1.4, 0.05]])
    grad = ops.grad(loss)(Tensor(x0)).asnumpy()
    h = 1e-6
    for index in np.ndindex(x0.shape):
        step = np.zeros_like(x0)
        step[index] = h
        fd = (loss(Tensor(x0 + step)).asnumpy() - loss(Tensor(x0 - step)).asnumpy()) / (2 * h)
        assert abs(grad[index] - fd) < 1e-8, index


LOSS_PROGRAM = """
x = Tensor(np.array([[0.5, -1.5, 2.0, 0.0], [1.2, 3.0, -0.2, 0.7]], np.float32))
y = Tensor(np.array([[0.0, 0.0, 1.0, 0.3], [1.0, -1.0, 0.5, 0.7]], np.float32))
t = Tensor(np.array([[0.0, 1.0, 0.3, 0.9], [1.0, 0.2, 0.5, 0.0]], np.float32))
p = Tensor(np.array([[0.1, 0.6, 0.35, 0.9], [0.99, 0.2, 0.5, 0.02]], np.float32))
w4, pw4 = Tensor(np.array([1.0, 2.0, 0.5, 1.5], np.float32)), Tensor(np.array([3.0, 0.5, 1.0, 2.0], np.float32))
w24 = Tensor(np.array([[1.0, 2.0, 0.5, 1.5], [3.0, 0.5, 1.0, 2.0]], np.float32))
logits = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [0.3, 0.1, -0.4], [2.0, 1.0, 0.0]], np.float32))
labels = Tensor(np.array([2, 0, -100, 1], np.int32))
probs = Tensor(np.array([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4], [1.0, 0.0, 0.0], [0.25, 0.25, 0.5]], np.float32))
cw = Tensor(np.array([1.0, 2.0, 0.5], np.float32))
def with_grads(loss, a, b):
    def summed(a, b):
        return loss(a, b).sum()
    return [loss(a, b), ops.grad(summed, (0, 1))(a, b)]
result = {}
for red in ("none", "mean", "sum"):
    for beta in (1.0, 0.3, 2.5):
        result[f"smooth_l1_{red}_{beta}"] = with_grads(nn.SmoothL1Loss(beta, red), x, y)
    huber = nn.HuberLoss(red, 1.5)  # MindSpore 2.10's PyNative huber_loss fails under NumPy 2: jitted here
    result[f"huber_{red}"] = with_grads(ms.jit(huber.construct), x, y)
    for name, w, pw in (("plain", None, None), ("w", w4, None), ("pw", None, pw4), ("both", w4, pw4)):
        result[f"bce_logits_{red}_{name}"] = with_grads(nn.BCEWithLogitsLoss(red, w, pw), x, t)
    for name, w in (("plain", None), ("w", w24)):
        result[f"bce_{red}_{name}"] = with_grads(nn.BCELoss(w, red), p, t)
    for smoothing in (0.0, 0.2):
        for name, w in (("plain", None), ("w", cw)):
            ce = nn.CrossEntropyLoss(w, -100, red, smoothing)
            result[f"ce_indices_{red}_{smoothing}_{name}"] = [ce(logits, labels), ops.grad(lambda a: ce(a, labels).sum())(logits)]
            result[f"ce_probabilities_{red}_{smoothing}_{name}"] = with_grads(ce, logits, probs)
            other = Tensor(np.array([2, 1, 0, -1], np.int32))
            result[f"ops_ce_{red}_{smoothing}_{name}"] = [ops.cross_entropy(logits, other, w, 1, red, smoothing)]
lg = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1.5)
lb = Tensor(np.array([[0, 2, 1, 1], [2, 2, 0, -1]], np.int32))
result["ce_spatial"] = [ops.cross_entropy(lg, lb, cw, 1, "mean", 0.1), ops.grad(lambda a, w: ops.cross_entropy(a, lb, w, 1, "mean", 0.1), (0, 1))(lg, cw)]
result["ce_spatial_none"] = [ops.cross_entropy(lg, lb, None, -100, "none", 0.0)]
result["ce_one_example"] = [ops.cross_entropy(Tensor(np.array([1.0, 2.0, 0.5], np.float32)), Tensor(np.array(1, np.int32)), cw, -100, "mean", 0.2)]
result["ce_int64_labels"] = [ops.cross_entropy(logits, Tensor(np.array([2, 0, 1, 1], np.int64)))]
result["ce_float64"] = [ops.cross_entropy(Tensor(logits.asnumpy().astype(np.float64)), labels, None, -100, "sum", 0.3)]
"""


@needs_mindspore
def test_losses_and_their_gradients_match_mindspore(in_tmp):
    """Values, and gradients in both arguments (weights' gradients: see test_losses_differentiate_their_weights)."""
    expected, got = run("mindspore", LOSS_PROGRAM, in_tmp), run("symgrad", LOSS_PROGRAM, in_tmp)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert_same(got[name], expected[name], rtol=1e-5, atol=1e-6, what=name)


def test_losses_give_the_numbers_mindspore_printed(tmp_path):
    got = run("symgrad", LOSS_PROGRAM, tmp_path)
    printed = {  # MindSpore 2.10, CPU
        "ce_indices_mean_0.2_w": 1.7267327308654785,
        "ce_probabilities_mean_0.0_plain": 1.2531328201293945,
        "ops_ce_mean_0.2_w": 1.8816941976547241,
        "ce_spatial": 1.3092589378356934,
        "ce_one_example": 0.48400431871414185,
        "bce_logits_mean_both": 1.6369471549987793,
        "bce_mean_w": 0.36709854006767273,
        "smooth_l1_mean_0.3": 0.8958333134651184,
    }
    for name, value in printed.items():
        np.testing.assert_allclose(got[name][0].asnumpy(), value, rtol=2e-6, err_msg=name)


def test_losses_differentiate_their_weights():
    """MindSpore 2.10 returns zero gradients for BCELoss's and BCEWithLogitsLoss's weight and pos_weight
    (its kernels do not differentiate them); symgrad returns the derivatives (cross_entropy's weight
    gradient is MindSpore's too: LOSS_PROGRAM's ce_spatial)."""
    x, t = Tensor(np.array([[1.0, -0.5]])), Tensor(np.array([[0.3, 0.8]]))

    def loss(w, pw):
        return nn.loss.binary_cross_entropy_with_logits(x, t, w, pw, "sum")

    w, pw = np.array([1.0, 2.0]), np.array([3.0, 0.5])
    gw, gpw = ops.grad(loss, (0, 1))(Tensor(w), Tensor(pw))
    xs, ts = x.asnumpy()[0], t.asnumpy()[0]
    softplus = np.logaddexp(0, -xs)
    np.testing.assert_allclose(gw.asnumpy(), (1 - ts) * xs + (1 + (pw - 1) * ts) * softplus, rtol=1e-12)
    np.testing.assert_allclose(gpw.asnumpy(), w * ts * softplus, rtol=1e-12)
