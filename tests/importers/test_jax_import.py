"""JAX functions imported into symgrad's graph, and verify() checking JAX's derivatives against them.

References: JAX itself (values and jax.grad of correct functions, float64), sympy.diff of formulas
written by hand, and planted bugs in jax.custom_vjp rules.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import sympy

import symgrad
from symgrad.core.registry import OPS, imports_of
from symgrad.errors import OpError
from symgrad.verification.report import FAIL

pytestmark = pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="JAX is not installed")

if importlib.util.find_spec("jax") is not None:
    import jax
    import jax.numpy as jnp

    from symgrad.importers import from_jax

    jax.config.update("jax_enable_x64", True)  # the tests compare float64 results too


def _custom(forward, backward):
    """A jax.custom_vjp function whose backward(g, *inputs) is the rule under test, summed."""
    f = jax.custom_vjp(forward)
    f.defvjp(lambda *xs: (forward(*xs), xs), lambda xs, g: tuple(backward(g, *xs)))
    return lambda x: f(x).sum()


def _x3():
    return jnp.array([0.3, -0.7, 1.1], dtype=jnp.float64)


def test_an_imported_function_computes_and_differentiates_as_jax_does():
    def f(x, y):
        return (
            jnp.tanh(x) + jax.nn.sigmoid(x) + jax.nn.softplus(x) + jax.nn.gelu(x) + jax.nn.silu(x) + jax.nn.elu(x)
            + jnp.sin(x) * jnp.cos(y) + jnp.log(jnp.abs(y) + 1) + jnp.abs(x) ** y + 1 / y + jnp.maximum(x, y)
            + jnp.where(x > 0, x, y) + jnp.clip(x, -1, 1) + jnp.concatenate([x, y])[1:4] + jnp.stack([x, y]).sum(0)
            + x @ y + jnp.linalg.norm(x) + jnp.arctan2(x, y) + jax.lax.stop_gradient(x) * x + jnp.exp2(x)
            + jnp.einsum("i,i->", x, y) + x.reshape(3, 1).T.sum(0) + jax.scipy.special.erf(x)
        ).sum()  # fmt: skip

    x, y = _x3(), jnp.array([1.3, 0.7, 2.1], dtype=jnp.float64)
    program = from_jax(f, x, y)
    inputs = symgrad.Tensor(np.asarray(x)), symgrad.Tensor(np.asarray(y))
    assert float(program(*inputs).asnumpy()) == pytest.approx(float(f(x, y)), rel=1e-14)
    ours = symgrad.grad(program, grad_position=(0, 1))(*inputs)
    theirs = jax.grad(f, argnums=(0, 1))(x, y)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.asnumpy(), np.asarray(b), rtol=1e-12, atol=1e-13)


def test_the_closed_form_of_a_small_jax_function_matches_sympy_diff():
    def f(x, w):
        return jnp.tanh(x @ w).sum()

    x, w = jnp.array([0.4, 1.3], dtype=jnp.float64), jnp.array([0.5, -0.2], dtype=jnp.float64)
    program = from_jax(f, x, w)
    dx = symgrad.grad(program)(symgrad.Tensor(np.asarray(x)), symgrad.Tensor(np.asarray(w)))
    symbols = {s.name: s for s in dx.expr.free_symbols}
    assert sorted(symbols) == ["w1", "w2", "x1", "x2"]
    formula = sympy.tanh(symbols["x1"] * symbols["w1"] + symbols["x2"] * symbols["w2"])
    difference = dx.expr[0] - sympy.diff(formula, symbols["x1"])  # sech^2 against 1 - tanh^2
    for values in ([1, 2, 3, 4], [-15, 7, 20, -3]):  # tenths, exact
        point = {s: sympy.Rational(v, 10) for s, v in zip(symbols.values(), values)}
        assert abs(difference.subs(point).evalf(40)) < 1e-35


def test_a_batched_contraction_matches_jax():
    def f(a, b):
        return jnp.einsum("bij,bjk->bik", a, b).sum() + jnp.einsum("ij,kj->ik", a[0], b[1].T).sum()

    a = jnp.arange(12.0).reshape(2, 2, 3) / 7
    b = jnp.arange(12.0).reshape(2, 3, 2) / 5
    assert symgrad.verify(f, a, b).ok


def test_pytree_arguments_are_leaves_named_after_their_argument():
    def mlp(params, x):
        (w1, b1), (w2, b2) = params
        return (jnp.tanh(x @ w1 + b1) @ w2 + b2).sum()

    key = jax.random.PRNGKey(0)
    params = [(jax.random.normal(key, (2, 8)), jnp.zeros(8)), (jax.random.normal(key, (8, 1)), jnp.zeros(1))]
    report = symgrad.verify(mlp, params, jnp.array([[0.3, 0.5]]))
    assert report.ok
    assert [r.derivative for r in report.rows] == [f"d out / d params_{i}" for i in range(4)] + [
        "d out / d x"
    ]


@pytest.mark.parametrize(
    "backward, order, failing",
    [
        (lambda g, x: (-g * jnp.cos(x),), 1, [0]),  # wrong sign
        (lambda g, x: (g * jnp.cos(x) * (1 + 1e-6),), 1, [0]),  # a relative error of 1e-6
        (lambda g, x: (g * jax.lax.stop_gradient(jnp.cos(x)),), 2, [1]),  # only at second order
        (lambda g, x: (g * jnp.cos(x),), 2, []),  # right
    ],
)
def test_planted_bugs_in_a_custom_vjp_are_found_where_they_are(backward, order, failing):
    report = symgrad.verify(_custom(jnp.sin, backward), _x3(), order=order)
    assert [i for i, r in enumerate(report.rows) if r.verdict == FAIL] == failing, str(report)


def test_an_error_only_float32_shows_is_found_in_float32():
    def softplus(x):
        return jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(x, 0.0)

    overflowing = _custom(softplus, lambda g, x: (g * jnp.exp(x) / (1 + jnp.exp(x)),))
    x = jnp.array([100.0, -3.0, 0.5], dtype=jnp.float32)
    assert not symgrad.verify(overflowing, x).ok
    assert symgrad.verify(overflowing, x.astype(jnp.float64)).ok


def test_a_pinn_residual_with_jax_hessian_is_verified_end_to_end():
    key = jax.random.PRNGKey(1)
    w1, w2 = jax.random.normal(key, (2, 16)), jax.random.normal(key, (16,))

    def u(p):
        return jnp.tanh(p @ w1) @ w2

    def residual(points):
        second = jax.vmap(jax.hessian(u))(points)
        return ((second[:, 0, 0] + second[:, 1, 1]) ** 2).mean()

    assert symgrad.verify(residual, jax.random.uniform(key, (4, 2))).ok


def test_a_primitive_with_no_row_is_named_with_the_supported_list():
    program = from_jax(lambda x: jax.lax.igamma(x, x).sum(), _x3())
    with pytest.raises(OpError, match=r"JAX primitive 'igamma' .* has no row.*dot_general.*tanh"):
        program(symgrad.Tensor(np.asarray(_x3())))


def test_gathers_with_constant_indices_running_sums_and_reversals_import_and_verify():
    """jnp.take and fancy indexing (lax.gather, its negative-index wrap folded by JAX itself),
    jnp.cumsum both ways (lax.cumsum) and x[::-1] (lax.rev), to second order."""
    columns, rows = np.array([2, 0, 2, -1]), np.array([1, 0, 1])

    def f(x):
        picked = jnp.take(x, columns, axis=1)
        return (
            jnp.sum(jnp.tanh(picked) ** 2) + jnp.sum(x[rows] * x[::-1][rows])
            + jnp.sum(jnp.cumsum(x, axis=0) ** 2) + jnp.sum(jax.lax.cumsum(x, 1, reverse=True) * x)
        )  # fmt: skip

    x = jnp.asarray(np.random.default_rng(5).standard_normal((2, 3)))
    program = from_jax(f, x)
    assert float(program(symgrad.Tensor(np.asarray(x))).asnumpy()) == pytest.approx(float(f(x)), rel=1e-14)
    report = symgrad.verify(f, x, order=2)
    assert report.ok, str(report)


def test_scatter_adds_with_constant_indices_import_and_verify():
    """x.at[i].add(v) (lax.scatter-add, repeated and negative indices) into a vector and a matrix."""
    rows = np.array([0, 2, 2, -1])

    def f(x, v):
        y = x.at[rows].add(v * v)
        z = jnp.zeros((3, 2)).at[np.array([[0, 1], [2, 0]])].add(x[:2, None] * v[:2])
        return jnp.sum(jnp.tanh(y) ** 2) + jnp.sum(z**3)

    x, v = (jnp.asarray(np.random.default_rng(k).standard_normal(4)) for k in (1, 2))
    report = symgrad.verify(f, x, v, order=2)
    assert report.ok, str(report)


def test_indexing_by_a_loop_counter_and_in_place_updates_import_and_verify():
    """x[i] inside fori_loop (lax.dynamic_slice once the counter is a constant), x.at[1].set(...)
    (lax.scatter) and dynamic_update_slice with a start JAX clamps (3 -> 2)."""

    def f(x, v):
        looped = jax.lax.fori_loop(0, 3, lambda i, c: c + jnp.sin(x[i]) * v[i], 0.0)
        replaced = x.at[1].set(v[0] * 2.0)
        placed = jax.lax.dynamic_update_slice(x, v[:2] * 3.0, (3,))
        return looped + jnp.sum(replaced**3) + jnp.sum(placed**2)

    x, v = (jnp.asarray(np.random.default_rng(k).standard_normal(4)) for k in (1, 2))
    report = symgrad.verify(f, x, v, order=2)
    assert report.ok, str(report)
    with pytest.raises(OpError, match="two updates land on one element"):
        from_jax(lambda x: x.at[np.array([1, 1])].set(x[:2]).sum(), x)(symgrad.Tensor(np.asarray(x)))


def test_scans_and_counted_while_loops_are_unrolled_and_verify():
    def f(x):
        def step(carry, row):
            carry = jnp.tanh(carry * row + 0.5)
            return carry, carry * carry

        last, squares = jax.lax.scan(step, x[0], x, reverse=True)
        looped = jax.lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * (i + 1.0), x[1])
        _, counted = jax.lax.while_loop(
            lambda c: c[0] < 2, lambda c: (c[0] + 1, jnp.cos(c[1]) + c[1]), (0, x[2])
        )
        return jnp.sum(last) + jnp.sum(squares) + jnp.sum(looped * counted)

    x = jnp.asarray(np.random.default_rng(6).standard_normal((3, 2)))
    assert float(from_jax(f, x)(symgrad.Tensor(np.asarray(x))).asnumpy()) == pytest.approx(
        float(f(x)), rel=1e-14
    )
    report = symgrad.verify(f, x, order=2)
    assert report.ok, str(report)


def test_a_while_loop_steered_by_the_inputs_is_refused_by_name():
    def f(x):
        return jax.lax.while_loop(lambda c: c.sum() < 10.0, lambda c: c * 2.0, x).sum()

    with pytest.raises(OpError, match="while_loop whose condition depends on the inputs"):
        from_jax(f, _x3())(symgrad.Tensor(np.asarray(_x3())))


def test_a_set_at_several_computed_indices_is_named_as_unsupported():
    def f(x):  # gathers and one-vector scatters at computed indices import (test_jax_computed_indices.py)
        return x.at[jnp.argsort(x)[:2]].set(0.0).sum()

    with pytest.raises(OpError, match="lax.scatter: 2 index vectors computed from the inputs"):
        from_jax(f, _x3())(symgrad.Tensor(np.asarray(_x3())))


def test_the_jax_spellings_are_real_primitives_claimed_by_one_row_each():
    from jax.extend import core

    table = imports_of("jax")  # raises if two rows claim one name
    # the primitives' own names, as jaxprs spell them (scatter_add_p is "scatter-add"), lax.linalg's too
    names = {
        v.name for m in (jax.lax, jax.lax.linalg) for v in vars(m).values() if isinstance(v, core.Primitive)
    }
    names |= set(dir(jax.lax))  # expand_dims: jnp's, spelled as lax.expand_dims
    unknown = {n for n in table if n not in names and n not in ("add_any", "copy_p")}
    assert not unknown
    public = {n for n, op in OPS.items() if not op.api.internal}
    imported = {op.name for op, _ in table.values()}
    # composites in jax.numpy / jax.nn, imported through their pieces
    assert public - imported == {
        "softplus",
        "silu",
        "gelu",
        "relu",
        "elu",
        "leaky_relu",
        "xlogy",
        "floor_div",
    }


def test_softmax_and_logsumexp_import_with_reduce_max_and_is_finite():
    def f(x):
        return (
            (jax.nn.softmax(x, 1) ** 2).sum() + jax.nn.log_softmax(x, 0).sum() * 0.3
            + jax.scipy.special.logsumexp(x, 1).sum() + x.max(1).sum()
        )  # fmt: skip

    assert symgrad.verify(f, jnp.array([[0.5, -2.0, 3.0], [1.0, 0.2, -0.3]]), order=2).ok


@pytest.fixture(params=[True, False], ids=["x64", "x32"])
def x64(request):
    """JAX's 64-bit mode on or off for one test, put back as it was afterwards."""
    before = jax.config.read("jax_enable_x64")
    jax.config.update("jax_enable_x64", request.param)
    try:
        yield request.param
    finally:
        jax.config.update("jax_enable_x64", before)


def _values_and_derivatives_match_jax(f, x, rtol: float) -> None:
    """The imported program's value and first derivative against f's and jax.jacrev's."""
    program, tensor = from_jax(f, x), symgrad.Tensor(np.asarray(x))
    np.testing.assert_allclose(program(tensor).asnumpy(), np.asarray(f(x)), rtol=rtol)
    ours = symgrad.grad(program)(tensor).asnumpy()
    np.testing.assert_allclose(ours, np.asarray(jax.jacrev(f)(x)), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8])
def test_integer_constants_are_folded_in_their_own_dtype_with_and_without_x64(x64, dtype):
    """Index arithmetic JAX folds (the negative-index wrap of jnp.take, idx * 2 + 1, a start
    computed with x.shape) mixes the indices' dtype with literals the jaxpr types alike."""
    idx = np.array([2, 0, 1, 2], dtype=dtype)

    def f(x):
        start = jnp.max(idx) * 2 - x.shape[0]  # 1, computed in idx's dtype
        return (
            jnp.sum(jnp.tanh(jnp.take(x, idx)) * x[(idx * 2 + 1) % 3])
            + jnp.sum(jax.lax.dynamic_slice(x, (start,), (2,)) ** 3)
        )  # fmt: skip

    x = jnp.asarray([0.3, -0.7, 1.1])
    assert x.dtype == (jnp.float64 if x64 else jnp.float32)
    _values_and_derivatives_match_jax(f, x, 1e-12 if x64 else 1e-5)


def test_jax_random_with_a_constant_key_is_a_constant_of_the_program():
    """Noise from keys made inside the function, closed over, folded in or split for a scan."""
    outer = jax.random.key(7)

    def f(x):
        noise = jax.random.normal(jax.random.key(0), x.shape)
        keep = jax.random.bernoulli(jax.random.PRNGKey(1), 0.7, x.shape)  # dropout
        scale = jax.random.uniform(jax.random.fold_in(outer, 3), x.shape)
        stepped, _ = jax.lax.scan(
            lambda c, k: (c + jnp.sum(x * jax.random.normal(k, x.shape)), None),
            0.0,
            jax.random.split(jax.random.key(2), 3),
        )
        return jnp.sum(jnp.tanh(x + noise) * jnp.where(keep, x / 0.7, 0.0) * scale) + stepped**2

    _values_and_derivatives_match_jax(f, _x3(), 1e-12)
    assert symgrad.verify(f, _x3(), order=2).ok


@pytest.mark.parametrize(
    "f, args, primitive",
    [
        (
            lambda x: jnp.sum(x * jax.random.normal(jax.random.key(jnp.int32(x[0] * 10)), x.shape)),
            1,
            "random_seed",
        ),
        (lambda x, k: jnp.sum(x * jax.random.normal(k, x.shape)), 2, "random_wrap"),  # a PRNGKey argument
    ],
    ids=["seed_from_x", "uint32_key_argument"],
)
def test_jax_random_with_a_key_from_the_inputs_is_refused_by_primitive(f, args, primitive):
    inputs = [_x3(), jax.random.PRNGKey(0)][:args]
    program = from_jax(f, *inputs)
    with pytest.raises(
        OpError, match=rf"jax.random with a key computed from the function's inputs.*'{primitive}'"
    ):
        program(*[symgrad.Tensor(np.asarray(a)) for a in inputs])


def test_constant_subcomputations_symgrad_cannot_hold_are_computed_by_jax():
    """Complex and bfloat16 constants, and a primitive without a row (sort), on constants only."""

    def f(x):
        phase = jnp.real(jnp.exp(1j * jnp.arange(3.0)))
        coarse = jnp.asarray([0.1, 0.2, 0.3], jnp.bfloat16).astype(x.dtype)
        return jnp.sum(jnp.sin(x) * phase + coarse * x**2 + jnp.sort(jnp.asarray([3.0, 1.0, 2.0])) * x)

    _values_and_derivatives_match_jax(f, _x3(), 1e-12)


@pytest.mark.parametrize(
    "f, args, message",
    [
        (lambda x: jnp.sum(jnp.abs(x.astype(jnp.complex128))), [_x3], r"'convert_element_type' .*complex128"),
        (lambda x: jnp.sum(jnp.real(x * 1j)), [_x3], r"'convert_element_type' .*complex128.*real-valued"),
        (lambda x: jnp.sum(x.astype(jnp.bfloat16).astype(jnp.float64)), [_x3], r"'convert_element_type' .*bfloat16"),
        (lambda z: jnp.sum(jnp.abs(z)), [lambda: _x3().astype(jnp.complex128)], r"input 'z' has the dtype complex128"),
        (lambda x, k: jnp.sum(x * jax.random.normal(k, x.shape)), [_x3, lambda: jax.random.key(0)],
         r"input 'k' has the PRNG key dtype key<fry>.*pass the noise as an argument"),
        (lambda x: (jnp.sum(x), jax.random.key(0)), [_x3], r"output 1 has the PRNG key dtype"),
        (lambda x: jnp.sum(jax.lax.igamma(x, x)), [_x3], r"JAX primitive 'igamma' .* has no row"),
    ],
    ids=["complex_cast", "complex_literal", "bfloat16", "complex_input", "key_input", "key_output", "igamma"],
)  # fmt: skip
def test_unknown_dtypes_and_primitives_are_refused_by_name(f, args, message):
    inputs = [make() for make in args]
    with pytest.raises(OpError, match=message):
        from_jax(f, *inputs)(*[symgrad.Tensor(np.asarray(a)) for a in inputs])
