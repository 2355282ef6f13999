"""The per-point Burgers network: graph size and values against an independent reference."""

from __future__ import annotations

import numpy as np

import symgrad
from symgrad.core.graph import count_ops
from symgrad.models import PointMLP, burgers_terms
from tests.conftest import PINN_REFERENCE


def derived_ops(layer_sizes) -> int:
    net = PointMLP(layer_sizes)
    terms = burgers_terms(net, symgrad.placeholder("x"), symgrad.placeholder("t"))
    return count_ops([t._node for t in terms.values()])


def test_graph_grows_linearly_with_depth():
    sizes = [derived_ops([2] + [8] * depth + [1]) for depth in (2, 4, 8)]
    step_a, step_b = sizes[1] - sizes[0], sizes[2] - sizes[1]
    assert step_b == 2 * step_a, sizes  # a constant number of ops per layer


def test_graph_size_does_not_depend_on_width():
    assert derived_ops([2, 4, 4, 1]) == derived_ops([2, 64, 64, 1])


def test_burgers_terms_and_loss_gradient_match_the_reference():
    ref = np.load(PINN_REFERENCE)
    net = PointMLP(list(ref["layer_sizes"]))
    net.set_flat(ref["theta"])
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    terms = burgers_terms(net, x, t)
    kernel = symgrad.kernel(list(terms.values()), [x, t, *net.params])
    values = dict(zip(terms, kernel(ref["x"], ref["t"], *(p.asnumpy() for p in net.params))))
    for name in ("u", "ux", "ut", "uxx", "r"):
        np.testing.assert_allclose(values[name], ref[name], rtol=1e-10, atol=1e-12)
    assert np.isclose(np.mean(values["r"] ** 2), ref["loss"], rtol=1e-12)
    grad = np.concatenate([values[f"d(r^2)/d{p.name}"].mean(axis=0).ravel() for p in net.params])
    np.testing.assert_allclose(grad, ref["grad"], rtol=1e-9, atol=1e-12)
