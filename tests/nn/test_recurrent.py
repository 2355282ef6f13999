"""MindSpore 2.10's nn.LSTM and nn.GRU: weight names and shapes, values, gradients against finite
differences, argument checks, seq_length.

The numbers asserted directly were computed by real MindSpore 2.10 on the CPU, so these tests run
without it; where MindSpore is installed the ``*_as_mindspore`` tests also run both libraries on the
same inputs and weights and compare values, gradients and Parameter names.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from tests.nn.helpers import needs_mindspore

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
