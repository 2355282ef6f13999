"""Every Parameter a loss term reads is read at each call, differentiated or not: a Fourier matrix
loaded from a checkpoint, a frozen coefficient changed for a continuation, or weights the term
does not differentiate but an optimizer moves. The reference is the same term built afresh after
the change."""

from __future__ import annotations

import numpy as np
import pytest

from symgrad import ops
from symgrad.parameter import Parameter
from symgrad.pinn import MLP, ResidualLoss, grad
from symgrad.pinn.networks import FourierFeatures


def fourier_case(backend: str):
    net = MLP([1, 6, 1], "tanh", embedding=FourierFeatures(1, 3, seed=0), seed=1)

    def build():
        return ResidualLoss(lambda x: grad(net)(x) + net(x) - ops.sin(x), ("x",), net, backend=backend)

    def change():
        B = net.embedding.B
        B.set_data(B._value() * 1.7)

    return build, change


def coefficient_case(backend: str):
    net = MLP([1, 5, 1], "tanh", seed=2)
    k = Parameter(np.array(1.0), name="k", requires_grad=False)

    def build():
        return ResidualLoss(lambda x: grad(net)(x) - k * net(x), ("x",), net, backend=backend)

    def change():
        k.set_data(np.array(3.0))

    return build, change


def subset_case(backend: str):
    net = MLP([1, 5, 5, 1], "tanh", seed=3)
    last = [net.W3, net.b3]

    def build():
        return ResidualLoss(lambda x: net(x) - ops.cos(x), ("x",), last, backend=backend)

    def change():
        net.W1.set_data(net.W1._value() + 0.3)

    return build, change


@pytest.mark.parametrize("backend", ["numpy", "c"])
@pytest.mark.parametrize("case", [fourier_case, coefficient_case, subset_case])
def test_a_term_reads_every_parameter_at_each_call(case, backend):
    build, change = case(backend)
    term = build()
    x = np.linspace(-1.0, 2.0, 9)
    before = term(x)[0]
    change()
    fresh = build()
    value, grads = term(x)
    expected, expected_grads = fresh(x)
    assert value != pytest.approx(before, rel=1e-6)  # the change matters
    assert value == pytest.approx(expected, rel=1e-12)
    for g, h in zip(grads, expected_grads):
        np.testing.assert_allclose(g, h, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(term.residuals(x), fresh.residuals(x), rtol=1e-12, atol=1e-14)
    r, jac = term.jacobian(x)
    r_fresh, jac_fresh = fresh.jacobian(x)
    np.testing.assert_allclose(r, r_fresh, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jac, jac_fresh, rtol=1e-11, atol=1e-14)
    assert len(grads) == len(term.params)  # gradients for the term's own Parameters only
