"""The names issue 42's coverage scan ranked highest, each against real MindSpore 2.10 in the same run
(values, and first derivatives where the name differentiates): ``nn.LossBase``, ``nn.MAELoss``,
``nn.RMSELoss``, ``Cell.to_float``, ``nn.Conv1d``, ``nn.Pad``/``ops.Pad``/``ops.pad``,
``ops.clip_by_global_norm``, pieces (``unstack``, ``unbind``, ``chunk``, ``slice``,
``index_select``, ``roll``), ``bmm``, ``mse_loss``, ``reduce_mean``, ``Identity``, ``constexpr``,
``tuple_len``, and the top-level ``set_seed``/``get_seed``, ``set_device``, ``vmap``,
``from_numpy``, ``data_sink``; and the values and gradients of the second round's ops
(``conv1d``, ``conv3d``, ``interpolate``, ``HSwish``, ``ReLU6``, ...: the rest of that round is in
``test_names_round2.py``).
"""

from __future__ import annotations

import importlib.util
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import symgrad

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None
needs_mindspore = pytest.mark.skipif(
    not HAS_MINDSPORE, reason="MindSpore is not installed (pip install mindspore)"
)
RNG = np.random.default_rng(42)
X = RNG.normal(size=(2, 3, 5)).astype(np.float32)
W = RNG.normal(size=(2, 3, 5)).astype(np.float32)
X4 = RNG.normal(size=(2, 2, 3, 4)).astype(np.float32)
X5 = RNG.normal(size=(1, 2, 3, 4, 4)).astype(np.float32)
X5W = RNG.normal(size=(3, 2, 2, 3, 2)).astype(np.float32)


def library(name: str) -> SimpleNamespace:
    if name == "symgrad":
        import symgrad.numpy as mnp

        return SimpleNamespace(ms=symgrad, nn=symgrad.nn, ops=symgrad.ops, np=mnp, T=symgrad.Tensor)
    import mindspore
    import mindspore.numpy

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:  # under NumPy 2 MindSpore's first Tensor-and-number op fails once (SystemError)
            mindspore.Tensor(np.ones(1, np.float32)) * 1.0
        except SystemError:
            pass
    return SimpleNamespace(
        ms=mindspore, nn=mindspore.nn, ops=mindspore.ops, np=mindspore.numpy, T=mindspore.Tensor
    )


def value_and_input_grad(L, f, *arrays):
    """``f(*tensors)`` and the gradient of sum(W-weighted output) w.r.t. the first input, as arrays."""
    xs = [L.T(a) for a in arrays]

    def weighted(*ts):
        out = f(*ts)
        return (out * L.T(np.resize(W, out.shape))).sum()

    grads = L.ops.grad(weighted, 0)(*xs)
    return np.asarray(f(*xs).asnumpy()), grads.asnumpy()


def _blocks(m):
    """Three blocks of a matrix, sliced (MindSpore 2.10 refuses a NumPy int index inside grad)."""
    return m[0:3], m[3:5, 0:2], m[5:6, 1:2].reshape(1)


# name -> (function of the library, input arrays); each compared on value and gradient
DIFFERENTIABLE = {
    "pad constant": (lambda L: lambda x: L.ops.pad(x, (1, 2, 0, 1), value=0.5), (X,)),
    "pad reflect": (lambda L: lambda x: L.ops.pad(x, (2, 1), mode="reflect"), (X,)),
    "pad replicate": (lambda L: lambda x: L.ops.pad(x, (1, 2, 2, 0), mode="replicate"), (X,)),
    "ops.Pad": (lambda L: lambda x: L.ops.Pad(((0, 0), (1, 0), (2, 1)))(x), (X,)),
    "nn.Pad REFLECT": (lambda L: lambda x: L.nn.Pad(((0, 0), (1, 1), (2, 2)), "REFLECT")(x), (X,)),
    "nn.Pad SYMMETRIC": (lambda L: lambda x: L.nn.Pad(((0, 0), (2, 1), (1, 2)), "SYMMETRIC")(x), (X,)),
    "unstack": (lambda L: lambda x: L.ops.unstack(x, 1)[2], (X,)),
    "unbind": (lambda L: lambda x: L.ops.unbind(x, -1)[1], (X,)),
    "chunk": (lambda L: lambda x: L.ops.chunk(x, 2, 2)[1], (X,)),
    "slice": (
        lambda L: lambda x: L.ops.slice(x, (0, 1, 2), (2, 2, 2)),
        (X,),
    ),  # MindSpore's SliceGrad fails on -1
    "index_select": (lambda L: lambda x: L.ops.index_select(x, 2, L.T(np.array([4, 0, 4], np.int32))), (X,)),
    "numpy.roll": (lambda L: lambda x: L.np.roll(x, 3), (X,)),
    "numpy.roll axis": (lambda L: lambda x: L.np.roll(x, -2, 2), (X,)),
    "bmm": (lambda L: lambda x, y: L.ops.bmm(x, y), (X, W.transpose(0, 2, 1).copy())),
    "mse_loss": (lambda L: lambda x, y: L.ops.mse_loss(x, y), (X, W)),
    "mse_loss none": (lambda L: lambda x, y: L.ops.mse_loss(x, y, "none"), (X, W)),
    "reduce_mean": (lambda L: lambda x: L.ops.reduce_mean(x, 1), (X,)),
    "ops.Identity": (lambda L: lambda x: L.ops.Identity()(x) * 2, (X,)),
    "nn.Identity": (lambda L: lambda x: L.nn.Identity()(x) * 2, (X,)),
    "MAELoss": (lambda L: lambda x, y: L.nn.MAELoss()(x, y), (X, W)),
    "MAELoss sum": (lambda L: lambda x, y: L.nn.MAELoss("sum")(x, y), (X, W)),
    "RMSELoss": (lambda L: lambda x, y: L.nn.RMSELoss()(x, y), (X, W)),
    "conv1d": (lambda L: lambda x: L.ops.conv1d(x, L.T(W[:, :, :2] * 1.0), None, 2), (X,)),
    "conv1d pad": (lambda L: lambda x: L.ops.conv1d(x, L.T(W[1:, :, :3] * 1.0), None, 1, "pad", 1, 2), (X,)),
    "conv3d": (lambda L: lambda x: L.ops.conv3d(x, L.T(X5W), None, 1, "pad", (1, 0, 2)), (X5,)),
    "conv3d same stride": (lambda L: lambda x: L.ops.conv3d(x, L.T(X5W), None, 2, "same"), (X5,)),
    "interpolate nearest": (lambda L: lambda x: L.ops.interpolate(x, size=(5, 7)), (X4,)),
    "interpolate bilinear": (lambda L: lambda x: L.ops.interpolate(x, size=(5, 7), mode="bilinear"), (X4,)),
    "interpolate bilinear corners": (
        lambda L: lambda x: L.ops.interpolate(x, size=(2, 9), mode="bilinear", align_corners=True),
        (X4,),
    ),
    "interpolate bicubic": (lambda L: lambda x: L.ops.interpolate(x, size=(5, 7), mode="bicubic"), (X4,)),
    "interpolate bicubic corners": (
        lambda L: lambda x: L.ops.interpolate(x, size=(6, 3), mode="bicubic", align_corners=True),
        (X4,),
    ),
    "interpolate trilinear": (
        lambda L: lambda x: L.ops.interpolate(x, size=(3, 5, 6), mode="trilinear"),
        (X5,),
    ),
    "interpolate linear": (lambda L: lambda x: L.ops.interpolate(x, size=8, mode="linear"), (X,)),
    "interpolate area": (lambda L: lambda x: L.ops.interpolate(x, size=(2, 3), mode="area"), (X4,)),
    "ResizeNearestNeighbor": (lambda L: lambda x: L.ops.ResizeNearestNeighbor((5, 7))(x), (X4,)),
    "HSwish": (lambda L: lambda x: L.ops.HSwish()(x * 4), (X,)),
    "nn.ReLU6": (lambda L: lambda x: L.nn.ReLU6()(x * 5), (X,)),
    "inv": (lambda L: lambda x: L.ops.inv(x + 3.0), (X,)),
    "block_diag": (lambda L: lambda x: L.ops.block_diag(*_blocks(x.reshape(6, 5))), (X,)),
    "TopK": (lambda L: lambda x: L.ops.TopK()(x, 3)[0], (X,)),
    "tensor_scatter_add": (
        lambda L: (
            lambda x: L.ops.tensor_scatter_add(
                x, L.T(np.array([[1, 0], [0, 2], [1, 0]], np.int32)), x[0, :3] * 2
            )
        ),
        (X,),
    ),
    "clip_by_norm": (lambda L: lambda x: L.ops.clip_by_norm(x, 1.0), (X,)),
    "clip_by_norm tuple": (lambda L: lambda x: L.ops.clip_by_norm((x, x[0:1] * 2), 2.0)[1], (X,)),
    "nn.ZeroPad2d": (lambda L: lambda x: L.nn.ZeroPad2d((1, 2, 0, 1))(x), (X,)),
    "nn.ConstantPad1d": (lambda L: lambda x: L.nn.ConstantPad1d((2, 1), 0.5)(x), (X,)),
    "nn.Triu": (lambda L: lambda x: L.nn.Triu()(x, 1), (X,)),
}


@needs_mindspore
@pytest.mark.parametrize("case", list(DIFFERENTIABLE))
def test_values_and_gradients_match_mindspore(case):
    build, arrays = DIFFERENTIABLE[case]
    ours = value_and_input_grad(library("symgrad"), build(library("symgrad")), *arrays)
    L = library("mindspore")
    theirs = value_and_input_grad(L, build(L), *arrays)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape and a.dtype == b.dtype, (case, a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6, err_msg=case)


def test_roll_and_slice_to_the_end_against_numpy():
    """MindSpore 2.10 CPU has no Roll kernel, and its SliceGrad refuses size -1: NumPy is the reference."""
    t = symgrad.Tensor(X)
    np.testing.assert_array_equal(symgrad.ops.roll(t, (2, -1), (2, 1)).asnumpy(), np.roll(X, (2, -1), (2, 1)))
    np.testing.assert_array_equal(symgrad.ops.slice(t, (0, 1, 2), (2, -1, 2)).asnumpy(), X[:, 1:, 2:4])
    grad = symgrad.ops.grad(lambda a: (symgrad.ops.roll(a, 1, 2) * symgrad.Tensor(W)).sum())(t)
    np.testing.assert_array_equal(grad.asnumpy(), np.roll(W, -1, 2))


def test_pad_with_negative_amounts_crops():
    """Against NumPy (MindSpore 2.10 CPU gives these values, but not after differentiating the pad)."""
    out = symgrad.ops.pad(symgrad.Tensor(X), (-1, 2, 1, -2))
    expected = np.pad(X[:, :-2, 1:], ((0, 0), (1, 0), (0, 2)))
    np.testing.assert_array_equal(out.asnumpy(), expected)


def _weighted_loss(L):
    class Weighted(L.nn.LossBase):
        def __init__(self, reduction="mean"):
            super().__init__(reduction)

        def construct(self, logits, labels):
            return self.get_loss(
                L.ops.square(logits - labels), L.T(np.array([1.0, 2.0, 0.5, 1.5, 3.0], np.float32))
            )

    return Weighted


@needs_mindspore
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_base_get_loss_matches_mindspore(reduction):
    results = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        loss = _weighted_loss(L)(reduction)
        assert isinstance(loss, L.nn.Cell) and isinstance(L.nn.MSELoss(), L.nn.LossBase)
        assert loss.get_axis(L.T(X)) == (0, 1, 2)
        results.append(value_and_input_grad(L, loss, X, W))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)
    with pytest.raises(ValueError):
        symgrad.nn.LossBase("avg")


def _conv1d(L, **kw):
    net = L.nn.Conv1d(3, 4, 3, has_bias=True, **kw)
    w = RNG.normal(size=(4, 3, 1, 3)).astype(np.float32)
    net.weight.set_data(L.T(w))
    net.bias.set_data(L.T(np.array([0.1, -0.2, 0.3, 0.0], np.float32)))
    return net


@needs_mindspore
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"pad_mode": "valid"},
        {"pad_mode": "pad", "padding": 2},
        {"stride": 2},
        {"dilation": 2, "pad_mode": "valid"},
    ],
)
def test_conv1d_matches_mindspore(kw):
    global RNG
    results = []
    for name in ("symgrad", "mindspore"):
        RNG = np.random.default_rng(7)  # the same weights for both
        L = library(name)
        net = _conv1d(L, **kw)
        assert net.weight.shape == (4, 3, 1, 3)
        out, dx = value_and_input_grad(L, net, X)
        dw = L.ops.grad(lambda x, n=net: n(x).sum(), None, net.trainable_params())(L.T(X))
        results.append((out, dx, *[g.asnumpy() for g in dw]))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@needs_mindspore
def test_to_float_runs_the_cell_in_float16_as_mindspore():
    weights = RNG.normal(size=(3, 5)).astype(np.float32)
    x = RNG.normal(size=(2, 5)).astype(np.float32)
    results = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        net = L.nn.SequentialCell([L.nn.Dense(5, 3), L.nn.Tanh()])
        net[0].weight.set_data(L.T(weights))
        net[0].bias.set_data(L.T(np.array([0.5, -0.5, 0.25], np.float32)))
        assert net.to_float(L.ms.float16) is net
        y = net(L.T(x))
        grads = L.ops.grad(lambda t, n=net: n(t).sum(), None, net.trainable_params())(L.T(x))
        assert str(y.dtype) == "Float16" and str(net[0].weight.dtype) == "Float32"
        assert [str(g.dtype) for g in grads] == ["Float32", "Float32"]
        results.append((y.asnumpy(), *[g.asnumpy() for g in grads]))
        with pytest.raises(ValueError):
            net.to_float(L.ms.float64)
    for a, b in zip(*results):
        np.testing.assert_allclose(a.astype(np.float32), b.astype(np.float32), rtol=2e-3, atol=2e-3)


@needs_mindspore
def test_clip_by_global_norm_tuple_len_constexpr_match_mindspore():
    xs = (X[0], W[1] * 3)
    out = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        clipped = L.ops.clip_by_global_norm(tuple(L.T(a) for a in xs), 2.0)
        small = L.ops.clip_by_global_norm((L.T(X[0] * 1e-3),), 1.0)
        assert L.ops.tuple_len((1, 2, 3)) == 3
        out.append([c.asnumpy() for c in clipped] + [small[0].asnumpy()])
    for a, b in zip(*out):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)
    total = np.sqrt(sum(float((a.astype(np.float64) ** 2).sum()) for a in xs))  # independent reference
    np.testing.assert_allclose(out[0][0], xs[0] * 2.0 / total, rtol=1e-5)

    @symgrad.ops.constexpr
    def double(n):
        return 2 * n

    assert double(4) == 8 and symgrad.ops.constexpr(reuse_result=False)(double)(1) == 2


def _sum_of_squares(a):
    return (a * a).sum()


@needs_mindspore
def test_seeds_devices_vmap_from_numpy_match_mindspore():
    draws = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        L.ms.set_seed(1234)
        assert L.ms.get_seed() == 1234
        draws.append(np.random.rand(3))  # MindSpore's set_seed seeds NumPy's global generator too
        with pytest.raises(TypeError):
            L.ms.set_seed(1.5)
        with pytest.raises(ValueError):
            L.ms.set_device("TPU")
        t = L.ms.from_numpy(np.arange(4, dtype=np.int32))
        assert str(t.dtype) == "Int32" and t.asnumpy().tolist() == [0, 1, 2, 3]
        batched = L.ms.vmap(_sum_of_squares, in_axes=0)(L.T(X[0]))
        np.testing.assert_allclose(batched.asnumpy(), (X[0] ** 2).sum(1), rtol=1e-6)
    np.testing.assert_array_equal(draws[0], draws[1])
    symgrad.set_device("CPU")
    assert symgrad.get_context("device_target") == "CPU"


def test_data_sink_feeds_the_next_batches_and_cycles():
    """MindSpore runs data_sink on Ascend or GPU only (on a CPU it raises ValueError); symgrad runs it
    on its device: each call takes the next ``sink_size`` batches, starting over at the end."""
    batches = [(np.full((2,), k, np.float32), np.float32(k)) for k in range(3)]
    seen = []

    def step(x, y):
        seen.append(float(y))
        return (x * 2).sum()

    sink = symgrad.data_sink(step, batches, sink_size=2)
    results = [float(sink().asnumpy()) for _ in range(3)]
    assert seen == [0, 1, 2, 0, 1, 2] and results == [4.0, 0.0, 8.0]
    one = symgrad.data_sink(step, batches)
    assert float(one().asnumpy()) == 0.0
    with pytest.raises(ValueError):
        symgrad.data_sink(step, batches, sink_size=0)
    with pytest.raises(TypeError):
        symgrad.data_sink(step, batches, sink_size=1.0)
