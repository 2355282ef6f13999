"""Inputs named as a reader names them (issue 43): ``f(*args)`` reads x, y; a PINN network
u(x, t); the same names in derivations and in the kernels' source. And the heading of named
intermediates says why they are shown."""

from __future__ import annotations

import re

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, ops
from symgrad.autodiff.tracing import input_names
from symgrad.core.graph import free_vars
from symgrad.models import PointMLP


def _values(d):
    return [np.asarray(e.rhs, dtype=float) for e in d.steps[-1].entries]


def test_star_args_inputs_read_x_and_y_in_the_derivation_and_the_kernel():
    def f(*args):
        return args[0] * ops.sin(args[1])

    x, y = Tensor(np.array([1.0, 2.0])), Tensor(np.array([0.5, 0.25]))
    (d,) = symgrad.explain(ops.grad(f, grad_position=(0, 1)), x, y)
    text = d.text()
    assert "args" not in text, text
    assert "x1·sin(y1)" in text and "d(Σ output)/dx = [sin(y1), sin(y2)]" in text
    assert "d(Σ output)/dy = [x1·cos(y1), x2·cos(y2)]" in text
    dx, dy = _values(d)
    np.testing.assert_allclose(dx, np.sin([0.5, 0.25]), rtol=1e-15)
    np.testing.assert_allclose(dy, np.array([1.0, 2.0]) * np.cos([0.5, 0.25]), rtol=1e-15)

    grads = ops.grad(f, grad_position=(0, 1))(x, y)
    variables = free_vars([g._node for g in grads])
    assert sorted(v.name for v in variables) == ["x", "y"]
    source = symgrad.kernel(list(grads), [Tensor._wrap(v, {}) for v in variables]).source
    assert re.search(r"def compute\((y, x|x, y),", source) and "args" not in source


def test_names_of_gathered_inputs():
    def only(*args):
        return args

    def after(x, *rest):
        return rest

    def after_y(y, *rest):
        return rest

    assert input_names(only, 1) == ["x"]
    assert input_names(only, 3) == ["x", "y", "z"]
    assert input_names(only, 4) == ["x1", "x2", "x3", "x4"]
    assert input_names(after, 3) == ["x", "y", "z"]
    assert input_names(after_y, 2) == ["y", "x"]
    assert input_names(after, 4) == ["x", "rest1", "rest2", "rest3"]
    assert input_names(lambda a, b: a, 2) == ["a", "b"]  # named parameters keep their names


def test_a_pinn_network_reads_u_of_x_and_t_at_every_order():
    net = PointMLP([2, 3, 1], seed=1)
    assert net.input_names == ["x", "t"]
    x, t = Tensor(np.array([0.5])), Tensor(np.array([0.2]))
    (d,) = symgrad.explain(ops.grad(net, 0), x, t)
    text = d.text()
    assert "xs" not in text and "W1_1·x1 + W1_4·t1 + b1_1" in text and "d(Σ output)/dx" in text
    (dxx,) = symgrad.explain(ops.grad(ops.grad(net, 0), 0), x, t)
    assert "xs" not in dxx.text() and "d(Σ dx)/dx" in dxx.text()
    h = 1e-5  # the number: u_xx by central differences in float64
    u = [float(net(Tensor(np.array([0.5 + k * h])), t).asnumpy()[0]) for k in (-1, 0, 1)]
    assert float(_values(dxx)[0][0]) == pytest.approx((u[0] - 2 * u[1] + u[2]) / h**2, rel=1e-4)


def test_a_large_pinn_network_names_its_inputs_in_the_kernels_intermediates():
    (d,) = symgrad.explain(
        ops.grad(PointMLP([3, 16, 16, 1]), 0), *(Tensor(np.array([v])) for v in (0.1, 0.2, 0.3))
    )
    lines = [e.lhs + " = " + str(e.rhs) for e in d.steps[0].entries]
    assert lines[0].startswith("t0 = stack(x, y, t)"), lines[:2]


def test_pinn_network_input_names_can_be_given_and_are_checked():
    assert PointMLP([2, 4, 1], input_names=["x", "y"]).input_names == ["x", "y"]
    assert PointMLP([5, 4, 1]).input_names == ["x1", "x2", "x3", "x4", "x5"]
    with pytest.raises(ValueError, match=r"PointMLP: input_names must be 2 identifiers.*\['x'\]"):
        PointMLP([2, 4, 1], input_names=["x"])


def test_the_heading_of_named_intermediates_says_why_they_are_shown():
    def nested(v):
        for _ in range(20):
            v = ops.sin(v)
        return v

    (long,) = symgrad.explain(ops.grad(nested), Tensor(np.array([0.5])))
    heading = long.steps[0].title
    assert "too large" not in heading and re.search(r"the flat formula would be \d+ characters long", heading)
    (large,) = symgrad.explain(
        ops.grad(PointMLP([2, 16, 16, 1]), 0), Tensor(np.array([0.5])), Tensor(np.array([0.2]))
    )
    assert re.search(r"the formulas would hold about [\d,]+ operations", large.steps[0].title)
    (zh,) = symgrad.explain(ops.grad(nested), Tensor(np.array([0.5])), lang="zh")
    assert "图太大" not in zh.steps[0].title and "个字符" in zh.steps[0].title
