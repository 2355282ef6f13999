"""MindSpore 2.10's layers (pooling, Flatten, Dropout, Embedding, CellList, LSTM, GRU) and checkpoints.

The numbers asserted directly were computed by real MindSpore 2.10 on the CPU, so these tests run
without it; where MindSpore is installed the ``*_as_mindspore`` tests also run both libraries on the
same inputs and weights and compare values, gradients, Parameter names, errors and checkpoint files.
"""

from __future__ import annotations

import contextlib
import importlib.util
import itertools
import os
import stat
import warnings
from collections import OrderedDict
from pathlib import Path

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None
needs_mindspore = pytest.mark.skipif(
    not HAS_MINDSPORE, reason="MindSpore is not installed (pip install mindspore)"
)


@pytest.fixture(scope="module")
def ms():
    """Real MindSpore, warmed up: under NumPy 2 its first op that converts a shape fails once (an
    import inside MindSpore 2.10), later ones work."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindspore

        mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
        with contextlib.suppress(Exception):
            mindspore.ops.reshape(mindspore.Tensor(np.zeros(2, np.float32)), (-1,))
    return mindspore


@pytest.fixture
def quiet():
    """MindSpore warns and logs freely; the comparisons are about numbers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def weighted_grad(lib, cell, x):
    """The output of ``cell`` (the first of a tuple) and the gradient of sum(output * w), w = 1, 2, ..."""
    out = cell(x)
    first = out[0] if isinstance(out, tuple) else out
    w = lib.Tensor((np.arange(first.size, dtype=np.float32) % 5 + 1).reshape(first.shape))

    def loss(t):
        y = cell(t)
        return lib.ops.mul(y[0] if isinstance(y, tuple) else y, w).sum()

    results = [first.asnumpy(), lib.ops.grad(loss)(x).asnumpy()]
    return results + ([out[1].asnumpy()] if isinstance(out, tuple) else [])


# ----- pooling -----

PLANE = Tensor((np.arange(25, dtype=np.float32) % 7).reshape(1, 1, 5, 5))


def test_max_pool_valid_gives_each_window_maximum_its_gradient():
    out, grad = weighted_grad(symgrad, nn.MaxPool2d(kernel_size=2, stride=2), PLANE)
    np.testing.assert_array_equal(out[0, 0], [[6, 3], [4, 6]])
    expected = np.zeros((5, 5), np.float32)
    expected[0, 3], expected[1, 1], expected[2, 1], expected[2, 3] = 2, 1, 3, 4
    np.testing.assert_array_equal(grad[0, 0], expected)


def test_max_pool_ties_send_the_gradient_to_the_first_maximum():
    x = Tensor(np.array([[[[1, 3], [3, 2]]]], np.float32))
    for pool in (nn.MaxPool2d(2, 2), nn.MaxPool2d(2, 2, pad_mode="pad", padding=0)):
        np.testing.assert_array_equal(
            ops.grad(lambda t, p=pool: p(t).sum())(x).asnumpy(), [[[[0, 1], [0, 0]]]]
        )


def test_same_mode_pads_at_the_end_and_averages_real_elements_only():
    out, grad = weighted_grad(symgrad, nn.MaxPool2d(2, 2, pad_mode="same"), PLANE)
    np.testing.assert_array_equal(out[0, 0], [[6, 3, 4], [4, 6, 5], [6, 2, 3]])
    np.testing.assert_array_equal(grad[0, 0, 4], [2, 0, 0, 3, 4])  # the padding (-inf) is never picked
    out, grad = weighted_grad(symgrad, nn.AvgPool2d(2, 2, pad_mode="same"), PLANE)
    np.testing.assert_allclose(out[0, 0], [[3, 1.5, 3], [2.5, 4.5, 2.5], [3, 1.5, 3]])
    # the last column: weights 3, 1, 4 over windows of 2, 2 and 1 real elements
    np.testing.assert_allclose(grad[0, 0, :, 4], [1.5, 1.5, 0.5, 0.5, 4])


def test_pad_mode_counts_padding_as_pytorch_does():
    out, grad = weighted_grad(symgrad, nn.MaxPool2d(3, 2, pad_mode="pad", padding=1), PLANE)
    np.testing.assert_array_equal(out[0, 0], [[6, 6, 4], [6, 6, 6], [6, 4, 5]])
    np.testing.assert_array_equal(grad[0, 0, 1], [0, 12, 0, 0, 0])
    out, _ = weighted_grad(symgrad, nn.AvgPool2d(3, 2, pad_mode="pad", padding=1), PLANE)
    np.testing.assert_allclose(out[0, 0, 0], [12 / 9, 13 / 9, 10 / 9], rtol=1e-6)
    out, _ = weighted_grad(
        symgrad, nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, count_include_pad=False), PLANE
    )
    np.testing.assert_allclose(out[0, 0, 0], [3, 13 / 6, 2.5], rtol=1e-6)
    out, _ = weighted_grad(symgrad, nn.AvgPool2d(3, 2, pad_mode="pad", padding=1, divisor_override=3), PLANE)
    np.testing.assert_allclose(out[0, 0, 0], [4, 13 / 3, 10 / 3], rtol=1e-6)


def test_max_pool_returns_int64_positions_in_the_input_plane():
    x = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    out, where = nn.MaxPool2d(2, 2, pad_mode="pad", padding=1, return_indices=True)(x)
    np.testing.assert_array_equal(out.asnumpy()[0, 0], [[0, 2, 3], [8, 10, 11], [12, 14, 15]])
    assert where.dtype == symgrad.int64
    np.testing.assert_array_equal(where.asnumpy()[0, 0], [[0, 2, 3], [8, 10, 11], [12, 14, 15]])


def test_unbatched_inputs_and_one_dimensional_pools():
    x = Tensor(np.array([[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]], np.float32))  # (C, L)
    np.testing.assert_array_equal(nn.MaxPool1d(3, 2)(x).asnumpy(), [[4, 5, 9]])
    np.testing.assert_allclose(nn.AvgPool1d(3, 2, pad_mode="same")(x).asnumpy(), [[2, 2, 5, 5.5]])
    assert nn.MaxPool2d(2, 2)(Tensor(np.ones((3, 4, 4), np.float32))).shape == (3, 2, 2)
    assert nn.AvgPool2d(2, 2)(Tensor(np.ones((1, 1, 4, 4), np.float16))).dtype == symgrad.float16


def test_pooling_errors_are_mindspores_kinds():
    x = Tensor(np.ones((1, 1, 6, 7), np.float32))
    with pytest.raises(TypeError):
        nn.MaxPool2d(kernel_size=2.0)
    for bad in (dict(kernel_size=0), dict(pad_mode="full"), dict(padding=1), dict(data_format="NHWC")):
        for cls in (nn.MaxPool2d, nn.AvgPool2d):
            with pytest.raises(ValueError):
                cls(**{"kernel_size": 2, **bad})
    with pytest.raises(ValueError):
        nn.MaxPool1d(1, 1, pad_mode="pad", padding=1)  # padding past half the kernel
    with pytest.raises(ValueError):
        nn.MaxPool2d(8)(x)  # no window fits
    with pytest.raises(RuntimeError):
        nn.AvgPool2d(8)(x)
    with pytest.raises(ValueError):
        nn.MaxPool2d(2)(Tensor(np.ones((4, 4), np.float32)))
    with pytest.raises(TypeError):
        nn.MaxPool2d(2)(Tensor(np.ones((1, 1, 4, 4), np.int32)))


POOL_CASES = [
    *(
        (cls, dict(kernel_size=k, stride=s, pad_mode=mode), (2, 2, 6, 7))
        for cls, k, s, mode in itertools.product(
            ("MaxPool2d", "AvgPool2d"), (2, 3, (2, 3)), (1, 2, (2, 1)), ("valid", "same")
        )
    ),
    *(
        (cls, dict(kernel_size=k, stride=s, pad_mode="pad", padding=p, ceil_mode=c, **extra), (1, 2, 6, 7))
        for cls, extra in (
            ("MaxPool2d", {}),
            ("MaxPool2d", {"dilation": 2}),
            ("MaxPool2d", {"return_indices": True}),
            ("AvgPool2d", {}),
            ("AvgPool2d", {"count_include_pad": False}),
            ("AvgPool2d", {"divisor_override": 2}),
        )
        for k, s, p, c in itertools.product((3, (3, 2)), (2, 3), (1, (1, 0)), (False, True))
    ),
    *(
        (cls, dict(kernel_size=3, stride=2, pad_mode=mode, **extra), (2, 3, 8))
        for cls, extra in (("MaxPool1d", {}), ("AvgPool1d", {}), ("AvgPool1d", {"count_include_pad": False}))
        for mode in ("same", "pad")
    ),
    ("AvgPool1d", dict(kernel_size=3, stride=2), (3, 8)),
    ("AvgPool2d", dict(kernel_size=3, stride=2, pad_mode="same", ceil_mode=True), (1, 2, 5, 7)),
    ("MaxPool2d", dict(kernel_size=2, stride=2, pad_mode="pad", padding=1), (2, 5, 5)),
]


@needs_mindspore
@pytest.mark.parametrize(
    "cls, kwargs, shape", POOL_CASES, ids=lambda v: str(v) if isinstance(v, tuple) else None
)
def test_pooling_as_mindspore(ms, quiet, cls, kwargs, shape):
    x = np.random.default_rng(sum(shape)).integers(-4, 5, shape).astype(np.float32)  # many ties
    expected = weighted_grad(ms, getattr(ms.nn, cls)(**kwargs), ms.Tensor(x))
    got = weighted_grad(symgrad, getattr(nn, cls)(**kwargs), Tensor(x))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-6)


# ----- Flatten, Dropout, Embedding -----


def test_flatten_merges_the_axes_from_start_dim_to_end_dim():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, -2)(x).shape == (6, 4)
    assert nn.Flatten(1, 1)(x) is x
    assert nn.Flatten(0)(Tensor(np.float32(2.0))).shape == (1,)
    np.testing.assert_array_equal(
        ops.grad(lambda t: ops.square(nn.Flatten()(t)).sum())(x).asnumpy(), 2 * x.asnumpy()
    )
    with pytest.raises(ValueError):
        nn.Flatten()(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError):
        nn.Flatten(2, 1)(x)
    with pytest.raises(TypeError):
        nn.Flatten(1.0)(x)


def test_dropout_is_the_identity_outside_training():
    x = Tensor(np.ones((4, 5), np.float32))
    drop = nn.Dropout(p=0.5)
    assert drop(x) is x
    assert nn.Dropout(p=0).set_train()(x) is x
    assert nn.Dropout(keep_prob=1.0).set_train()(x) is x
    assert nn.Dropout(p=0.5).set_train().set_train(False)(x) is x


def test_dropout_in_training_keeps_one_minus_p_and_scales_by_its_inverse():
    nn.set_seed(7)
    x = Tensor(np.full((400, 250), 2.0, np.float32))
    drop = nn.Dropout(p=0.2).set_train()
    out = drop(x).asnumpy()
    assert set(np.unique(out)) == {0.0, np.float32(2.5)}
    assert abs((out == 0).mean() - 0.2) < 0.005  # 100000 draws: the standard deviation is 0.0013
    again = drop(x).asnumpy()
    assert not np.array_equal(out, again)  # a new mask on each call
    grad = ops.grad(lambda t: drop(t).sum())(x).asnumpy()
    assert set(np.unique(grad)) == {0.0, np.float32(1.25)}  # the mask of that call, scaled
    keep = nn.Dropout(keep_prob=0.75).set_train()(x).asnumpy()  # MindSpore's deprecated form
    assert set(np.unique(keep)) == {0.0, np.float32(2 / 0.75)}
    nn.set_seed(7)
    np.testing.assert_array_equal(nn.Dropout(p=0.2).set_train()(x).asnumpy(), out)  # seeded
    assert nn.Dropout(p=0.5).set_train()(Tensor(np.ones(3, np.float16))).dtype == symgrad.float16


def test_a_jitted_dropout_draws_a_new_mask_on_each_call():
    x = Tensor(np.ones((50, 50), np.float32))
    drop = nn.Dropout(p=0.5).set_train()
    step = symgrad.jit(lambda t: drop(t).sum())
    totals = {float(step(x).asnumpy()) for _ in range(3)}
    assert len(totals) == 3


def test_dropout_arguments_as_mindspore_checks_them():
    for bad, kind in (
        (dict(p=1), ValueError),
        (dict(p=-0.1), ValueError),
        (dict(p="a"), TypeError),
        (dict(keep_prob=1), TypeError),
        (dict(keep_prob=0.0), ValueError),
    ):
        with pytest.raises(kind):
            nn.Dropout(**bad)
    with pytest.raises(TypeError):
        nn.Dropout(p=0.5).set_train()(Tensor(np.ones(3, np.int32)))


def test_embedding_picks_rows_and_sends_their_gradients_to_the_table():
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    embed = nn.Embedding(5, 3, embedding_table=Tensor(table), padding_idx=1)
    assert embed.embedding_table.name == "embedding_table"
    np.testing.assert_array_equal(embed.embedding_table.asnumpy()[1], [0, 0, 0])  # padding row zeroed
    ids = Tensor(np.array([[0, 1, 1], [4, 2, 1]], np.int32))
    out = embed(ids)
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(out.asnumpy()[1, 0], [12, 13, 14])
    w = Tensor(np.arange(18, dtype=np.float32).reshape(2, 3, 3))
    (grad,) = ops.grad(lambda t: ops.mul(embed(t), w).sum(), None, embed.trainable_params())(ids)
    # as MindSpore: repeated ids add up, and the padding row is trained like the others
    np.testing.assert_array_equal(
        grad.asnumpy(), [[0, 1, 2], [24, 27, 30], [12, 13, 14], [0, 0, 0], [9, 10, 11]]
    )
    assert embed(Tensor(np.int64(2))).shape == (3,)
    with pytest.raises(RuntimeError):
        embed(Tensor(np.array([5], np.int32)))
    with pytest.raises(TypeError):
        embed(Tensor(np.array([1.0], np.float32)))
    with pytest.raises(ValueError):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(TypeError):
        nn.Embedding(5.0, 3)


@needs_mindspore
def test_flatten_dropout_and_embedding_as_mindspore(ms, quiet):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for args in ((), (1, 1), (2, 1), (3,), (1.0,)):
        results = []
        for lib in (ms, symgrad):
            try:
                results.append(lib.nn.Flatten(*args)(lib.Tensor(x)).shape)
            except (TypeError, ValueError) as exc:
                results.append(type(exc))
        assert results[0] == results[1], args
    for lib in (ms, symgrad):
        out = lib.nn.Dropout(p=0.2).set_train()(lib.Tensor(np.ones((100, 100), np.float32))).asnumpy()
        assert set(np.unique(out)) == {0.0, np.float32(1.25)} and abs((out == 0).mean() - 0.2) < 0.02
    table = np.sin(np.arange(15, dtype=np.float32)).reshape(5, 3)
    ids = np.array([[0, 1, 1], [4, 2, 1]], np.int32)
    results = []
    for lib in (ms, symgrad):
        embed = lib.nn.Embedding(5, 3, embedding_table=lib.Tensor(table), padding_idx=2)
        w = lib.Tensor(np.cos(np.arange(18, dtype=np.float32)).reshape(2, 3, 3))
        loss = lambda t, e=embed, w=w, lib=lib: lib.ops.mul(e(t), w).sum()  # noqa: E731
        (grad,) = lib.ops.grad(loss, None, embed.trainable_params())(lib.Tensor(ids))
        results.append((embed(lib.Tensor(ids)).asnumpy(), grad.asnumpy(), embed.embedding_table.asnumpy()))
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_allclose(got, expected, rtol=1e-6)


# ----- containers -----


def names(cell) -> list[str]:
    return [p.name for p in cell.get_parameters()]


def container_story(lib) -> list:
    """Parameter names through CellList/SequentialCell edits, as MindSpore 2.10 names them."""
    nn_ = lib.nn
    out: list = []
    cells = nn_.CellList([nn_.Dense(2, 3), nn_.ReLU(), nn_.Dense(3, 4)])
    out.append(names(cells))
    cells.append(nn_.Dense(4, 5))
    cells.extend([nn_.Dense(5, 6), nn_.Tanh()])
    cells.insert(1, nn_.Dense(3, 3))
    out.append(names(cells))
    out.append((len(cells), [type(c).__name__ for c in cells], type(cells[-1]).__name__))
    del cells[1]
    out.append(names(cells))
    del cells[0:2]
    out.append(names(cells))

    class Net(nn_.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn_.CellList([nn_.Dense(2, 3), nn_.Dense(3, 4)])
            self.seq = nn_.SequentialCell([nn_.Dense(4, 4), nn_.ReLU()])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return self.seq(x)

    net = Net()
    net.layers.append(nn_.Dense(4, 4))
    net.seq.append(nn_.Dense(4, 2))
    out.append(names(net))
    net.layers.insert(0, nn_.Dense(2, 2))
    del net.layers[1]
    out.append(names(net))
    ordered = nn_.SequentialCell(
        OrderedDict([("fc", nn_.Dense(1, 2)), ("act", nn_.ReLU()), ("out", nn_.Dense(2, 1))])
    )
    ordered.append(nn_.Dense(1, 1))
    out.append(names(ordered))
    out.append(names(ordered[1:]))
    return out


def test_cell_lists_name_parameters_as_mindspore():
    story = container_story(symgrad)
    assert story[0] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert story[1] == [f"{i}.{w}" for i in (0, 1, 3, 4, 5) for w in ("weight", "bias")]
    assert story[2] == (7, ["Dense", "Dense", "ReLU", "Dense", "Dense", "Dense", "Tanh"], "Tanh")
    assert story[3] == [f"{i}.{w}" for i in (0, 2, 3, 4) for w in ("weight", "bias")]
    assert story[4] == [f"{i}.{w}" for i in (0, 1, 2) for w in ("weight", "bias")]
    assert story[5] == [f"layers.{i}.{w}" for i in (0, 1, 2) for w in ("weight", "bias")] + [
        "seq.0.weight",
        "seq.0.bias",
        "seq.2.weight",
        "seq.2.bias",
    ]
    assert story[6] == story[5]  # inserting then deleting the first cell renumbers back
    assert story[7] == ["fc.weight", "fc.bias", "out.weight", "out.bias", "3.weight", "3.bias"]
    assert story[8] == ["out.weight", "out.bias", "3.weight", "3.bias"]


def test_a_cell_list_trains_its_cells():
    nn.set_seed(0)
    cells = nn.CellList([nn.Dense(2, 3, activation="tanh"), nn.Dense(3, 1)])

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cells = cells

        def construct(self, x):
            for cell in self.cells:
                x = cell(x)
            return x

    net = Net()
    x = Tensor(np.array([[0.5, -1.0]], np.float32))
    grads = ops.grad(lambda t: net(t).sum(), None, net.trainable_params())(x)
    assert [p.name for p in net.trainable_params()] == [
        "cells.0.weight",
        "cells.0.bias",
        "cells.1.weight",
        "cells.1.bias",
    ]
    assert [g.shape for g in grads] == [(3, 2), (3,), (1, 3), (1,)]
    with pytest.raises(NotImplementedError):
        cells(x)
    with pytest.raises(IndexError):
        cells[5]
    with pytest.raises(TypeError):
        cells.append(3)
    with pytest.raises(TypeError):
        nn.SequentialCell((nn.ReLU(),))  # MindSpore takes a list, an OrderedDict or cells


@needs_mindspore
def test_containers_as_mindspore(ms, quiet):
    assert container_story(symgrad) == container_story(ms)


# ----- LSTM and GRU -----


def fill(net) -> None:
    """Deterministic weights (the same in both libraries)."""
    for k, p in enumerate(net.get_parameters()):
        p.set_data(Tensor((np.sin(np.arange(p.size) * 0.7 + k) * 0.4).astype(np.float32).reshape(p.shape)))


SEQUENCE = (np.cos(np.arange(18) * 0.9) * 0.8).astype(np.float32).reshape(3, 2, 3)  # (seq, batch, input)


def test_lstm_weights_are_named_and_shaped_as_mindspores():
    net = nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    expected = [
        (f"{kind}_l{layer}{suffix}", shape(layer))
        for kind, shape in (
            ("weight_ih", lambda k: (16, 3 if k == 0 else 8)),
            ("weight_hh", lambda k: (16, 4)),
            ("bias_ih", lambda k: (16,)),
            ("bias_hh", lambda k: (16,)),
        )
        for layer in (0, 1)
        for suffix in ("", "_reverse")
    ]
    assert [(p.name, p.shape) for p in net.get_parameters()] == expected
    bound = 1 / np.sqrt(4)
    assert all(np.abs(p.asnumpy()).max() <= bound for p in net.get_parameters())
    assert [p.name for p in nn.GRU(3, 2, has_bias=False).get_parameters()] == ["weight_ih_l0", "weight_hh_l0"]


def test_lstm_and_gru_values_as_mindspore_computed_them():
    lstm = nn.LSTM(3, 2, bidirectional=True)
    fill(lstm)
    out, (h, c) = lstm(Tensor(SEQUENCE))
    np.testing.assert_allclose(
        out.asnumpy()[-1],
        [[0.2139401, -0.0328534, -0.0545696, 0.006672], [0.1163042, 0.1952517, 0.0921442, -0.0771906]],
        atol=2e-6,
    )
    np.testing.assert_allclose(h.asnumpy()[1], [[0.0146976, -0.0968586], [0.1091664, 0.0663662]], atol=2e-6)
    np.testing.assert_allclose(c.asnumpy()[0], [[0.3580946, -0.080701], [0.2857338, 0.405562]], atol=2e-6)
    grad = ops.grad(lambda t: ops.square(lstm(t)[0]).sum())(Tensor(SEQUENCE))
    np.testing.assert_allclose(
        grad.asnumpy()[0], [[0.0473823, 0.0377512, 0.0103652], [0.0072177, -0.0041982, -0.0136396]], atol=2e-6
    )
    gru = nn.GRU(3, 2, bidirectional=True)
    fill(gru)
    out, h = gru(Tensor(SEQUENCE))
    np.testing.assert_allclose(
        out.asnumpy()[-1],
        [[0.3603531, -0.0449926, -0.0489964, 0.0773173], [0.3156692, 0.4775054, 0.2720975, -0.0567314]],
        atol=2e-6,
    )
    np.testing.assert_allclose(h.asnumpy()[1], [[0.0932553, -0.0462503], [0.4775341, 0.2127651]], atol=2e-6)
    grad = ops.grad(lambda t: ops.square(gru(t)[0]).sum())(Tensor(SEQUENCE))
    np.testing.assert_allclose(
        grad.asnumpy()[0],
        [[0.2516646, 0.1265117, -0.0581416], [-0.1360251, -0.2696522, -0.2764576]],
        atol=2e-6,
    )


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_recurrent_gradients_match_finite_differences(cls):
    nn.set_seed(3)
    net = getattr(nn, cls)(2, 3, num_layers=2, batch_first=True, bidirectional=True, dtype=symgrad.float64)
    x = np.random.default_rng(0).normal(size=(2, 4, 2))  # (batch, seq, input), float64
    w = np.random.default_rng(1).normal(size=(2, 4, 6))

    def loss(t):
        out, state = net(t)
        h = state[0] if cls == "LSTM" else state
        return ops.mul(out, Tensor(w)).sum() + ops.square(h).sum()

    grad_x, grad_w = ops.grad(loss, 0, net.trainable_params())(Tensor(x))
    value = lambda: float(loss(Tensor(x)).asnumpy())  # noqa: E731
    eps = 1e-6
    for index in [(0, 0, 0), (1, 3, 1), (0, 2, 1)]:
        bumped = x.copy()
        bumped[index] += eps
        up = float(loss(Tensor(bumped)).asnumpy())
        bumped[index] -= 2 * eps
        down = float(loss(Tensor(bumped)).asnumpy())
        assert grad_x.asnumpy()[index] == pytest.approx((up - down) / (2 * eps), rel=1e-6, abs=1e-8)
    for p, g in list(zip(net.trainable_params(), grad_w))[::3]:
        data = p.asnumpy().copy()
        flat = data.reshape(-1)
        for i in (0, flat.size - 1):
            flat[i] += eps
            p.set_data(data)
            up = value()
            flat[i] -= 2 * eps
            p.set_data(data)
            down = value()
            flat[i] += eps
            p.set_data(data)
            assert g.asnumpy().reshape(-1)[i] == pytest.approx((up - down) / (2 * eps), rel=1e-6, abs=1e-8), (
                p.name
            )


def test_recurrent_layers_check_their_arguments():
    with pytest.raises(TypeError):
        nn.LSTM(3, 2, dropout=0)  # MindSpore wants a float
    with pytest.raises(ValueError):
        nn.GRU(3, 0)
    with pytest.raises(ValueError):
        nn.GRU(3, 2, dropout=1.0)
    with pytest.raises(TypeError):
        nn.LSTM(3, 2)(Tensor(SEQUENCE), Tensor(np.zeros((1, 2, 2), np.float32)))  # hx must be (h, c)
    with pytest.raises(ValueError):
        nn.GRU(3, 2)(Tensor(SEQUENCE), Tensor(np.zeros((2, 2, 2), np.float32)))
    with pytest.raises(TypeError):
        nn.GRU(3, 2)(Tensor(SEQUENCE), None, Tensor(np.array([3.0, 2.0], np.float32)))
    with pytest.raises(ValueError):
        nn.GRU(3, 2)(Tensor(SEQUENCE), None, Tensor(np.array([3, 2, 1], np.int32)))


@pytest.mark.parametrize("cls", ["LSTM", "GRU"])
def test_seq_length_stops_each_row_at_its_length(cls):
    """Past a row's length its outputs are zero and its state stays; backward runs over its own steps."""
    net = getattr(nn, cls)(3, 2, bidirectional=True)
    fill(net)
    x = Tensor(SEQUENCE)  # (seq 3, batch 2, input 3)
    out, state = net(x, None, Tensor(np.array([3, 1], np.int32)))
    h = (state[0] if cls == "LSTM" else state).asnumpy()
    alone, alone_state = net(x[:1, 1:])  # row 1 alone, cut to its length
    assert np.abs(out.asnumpy()[1:, 1]).max() == 0
    np.testing.assert_allclose(out.asnumpy()[:1, 1:], alone.asnumpy(), rtol=1e-6, atol=1e-7)
    alone_h = (alone_state[0] if cls == "LSTM" else alone_state).asnumpy()
    np.testing.assert_allclose(h[:, 1:], alone_h, rtol=1e-6, atol=1e-7)
    full, _ = net(x)
    np.testing.assert_allclose(out.asnumpy()[:, :1], full.asnumpy()[:, :1], rtol=1e-6, atol=1e-7)


@needs_mindspore
@pytest.mark.parametrize(
    "cls, layers, bidirectional, batch_first, has_bias, with_hx, lengths",
    [
        (c, *rest)
        for c in ("LSTM", "GRU", "RNN", "RNN-relu")
        for rest in (
            (1, False, False, True, False, None),
            (1, True, True, True, True, None),
            (2, True, False, False, True, None),
            (2, False, True, True, False, None),
            (1, True, False, True, False, (5, 2)),
            (2, True, True, True, True, (3, 5)),
        )
    ],
)
def test_recurrent_layers_as_mindspore(
    ms, quiet, cls, layers, bidirectional, batch_first, has_bias, with_hx, lengths
):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(2, 5, 3) if batch_first else (5, 2, 3)).astype(np.float32)
    hx = [rng.normal(size=(layers * (2 if bidirectional else 1), 2, 4)).astype(np.float32) for _ in range(2)]
    kwargs = dict(num_layers=layers, bidirectional=bidirectional, batch_first=batch_first, has_bias=has_bias)
    results = []
    name, extra = ("RNN", {"nonlinearity": "relu"}) if cls == "RNN-relu" else (cls, {})
    for lib in (ms, symgrad):
        net = getattr(lib.nn, name)(3, 4, **kwargs, **extra)
        for k, p in enumerate(net.get_parameters()):
            p.set_data(
                lib.Tensor((np.sin(np.arange(p.size) * 0.3 + k) * 0.5).astype(np.float32).reshape(p.shape))
            )
        state = None
        if with_hx:
            state = (lib.Tensor(hx[0]), lib.Tensor(hx[1])) if cls == "LSTM" else lib.Tensor(hx[0])

        seq_length = None if lengths is None else lib.Tensor(np.array(lengths, np.int32))

        def loss(t, net=net, state=state, lib=lib, seq_length=seq_length):
            out, final = net(t, state, seq_length)
            h = final[0] if cls == "LSTM" else final
            return lib.ops.mul(out, out).sum() + lib.ops.mul(h, h).sum()

        out, final = net(lib.Tensor(x), state, seq_length)
        grad_x, grad_w = lib.ops.grad(loss, 0, net.trainable_params())(lib.Tensor(x))
        finals = list(final) if cls == "LSTM" else [final]
        results.append(
            ([p.name for p in net.get_parameters()], [t.asnumpy() for t in (out, *finals, grad_x, *grad_w)])
        )
    (ms_names, expected), (sg_names, got) = results
    assert sg_names == ms_names
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_allclose(g, e, rtol=1e-4, atol=1e-5)


# ----- checkpoints -----

ARRAYS = {
    "w": (np.arange(6, dtype=np.float32).reshape(2, 3) / 7),
    "s": np.array(3.5, np.float32),
    "i": np.array([1, -2, 2**40], np.int64),
    "h": np.array([1.5, -0.25], np.float16),
    "n": np.array(7, np.int32),
    "d": np.array([[1e-300]], np.float64),
    "b": np.array([True, False]),
}
# mindspore.save_checkpoint([{"name": "w", "data": [[1, 2], [3, 4]] float32}, {"name": "n", "data": 7 int64}])
TINY = bytes.fromhex(
    "0a240a0177121f080208021207466c6f617433321a100000803f0000004000004040000080400a160a016e1211"
    "1205496e7436341a080700000000000000"
)


def test_the_file_is_mindspores_byte_for_byte(tmp_path):
    path = tmp_path / "tiny.ckpt"
    data = [
        {"name": "w", "data": Tensor(np.array([[1, 2], [3, 4]], np.float32))},
        {"name": "n", "data": Tensor(7)},
    ]
    symgrad.save_checkpoint(data, str(path))
    assert path.read_bytes() == TINY
    loaded = symgrad.load_checkpoint(str(path))
    assert list(loaded) == ["w", "n"] and loaded["n"].dtype == symgrad.int64 and loaded["n"].shape == ()
    assert isinstance(loaded["w"], Parameter) and loaded["w"].name == "w"


def test_every_dtype_scalars_and_strings_round_trip(tmp_path):
    path = tmp_path / "all"  # ".ckpt" is added, as MindSpore does
    symgrad.save_checkpoint(
        [{"name": k, "data": Tensor(v)} for k, v in ARRAYS.items()],
        str(path),
        append_dict={"epoch": 3, "lr": 0.5, "tag": "héllo"},
    )
    assert not path.exists() and (tmp_path / "all.ckpt").exists()
    mode = stat.S_IMODE(os.stat(tmp_path / "all.ckpt").st_mode)
    assert mode == stat.S_IRUSR  # read-only, as MindSpore leaves it
    loaded = symgrad.load_checkpoint(str(tmp_path / "all.ckpt"))
    assert list(loaded) == [*ARRAYS, "epoch", "lr", "tag"]
    for name, value in ARRAYS.items():
        got = loaded[name].asnumpy()
        assert got.dtype == value.dtype and got.shape == value.shape
        np.testing.assert_array_equal(got, value)
    assert loaded["tag"] == "héllo"
    assert loaded["epoch"].dtype == symgrad.int64 and loaded["lr"].dtype == symgrad.float32
    symgrad.save_checkpoint(loaded, str(tmp_path / "again.ckpt"))  # a loaded dict saves as it was
    assert (tmp_path / "again.ckpt").read_bytes() == (tmp_path / "all.ckpt").read_bytes()


def test_crc_check_detects_a_damaged_file(tmp_path):
    path = str(tmp_path / "crc.ckpt")
    symgrad.save_checkpoint([{"name": "w", "data": Tensor(ARRAYS["w"])}], path, crc_check=True)
    assert symgrad.load_checkpoint(path, crc_check=True)["w"].shape == (2, 3)
    data = bytearray(Path(path).read_bytes())
    data[20] ^= 0xFF
    os.chmod(path, 0o600)
    Path(path).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="crc"):
        symgrad.load_checkpoint(path, crc_check=True)


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:5],
        lambda b: b[:50],
        lambda b: b[:-3],
        lambda b: bytes(range(256)) * 3,
        lambda b: b"\x00" * 64,
        lambda b: b.replace(b"\x1a\x18", b"\x1a\x14", 1),
    ],
    ids=["5 bytes", "50 bytes", "last 3 bytes cut", "junk", "zeros", "content shorter than its dims"],
)
def test_a_truncated_or_corrupted_file_gives_an_error_naming_it(tmp_path, damage):
    good = tmp_path / "good.ckpt"
    symgrad.save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in ARRAYS.items()], str(good))
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(damage(good.read_bytes()))
    with pytest.raises(ValueError, match="bad.ckpt"):
        symgrad.load_checkpoint(str(bad))
    with pytest.raises(ValueError, match="does not exist"):
        symgrad.load_checkpoint(str(tmp_path / "missing.ckpt"))


def test_a_failed_save_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "keep.ckpt"
    symgrad.save_checkpoint([{"name": "w", "data": Tensor(ARRAYS["w"])}], str(path))
    before = path.read_bytes()

    def full_disk(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        symgrad.save_checkpoint([{"name": "v", "data": Tensor(ARRAYS["d"])}], str(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.ckpt"]


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(np.ones((2, 3), np.float32), name="w")
        self.b = Parameter(np.zeros(3, np.float32), name="b")

    def construct(self, x):
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Inner()
        self.c = Parameter(np.array([1, 2], np.int32), name="c")

    def construct(self, x):
        return x


def test_load_param_into_net_returns_mindspores_two_lists(tmp_path):
    two = np.full((2, 3), 2.0, np.float32)
    new = lambda value, name="p": Parameter(value, name=name)  # noqa: E731
    net = Outer()
    assert symgrad.load_param_into_net(net, {"a.w": new(two), "x": new(np.ones(1, np.float32))}) == (
        ["c", "a.b"],
        ["x"],
    )
    np.testing.assert_array_equal(net.a.w.asnumpy(), two)
    # a dict saved from a wrapper: found behind the common prefix (MindSpore does not update ckpt_not_load)
    net = Outer()
    wrapped = {
        "network.a.w": new(two),
        "network.a.b": new(np.ones(3, np.float32)),
        "network.c": new(np.array([5, 6], np.int32)),
    }
    assert symgrad.load_param_into_net(net, wrapped) == ([], ["network.a.w", "network.a.b", "network.c"])
    np.testing.assert_array_equal(net.c.asnumpy(), [5, 6])
    assert symgrad.load_param_into_net(Outer(), {"network.a.w": new(two)}, strict_load=True) == (
        ["c", "a.w", "a.b"],
        ["network.a.w"],
    )
    net = Outer()  # float64 into float32 and int64 into int32 are cast unless strict_load
    assert symgrad.load_param_into_net(
        net, {"a.w": new(two.astype(np.float64)), "c": new(np.array([3, 4]))}
    ) == (["a.b"], [])
    assert net.a.w.dtype == symgrad.float32 and net.c.dtype == symgrad.int32
    for bad, strict in (
        ({"a.w": new(two.astype(np.float64))}, True),
        ({"c": new(np.array([3.0, 4.0]))}, False),
        ({"a.w": new(np.ones((3, 2), np.float32))}, False),
    ):
        with pytest.raises(RuntimeError):
            symgrad.load_param_into_net(Outer(), bad, strict_load=strict)
    with pytest.raises(TypeError):
        symgrad.load_param_into_net(Outer(), {"a.w": two})
    with pytest.raises(TypeError):
        symgrad.load_param_into_net(3, {})
    # a whole network through a file, into a fresh one
    net = Outer()
    net.a.w.set_data(two)
    symgrad.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    fresh = Outer()
    assert list(symgrad.load_checkpoint(str(tmp_path / "net.ckpt"), net=fresh)) == ["c", "a.w", "a.b"]
    np.testing.assert_array_equal(fresh.a.w.asnumpy(), two)
    assert list(
        symgrad.load_checkpoint(str(tmp_path / "net.ckpt"), choice_func=lambda n: n.startswith("a."))
    ) == ["a.w", "a.b"]
    with pytest.raises(ValueError, match="empty"):
        symgrad.load_checkpoint(str(tmp_path / "net.ckpt"), filter_prefix=["a", "c"])


@needs_mindspore
def test_checkpoints_cross_between_the_libraries(ms, quiet, tmp_path):
    data = lambda lib: [{"name": k, "data": lib.Tensor(v)} for k, v in ARRAYS.items()]  # noqa: E731
    extra = {"epoch": 3, "lr": 0.5, "tag": "héllo"}
    ms.save_checkpoint(data(ms), str(tmp_path / "ms.ckpt"), append_dict=dict(extra), crc_check=True)
    symgrad.save_checkpoint(data(symgrad), str(tmp_path / "sg.ckpt"), append_dict=dict(extra), crc_check=True)
    assert (tmp_path / "sg.ckpt").read_bytes() == (tmp_path / "ms.ckpt").read_bytes()
    for lib, name in itertools.product((ms, symgrad), ("ms", "sg")):
        loaded = lib.load_checkpoint(str(tmp_path / f"{name}.ckpt"), crc_check=True)
        assert list(loaded) == [*ARRAYS, *extra]
        for key, value in ARRAYS.items():
            got = loaded[key].asnumpy()
            assert got.dtype == value.dtype and got.shape == value.shape and loaded[key].name == key
            np.testing.assert_array_equal(got, value)
        assert loaded["tag"] == "héllo"
    # a MindSpore network's file loads into the same network written with symgrad, and back
    ms_net = ms.nn.SequentialCell([ms.nn.Dense(3, 4), ms.nn.ReLU(), ms.nn.Dense(4, 2)])
    ms.save_checkpoint(ms_net, str(tmp_path / "net.ckpt"))
    sg_net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    assert symgrad.load_param_into_net(sg_net, symgrad.load_checkpoint(str(tmp_path / "net.ckpt"))) == (
        [],
        [],
    )
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        sg_net(Tensor(x)).asnumpy(), ms_net(ms.Tensor(x)).asnumpy(), rtol=1e-6, atol=1e-6
    )
    unknown = {"extra": Parameter(np.ones(2, np.float32), name="extra")}
    results = []
    for lib, net in ((ms, ms_net), (symgrad, sg_net)):
        params = lib.load_checkpoint(str(tmp_path / "net.ckpt"))
        params.pop("0.bias")
        params["extra"] = lib.Parameter(lib.Tensor(unknown["extra"].asnumpy()), name="extra")
        results.append(lib.load_param_into_net(net, params))
    assert results[0] == results[1] == (["0.bias"], ["extra"])
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes((tmp_path / "ms.ckpt").read_bytes()[:50])
    for lib in (ms, symgrad):
        with pytest.raises(ValueError):
            lib.load_checkpoint(str(bad))
