"""verify names the jax.custom_vjp / jax.custom_jvp function whose rule is not its primal's
derivative (checked alone at its first call's arguments), says which are right, and says when the
rules ran inside a compiled jax.jit where they cannot be checked alone."""

from __future__ import annotations

import numpy as np
import pytest

import symgrad

jax = pytest.importorskip("jax", reason="JAX is not installed")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy


@jax.custom_vjp
def softsign(x):
    return x / (1 + jnp.abs(x))


softsign.defvjp(lambda x: (softsign(x), x), lambda x, g: (g / (1 + jnp.abs(x)) ** 2 * 1.001,))  # 0.1% off


@jax.custom_jvp
def good_sin(x):
    return jnp.sin(x)


good_sin.defjvp(lambda primals, tangents: (jnp.sin(primals[0]), jnp.cos(primals[0]) * tangents[0]))


@jax.custom_vjp
def clip_gradient(x, lo, hi):
    return x


clip_gradient.defvjp(
    lambda x, lo, hi: (x, (lo, hi)), lambda res, g: (jnp.clip(g, res[0], res[1]), None, None)
)


W = np.random.default_rng(0).normal(size=(6, 5)) / 3
X = np.random.default_rng(1).normal(size=(4, 6))


def layer(w, x):
    return jnp.sum(softsign(x @ w) ** 2 + good_sin(x @ w))


def test_the_wrong_rule_is_named_and_the_right_one_said_right():
    report = symgrad.verify(layer, jnp.asarray(W), jnp.asarray(X))
    assert not report.ok
    notes = "\n".join(report.notes)
    assert (
        "custom_vjp softsign: its rule is NOT its primal's derivative" in notes
        and "max rel err 1.00e-03" in notes
    )
    assert "custom_jvp good_sin: its rule is its primal's derivative" in notes
    assert not report.rules["custom_vjp softsign"].ok and report.rules["custom_jvp good_sin"].ok


def test_a_clipping_rule_with_non_array_arguments_is_checked_alone():
    def f(x):
        return jnp.sum(clip_gradient(x, -0.1, 0.1) ** 3)

    report = symgrad.verify(f, jnp.asarray(np.array([0.5, -2.0, 1.5])))
    assert not report.ok
    assert any(
        n.startswith("custom_vjp clip_gradient: its rule is NOT its primal's derivative")
        for n in report.notes
    )


def test_rules_inside_a_compiled_jit_are_said_to_be_unchecked():
    report = symgrad.verify(jax.jit(layer), jnp.asarray(W), jnp.asarray(X))
    assert not report.ok
    assert any(
        "custom_vjp/custom_jvp call(s) run inside a compiled jax.jit: not checked alone" in n
        for n in report.notes
    )


def test_a_right_program_checks_no_rule():
    report = symgrad.verify(lambda x: jnp.sum(good_sin(x) ** 2), jnp.asarray(X))
    assert report.ok and not report.rules
