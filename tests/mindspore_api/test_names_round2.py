"""The second round of issue 42's names against real MindSpore 2.10 in the same run (where MindSpore's
CPU cannot run one, against NumPy or PyTorch, saying why): ``nn.Conv2dTranspose``, ``nn.Conv3d``,
``nn.Conv3dTranspose``, ``nn.PReLU``, ``ops.clip_by_norm``, ``ops.interpolate`` by scale factor,
``nn.RMSProp``, ``Model`` with callbacks and metrics, the parallel context and
``nn.DistributedGradReducer`` on one device, the random ops, ``numpy.isin`` and MindSpore's default
initial weights of ``Dense``/``Conv2d``. The ops' values and gradients are in ``DIFFERENTIABLE`` of
``test_names.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from tests.mindspore_api.test_names import RNG, X4, W, X, library, needs_mindspore


def test_clip_by_norm_of_order_one_against_numpy():
    """MindSpore 2.10 sums x**p without abs for p != 2 (a negative 'norm' for p = 1), so NumPy is the reference."""
    xs = (X, W[0:1] * 3)
    out = symgrad.ops.clip_by_norm(tuple(symgrad.Tensor(a) for a in xs), 2.0, 1.0)
    total = sum(float(np.abs(a.astype(np.float64)).sum()) for a in xs)
    for got, a in zip(out, xs):
        np.testing.assert_allclose(got.asnumpy(), a * 2.0 / (total + 1e-6), rtol=1e-5)
    small = symgrad.Tensor(X * 1e-3)
    assert symgrad.ops.clip_by_norm(small, 10.0) is small  # under max_norm: the input itself


def test_interpolate_by_scale_factor_against_pytorch():
    """MindSpore 2.10 refuses scale_factor for these modes; PyTorch's F.interpolate is the reference."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for scale_factor")
    for mode, x, factor in (("bilinear", X4, (1.5, 2.0)), ("nearest", X, 2.0), ("linear", X, 0.6)):
        ours = symgrad.ops.interpolate(symgrad.Tensor(x), scale_factor=factor, mode=mode).asnumpy()
        theirs = torch.nn.functional.interpolate(torch.tensor(x), scale_factor=factor, mode=mode).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6, err_msg=mode)
    with pytest.raises(ValueError):
        symgrad.ops.interpolate(symgrad.Tensor(X4), size=(2, 2), mode="trilinear")


CONV_CELLS = [
    ("Conv2dTranspose", (2, 3, 3), {}, (2, 2, 4, 5)),
    ("Conv2dTranspose", (2, 3, (2, 3)), {"stride": 2, "pad_mode": "valid", "has_bias": True}, (2, 2, 4, 5)),
    ("Conv2dTranspose", (2, 3, 1), {"stride": 3, "pad_mode": "valid"}, (1, 2, 3, 3)),
    ("Conv2dTranspose", (2, 3, 3), {"stride": 2, "pad_mode": "pad", "padding": (1, 0, 2, 1), "has_bias": True}, (2, 2, 4, 5)),
    ("Conv2dTranspose", (2, 4, 3),
     {"stride": 2, "pad_mode": "pad", "padding": 1, "output_padding": 1, "has_bias": True, "group": 2}, (2, 2, 4, 5)),
    ("Conv2dTranspose", (2, 3, 3), {"stride": 2, "dilation": 2}, (1, 2, 3, 4)),
    ("Conv3d", (2, 3, 3), {}, (1, 2, 4, 5, 5)),
    ("Conv3d", (2, 3, (2, 3, 1)), {"stride": 2, "pad_mode": "pad", "padding": (1, 0, 1, 1, 0, 2), "has_bias": True},
     (1, 2, 4, 5, 5)),
    ("Conv3d", (2, 4, 3), {"pad_mode": "valid", "group": 2, "dilation": (1, 2, 1)}, (1, 2, 4, 6, 5)),
    ("Conv3dTranspose", (2, 3, 3), {"stride": 2}, (1, 2, 3, 4, 4)),
    ("Conv3dTranspose", (2, 3, 3), {"stride": 2, "pad_mode": "pad", "padding": 1, "output_padding": 1, "has_bias": True},
     (1, 2, 3, 4, 4)),
    ("Conv3dTranspose", (2, 3, 2), {"stride": 2, "pad_mode": "valid"}, (1, 2, 3, 4, 4)),
]  # fmt: skip


def _conv_cell_results(L, cls, args, kw, x, w, b):
    net = getattr(L.nn, cls)(*args, **kw)
    assert net.weight.shape == w.shape
    net.weight.set_data(L.T(w))
    if kw.get("has_bias"):
        net.bias.set_data(L.T(b))
    out = net(L.T(x))
    weights = L.T(np.resize(np.linspace(-1, 1, 97).astype(np.float32), out.shape))
    dx, dws = L.ops.grad(lambda t: (net(t) * weights).sum(), 0, net.trainable_params())(L.T(x))
    return [out.asnumpy(), dx.asnumpy()] + [g.asnumpy() for g in dws]


@needs_mindspore
@pytest.mark.parametrize("cls, args, kw, shape", CONV_CELLS)
def test_conv_transpose_and_3d_cells_match_mindspore(cls, args, kw, shape):
    rng = np.random.default_rng(3)
    w = rng.normal(size=getattr(symgrad.nn, cls)(*args, **kw).weight.shape).astype(np.float32)
    b, x = rng.normal(size=(args[1],)).astype(np.float32), rng.normal(size=shape).astype(np.float32)
    ours = _conv_cell_results(library("symgrad"), cls, args, kw, x, w, b)
    theirs = _conv_cell_results(library("mindspore"), cls, args, kw, x, w, b)
    assert [a.shape for a in ours] == [a.shape for a in theirs]
    for a, c in zip(ours, theirs):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-4)


@needs_mindspore
def test_prelu_and_small_helpers_match_mindspore():
    x4 = X4 * 3
    results = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        net = L.nn.PReLU(2, 0.1)
        assert [p.name for p in net.trainable_params()] == ["a"]
        out = net(L.T(x4))
        dx, (dw,) = L.ops.grad(
            lambda t, n=net, tensor=L.T: (n(t) * tensor(X4)).sum(), 0, net.trainable_params()
        )(L.T(x4))
        eps = L.ops.Eps()(L.T(X))
        p = L.ms.Parameter(L.T(np.zeros(3, np.float32)), name="p")
        L.ops.assign(p, L.T(np.arange(3, dtype=np.float32)))
        assert L.ops.make_range(1, 7, 2) == (1, 3, 5) and L.ops.partial(lambda a, b: a - b, 5)(3) == 2
        results.append((out.asnumpy(), dx.asnumpy(), dw.asnumpy(), eps.asnumpy(), p.asnumpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@needs_mindspore
@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"momentum": 0.9},
        {"centered": True, "momentum": 0.5, "weight_decay": 0.01},
        {"loss_scale": 2.0, "decay": 0.5},
    ],
)
def test_rmsprop_matches_mindspore(kw):
    w0, x = RNG.normal(size=(3, 5)).astype(np.float32), X[0]
    weights = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        net = L.nn.Dense(5, 3, has_bias=False)
        net.weight.set_data(L.T(w0))
        opt = L.nn.RMSProp(net.trainable_params(), learning_rate=0.01, **kw)
        step = L.nn.TrainOneStepCell(L.nn.WithLossCell(net, L.nn.MSELoss()), opt)
        for _ in range(3):
            step(L.T(x), L.T(np.zeros((3, 3), np.float32)))
        weights.append(net.weight.asnumpy())
    np.testing.assert_allclose(weights[0], weights[1], rtol=1e-6, atol=1e-7)
    with pytest.raises(TypeError):
        symgrad.nn.RMSProp(symgrad.nn.Dense(2, 2).trainable_params(), decay=1)


@needs_mindspore
def test_model_train_eval_predict_match_mindspore(capsys):
    import mindspore.dataset as ds

    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(12, 4)).astype(np.float32), rng.integers(0, 3, 12).astype(np.int32)
    w0, b0 = rng.normal(size=(3, 4)).astype(np.float32), rng.normal(size=(3,)).astype(np.float32)
    batches = [(x[i : i + 4], y[i : i + 4]) for i in range(0, 12, 4)]
    steps, results = [], []
    for name in ("symgrad", "mindspore"):
        L = library(name)

        def dataset(name=name):  # MindSpore's Model takes its own datasets; symgrad's any iterable of batches
            if name == "symgrad":
                return batches
            return ds.GeneratorDataset(batches, column_names=["data", "label"], shuffle=False)

        class Count(L.ms.train.Callback):
            def on_train_step_end(self, run_context, name=name):
                p = run_context.original_args()
                steps.append((name, p.cur_epoch_num, p.cur_step_num, p.batch_num, p.epoch_num))

        net = L.nn.Dense(4, 3)
        net.weight.set_data(L.T(w0))
        net.bias.set_data(L.T(b0))
        loss = L.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        model = L.ms.train.Model(
            net, loss, L.nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"accuracy", "loss"}
        )
        capsys.readouterr()
        model.train(2, dataset(), callbacks=[Count(), L.ms.train.LossMonitor(2)])
        printed = capsys.readouterr().out
        evaluated = model.eval(dataset())
        results.append((printed, evaluated, model.predict(L.T(x[:2])).asnumpy(), net.weight.asnumpy()))
    ours, theirs = results
    assert [s[1:] for s in steps if s[0] == "symgrad"] == [s[1:] for s in steps if s[0] == "mindspore"]
    lines = [[line.rsplit(" ", 1) for line in r[0].splitlines()] for r in results]
    assert [a for a, _ in lines[0]] == [a for a, _ in lines[1]] and len(lines[0]) == 3
    np.testing.assert_allclose([float(v) for _, v in lines[0]], [float(v) for _, v in lines[1]], rtol=1e-5)
    assert sorted(ours[1]) == sorted(theirs[1]) == ["accuracy", "loss"]
    for key in ("accuracy", "loss"):
        np.testing.assert_allclose(ours[1][key], theirs[1][key], rtol=1e-5)
    for a, b in zip(ours[2:], theirs[2:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError):
        symgrad.Model(symgrad.nn.Dense(4, 3)).eval(batches)


@needs_mindspore
def test_parallel_context_on_one_device_matches_mindspore():
    """What MindSpore 2.10 stores and reads back on one CPU device; nothing runs in parallel."""
    seen = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        ms = L.ms
        assert ms.ParallelMode.DATA_PARALLEL == "data_parallel" and len(ms.ParallelMode.MODE_LIST) == 5
        before = [ms.get_auto_parallel_context(k) for k in ("parallel_mode", "gradients_mean", "device_num")]
        ms.set_auto_parallel_context(
            parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=4
        )
        after = [ms.get_auto_parallel_context(k) for k in ("parallel_mode", "gradients_mean", "device_num")]
        net = L.nn.Dense(3, 2)
        reducer = L.nn.DistributedGradReducer(net.trainable_params())
        mean, degree = reducer.mean, reducer.degree
        for bad, kind in ((dict(parallel_mode="foo"), ValueError), (dict(bogus=1), ValueError),
                          (dict(gradients_mean=1), TypeError), (dict(device_num=0), ValueError)):  # fmt: skip
            with pytest.raises(kind):
                ms.set_auto_parallel_context(**bad)
        with pytest.raises(ValueError):
            L.nn.DistributedGradReducer(net.trainable_params(), degree=0)
        ms.reset_auto_parallel_context()
        seen.append((before, after, bool(mean), float(degree.asnumpy() if hasattr(degree, "asnumpy") else degree),
                     ms.get_auto_parallel_context("parallel_mode")))  # fmt: skip
    assert seen[0][:3] == seen[1][:3] and seen[0][4] == seen[1][4] == "stand_alone"
    assert (
        seen[0][3] == 1 and seen[1][3] == 1.0
    )  # MindSpore stores 1 / degree, symgrad the degree: one device


def test_distributed_grad_reducer_on_one_device_is_the_gradient_over_degree():
    """MindSpore 2.10 builds the reducer on a CPU but crashes (SIGSEGV) calling it without
    ``communication.init()``; on one device AllReduce is the identity, so the reference is arithmetic."""
    grads = (symgrad.Tensor(X), symgrad.Tensor(W.astype(np.float16)))
    same = symgrad.nn.DistributedGradReducer([])(grads)
    assert [g.dtype for g in same] == [symgrad.float32, symgrad.float16]
    np.testing.assert_array_equal(same[0].asnumpy(), X)
    halved = symgrad.nn.DistributedGradReducer([], mean=True, degree=2)(grads)
    np.testing.assert_allclose(halved[1].asnumpy(), (W / 2).astype(np.float16))


@needs_mindspore
def test_random_ops_shapes_dtypes_and_ranges_match_mindspore():
    """Values differ by generator; shapes, dtypes and ranges are MindSpore's, and seeded draws repeat."""
    i32 = np.int32
    calls = {
        "normal": lambda L: L.ops.normal((2, 3), 1.0, 2.0),
        "standard_normal": lambda L: L.ops.standard_normal((4,)),
        "rand": lambda L: L.ops.rand(2, 3),
        "randn_like": lambda L: L.ops.randn_like(L.T(X)),
        "randint": lambda L: L.ops.randint(0, 5, (3, 2)),
        "uniform": lambda L: L.ops.uniform(
            (2, 2), L.T(np.array(1.0, np.float32)), L.T(np.array(2.0, np.float32))
        ),
        "uniform int": lambda L: L.ops.uniform(
            (5,), L.T(np.array(1, i32)), L.T(np.array(4, i32)), dtype=L.ms.int32
        ),
        "UniformReal": lambda L: L.ops.UniformReal(seed=2)((3, 4)),
        "UniformInt": lambda L: L.ops.UniformInt()((6,), L.T(np.array(1, i32)), L.T(np.array(3, i32))),
    }
    for case, call in calls.items():
        outs = [call(library(name)) for name in ("symgrad", "mindspore")]
        assert [o.shape for o in outs] == [outs[1].shape] * 2 and str(outs[0].dtype) == str(outs[1].dtype), (
            case
        )
    draws = symgrad.ops.normal((20000,), 1.0, 2.0).asnumpy()
    assert abs(draws.mean() - 1.0) < 0.05 and abs(draws.std() - 2.0) < 0.05
    ints = symgrad.ops.UniformInt()(
        (1000,), symgrad.Tensor(np.array(1, i32)), symgrad.Tensor(np.array(3, i32))
    )
    assert set(np.unique(ints.asnumpy())) == {1, 2}
    symgrad.set_seed(5)
    first = (symgrad.ops.rand(3).asnumpy(), symgrad.ops.UniformReal(seed=1)((2,)).asnumpy())
    symgrad.set_seed(5)
    np.testing.assert_array_equal(first[0], symgrad.ops.rand(3).asnumpy())
    np.testing.assert_array_equal(first[1], symgrad.ops.UniformReal(seed=1)((2,)).asnumpy())


@needs_mindspore
def test_numpy_isin_matches_mindspore():
    a, b = np.array([[1, 2], [3, 4]], np.int32), np.array([2, 4, 7], np.int32)
    outs = []
    for name in ("symgrad", "mindspore"):
        L = library(name)
        outs.append([L.np.isin(L.T(a), L.T(b)).asnumpy(), L.np.isin(L.T(a), [2, 5], invert=True).asnumpy()])
    for x, y in zip(*outs):
        assert x.dtype == y.dtype == np.bool_
        np.testing.assert_array_equal(x, y)


@needs_mindspore
def test_dense_and_conv_default_initial_weights_are_mindspores():
    """MindSpore 2.10: weight HeUniform(sqrt(5)) and bias Uniform(1/sqrt(fan_in)), both in +-1/sqrt(fan_in)."""
    for name in ("symgrad", "mindspore"):
        L = library(name)
        L.ms.set_seed(0)
        for net, fan_in in ((L.nn.Dense(16, 400), 16), (L.nn.Conv2d(4, 300, 3, has_bias=True), 36),
                            (L.nn.Conv2dTranspose(4, 300, 3, has_bias=True), 2700)):  # fmt: skip
            bound = 1 / np.sqrt(fan_in)
            for p in (net.weight, net.bias):
                v = p.asnumpy()
                assert np.abs(v).max() <= bound and np.abs(v).max() > 0.9 * bound, (name, type(net), p.shape)
                assert abs(v.std() - bound / np.sqrt(3)) < 0.15 * bound, (name, type(net), p.shape)


def test_the_parallel_context_is_reachable_as_mindflow_imports_it():
    """``from mindspore.context import ParallelMode`` and ``context.set_auto_parallel_context``."""
    from symgrad import context
    from symgrad.context import ParallelMode

    context.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL)
    try:
        assert context.get_auto_parallel_context("parallel_mode") == "data_parallel"
    finally:
        context.reset_auto_parallel_context()
    assert context.get_auto_parallel_context("parallel_mode") == "stand_alone"
    with pytest.raises(AttributeError, match="no attribute 'set_auto_parallel'"):
        context.set_auto_parallel  # noqa: B018 - the attribute lookup is the test
