"""lax.cond and lax.switch import: a constant index picks its branch (clamped into range, as JAX
does); an index computed from the inputs selects each output's branch, so values and derivatives
(to second order) are those of the branch taken, against jax.grad and jax.hessian in float64."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad

jax = pytest.importorskip("jax", reason="JAX is not installed")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
from symgrad.importers import from_jax  # noqa: E402 (after JAX is configured)


def branchy(x):
    return jnp.sum(jax.lax.cond(jnp.sum(x) > 0, lambda v: jnp.sin(v) * v, lambda v: v**3 - v, x))


def switched(x, i):
    return jnp.sum(jax.lax.switch(i, [jnp.sin, lambda v: jnp.cos(v) * v, jnp.tanh], x) * x)


def _value_gradient_hessian(f, x, *rest):
    program = from_jax(f, x, *rest)
    tensors = [symgrad.Tensor(x), *(symgrad.Tensor(r) for r in rest)]
    value = program(*tensors).asnumpy()
    grad = symgrad.grad(lambda *t: program(*t), 0)(*tensors).asnumpy()
    hess = symgrad.ops.hessian(lambda t: program(t, *tensors[1:]))(tensors[0]).asnumpy()
    return value, grad, hess


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-2, 2), min_size=3, max_size=3))
def test_a_condition_on_the_inputs_takes_the_branch_jax_takes(values):
    x = np.array(values)
    value, grad, hess = _value_gradient_hessian(branchy, x)
    np.testing.assert_allclose(value, branchy(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(grad, jax.grad(branchy)(x), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(hess, jax.hessian(branchy)(x), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
def test_switch_clamps_its_index_as_jax_does(index):
    x = np.array([0.3, -0.4, 1.1])
    i = np.int32(index)
    value, grad, _ = _value_gradient_hessian(switched, x, i)
    np.testing.assert_allclose(value, switched(x, i), rtol=1e-12)
    np.testing.assert_allclose(grad, jax.grad(switched)(x, i), rtol=1e-12)
    assert symgrad.verify(switched, jnp.asarray(x), jnp.asarray(i), order=2).ok


def test_a_constant_index_keeps_one_branch_in_the_graph():
    def f(x):
        return jnp.sum(jax.lax.switch(2, [jnp.sin, jnp.cos, jnp.tanh], x))

    x = np.array([0.1, 0.2])
    expr = str(symgrad.closed_form(from_jax(f, x)(symgrad.placeholder("x", (2,)))))
    assert "tanh" in expr and "sin" not in expr and "cos" not in expr
