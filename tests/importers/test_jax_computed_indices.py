"""JAX programs that compute their indices and pivots: ``lax.linalg.lu`` and what jnp builds on it
(det, slogdet, solve, inv: ``custom_linear_solve``), sorts of several operands (``jnp.argsort``),
gathers, scatters, dynamic slices and updates at indices computed from the inputs, JAX's logical ops and
reductions over no axes, scatter-mul/max/min. Values and vector-Jacobian products against JAX's own in float64, over
random shapes, batches, index offsets and gather modes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad.errors import OpError

jax = pytest.importorskip("jax", reason="JAX is not installed")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
lax = jax.lax
from symgrad.importers import from_jax  # noqa: E402 (after JAX is configured)


def _leaves(out):
    return list(out) if isinstance(out, tuple | list) else [out]


def _matches_jax(f, *inputs, rtol=1e-10):
    """``f``'s imported values and its vjp (random cotangents on the float outputs) equal JAX's."""
    rng = np.random.default_rng(7)
    program = from_jax(f, *inputs)
    tensors = [symgrad.Tensor(x) for x in inputs]
    ours = _leaves(program(*tensors))
    theirs = _leaves(f(*(jnp.asarray(x) for x in inputs)))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        b = np.asarray(b)
        if b.dtype.kind in "biu":
            np.testing.assert_array_equal(a.asnumpy(), b)
        else:
            np.testing.assert_allclose(
                a.asnumpy(), b, rtol=rtol, atol=rtol * max(1.0, np.abs(b).max(initial=0))
            )
    floats = [k for k, b in enumerate(theirs) if np.asarray(b).dtype.kind == "f"]
    cotangents = {k: rng.standard_normal(np.shape(theirs[k])) for k in floats}

    def loss_jax(*xs):
        outs = _leaves(f(*xs))
        return sum(jnp.sum(outs[k] * cotangents[k]) for k in floats)

    def loss_ours(*ts):
        outs = _leaves(program(*ts))
        terms = [(outs[k] * symgrad.Tensor(cotangents[k])).sum() for k in floats]
        return sum(terms[1:], terms[0])

    expected = jax.grad(loss_jax, tuple(range(len(inputs))))(*(jnp.asarray(x) for x in inputs))
    got = symgrad.grad(loss_ours, tuple(range(len(inputs))))(*tensors)
    got = got if isinstance(got, tuple) else (got,)
    for g, e in zip(got, expected):
        e = np.asarray(e)
        np.testing.assert_allclose(g.asnumpy(), e, rtol=rtol, atol=rtol * max(1.0, np.abs(e).max(initial=0)))


batches = st.sampled_from([(), (2,), (2, 1)])


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 5), st.integers(1, 5), batches, st.integers(0, 2**16))
def test_lu_gives_jax_factors_pivots_and_permutation(m, n, batch, seed):
    a = np.random.default_rng(seed).uniform(-1, 1, (*batch, m, n))
    _matches_jax(lambda x: lax.linalg.lu(x), a)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 5), batches, st.integers(1, 3), st.integers(0, 2**16))
def test_det_slogdet_inv_and_solve_match_jax(n, batch, columns, seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (*batch, n, n)) + 2 * np.eye(n) * rng.choice([-1, 1])
    b = rng.uniform(-1, 1, (*batch, n, columns))
    _matches_jax(jnp.linalg.det, a, rtol=1e-9)
    _matches_jax(jnp.linalg.slogdet, a, rtol=1e-9)
    _matches_jax(jnp.linalg.inv, a, rtol=1e-9)
    _matches_jax(jnp.linalg.solve, a, b, rtol=1e-9)


def test_solve_passes_its_derivative_to_the_matrix():
    """jnp.linalg.solve factors stop_gradient(A): the derivative in A must come from matvec."""
    a = np.array([[3.0, 1.0], [1.0, 2.0]])
    b = np.array([1.0, -1.0])
    program = from_jax(lambda a, b: jnp.sum(jnp.linalg.solve(a, b) ** 2), a, b)
    grad = symgrad.grad(lambda t, u: program(t, u), 0)(symgrad.Tensor(a), symgrad.Tensor(b)).asnumpy()
    x = np.linalg.solve(a, b)
    np.testing.assert_allclose(grad, -np.outer(np.linalg.solve(a.T, 2 * x), x), rtol=1e-13)


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 6), st.integers(1, 3), st.integers(1, 2), st.booleans(), st.integers(0, 2**16))
def test_sorts_of_several_operands_match_lax_sort(length, rows, num_keys, ties, seed):
    rng = np.random.default_rng(seed)
    keys = rng.integers(0, 3, (rows, length)).astype(float) if ties else rng.uniform(-1, 1, (rows, length))
    second = rng.integers(0, 2, (rows, length)).astype(float)
    payload = rng.uniform(-1, 1, (rows, length))
    _matches_jax(lambda k, s, p: lax.sort((k, s, p), dimension=1, num_keys=num_keys), keys, second, payload)
    _matches_jax(lambda k, p: p[jnp.arange(rows)[:, None], jnp.argsort(k, axis=1)], keys, payload)


@settings(max_examples=15, deadline=None)
@given(st.integers(-8, 8), st.sampled_from(["clip", "fill", "promise_in_bounds"]), st.integers(0, 2**16))
def test_gathers_at_computed_indices_match_jax(offset, mode, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (4, 3, 2))
    fill = {"fill_value": 0.0} if mode == "fill" else {}
    if mode != "promise_in_bounds":  # out of range, JAX leaves promise_in_bounds unspecified
        _matches_jax(lambda v: v.at[jnp.argmax(v[:, 0, 0]) + offset].get(mode=mode, **fill), x)  # a slice
        rows = jnp.array([0, 2, -1])  # a gather
        _matches_jax(lambda v: v.at[jnp.argmax(v[:, 0, 0]) + offset + rows].get(mode=mode, **fill), x)
    _matches_jax(lambda v: jnp.take_along_axis(v, jnp.argsort(v, axis=1), axis=1), x)
    _matches_jax(lambda v: v[jnp.arange(4)[:, None], jnp.argmin(v, axis=1)], x)


@settings(max_examples=15, deadline=None)
@given(st.integers(-5, 5), st.integers(0, 2**16))
def test_dynamic_slices_and_updates_at_computed_starts_match_jax(offset, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (4, 5))

    def start(v):
        return jnp.argmax(v[:, 0]) + offset

    _matches_jax(lambda v: lax.dynamic_slice(v, (start(v), 1), (2, 3)) * 2, x)
    _matches_jax(lambda v: v[start(v)] ** 2, x)
    _matches_jax(lambda v: lax.dynamic_update_slice(v, v[:2, :2] ** 2, (start(v), jnp.argmin(v[0]))), x)


@settings(max_examples=12, deadline=None)
@given(st.integers(-6, 6), st.sampled_from(["clip", "drop", "promise_in_bounds"]), st.integers(0, 2**16))
def test_scatters_at_computed_indices_match_jax(offset, mode, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (4, 3))
    if mode == "promise_in_bounds":  # out of range, JAX leaves promise_in_bounds unspecified
        offset = 0

    def rows(v):
        return jnp.argsort(v[:, 0])[:3] + offset

    _matches_jax(lambda v: v.at[rows(v)].add(v[:3] ** 2, mode=mode), x)
    _matches_jax(lambda v: v.at[jnp.argmax(v[:, 0]) * jnp.array([1, 1, 0])].add(v[:3] * 3, mode=mode), x)
    _matches_jax(lambda v: v.at[jnp.argmax(v[:, 0]) + offset].set(v[0] ** 2, mode=mode), x)
    _matches_jax(
        lambda v: v.at[jnp.argmax(v[:, 0]), jnp.argmin(v[0]) + offset].set(7 * v[1, 1], mode=mode), x
    )


@settings(max_examples=12, deadline=None)
@given(st.lists(st.integers(-1, 5), min_size=1, max_size=6), st.integers(0, 2**16))
def test_scatter_mul_max_and_min_match_jax(rows, seed):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-2, 2, (5, 3)), rng.uniform(-2, 2, (len(rows), 3))
    at = np.array(rows)  # -1 is the last row; 5 is out of range (dropped)
    _matches_jax(lambda v, u: v.at[at].max(u), x, y)
    _matches_jax(lambda v, u: v.at[at].min(u * 2), x, y)
    unique = np.unique(at[at < 5] % 5)
    _matches_jax(lambda v, u: v.at[unique].multiply(u[: len(unique)], unique_indices=True), x, y)
    repeated = from_jax(lambda v, u: v.at[at].multiply(u), x, y)(x, y).asnumpy()  # JAX has no vjp here
    np.testing.assert_allclose(repeated, np.asarray(jnp.asarray(x).at[at].multiply(y)), rtol=1e-14)


def test_a_scatter_of_several_computed_index_vectors_is_refused():
    x = np.zeros((4, 3))
    with pytest.raises(OpError, match=r"lax\.scatter: 2 index vectors computed from the inputs"):
        from_jax(lambda v: v.at[jnp.argsort(v[:, 0])[:2]].set(1.0), x)(x)


def test_logical_ops_and_reductions_over_no_axes_match_jax():
    x = np.random.default_rng(3).uniform(-2, 2, (3, 4))
    _matches_jax(lambda v: jnp.where(jnp.any(v > 1, 1) & ~jnp.all(v > -1, 1) | (v[:, 0] > 0), 1.0, 2.0), x)
    _matches_jax(lambda v: jnp.where(jnp.logical_xor(v > 0, v > 1), v, -v), x)
    _matches_jax(lambda v: jnp.sum(v, axis=()) * jnp.max(v, axis=()) * jnp.prod(v, axis=()), x)


def test_bitwise_ops_on_integers_are_refused_by_name():
    x = np.arange(4, dtype=np.int32)
    with pytest.raises(OpError, match=r"lax\.and: on int32 operands it is bitwise"):
        from_jax(lambda v: (v & 1).astype(jnp.float64), x)(x)


def test_too_many_index_values_are_refused_with_the_count():
    x = np.zeros((2000, 600))
    with pytest.raises(OpError, match=r"take 2000 values, each a pick of 600 elements"):
        from_jax(lambda v: v[jnp.argmax(v[:, 0])[None]], x)(x)


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**16))
def test_sorts_order_nan_last_as_jax_does(seed):
    rng = np.random.default_rng(seed)
    x = rng.choice([np.nan, -np.inf, np.inf, 0.5, -1.0, 2.0], size=(2, 6))
    for f in (
        lambda t: jnp.sort(t, axis=1),
        lambda t: jnp.argsort(t, axis=1),
        lambda t: lax.sort((t[0], t[1]), num_keys=2),
        lambda t: lax.sort((t[1], t[0], t[0] * 2), num_keys=1),
    ):
        ours = _leaves(from_jax(f, x)(x))
        for a, b in zip(ours, _leaves(f(jnp.asarray(x)))):
            np.testing.assert_array_equal(a.asnumpy(), np.asarray(b))
