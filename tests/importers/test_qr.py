"""QR factors imported from PyTorch (``torch.linalg.qr``, ``linalg.householder_product``, ``ormqr``) and
JAX (``jnp.linalg.qr``): LAPACK's Householder reflectors unrolled, so Q and R are the frameworks'
own (R's diagonal -sign(a_kk) |column|), checked with their derivatives against
torch.autograd and jax.vjp in float64 over shapes, batches and modes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad.errors import OpError

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
from symgrad.importers import from_torch  # noqa: E402

shapes = st.tuples(st.sampled_from([(), (2,)]), st.integers(1, 5), st.integers(1, 5))


def _ours(program, inputs, cotangents):
    """The program's outputs and the gradient of sum(output * cotangent) for each input."""
    tensors = [symgrad.Tensor(x) for x in inputs]
    outs = program(*tensors)

    def loss(*ts):
        got = program(*ts)
        terms = [(g * symgrad.Tensor(c)).sum() for g, c in zip(got, cotangents)]
        return sum(terms[1:], terms[0])

    grads = symgrad.grad(loss, tuple(range(len(inputs))))(*tensors)
    return [o.asnumpy() for o in outs], [
        g.asnumpy() for g in (grads if isinstance(grads, tuple) else (grads,))
    ]


@settings(max_examples=12, deadline=None)
@given(shapes, st.sampled_from(["reduced", "complete"]), st.integers(0, 2**16))
def test_torch_qr_and_its_derivatives(shape, mode, seed):
    batch, m, n = shape
    if mode == "complete" and m > n:  # PyTorch has no derivative of the complete Q of a tall matrix
        mode = "reduced"
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (*batch, m, n))
    program = from_torch(lambda x: torch.linalg.qr(x, mode=mode), torch.tensor(a))
    leaf = torch.tensor(a, requires_grad=True)
    q, r = torch.linalg.qr(leaf, mode=mode)
    cotangents = [rng.standard_normal(tuple(q.shape)), rng.standard_normal(tuple(r.shape))]
    (expected,) = torch.autograd.grad([q, r], [leaf], [torch.tensor(c) for c in cotangents])
    (q_ours, r_ours), (grad,) = _ours(program, [a], cotangents)
    np.testing.assert_allclose(q_ours, q.detach().numpy(), atol=1e-13)
    np.testing.assert_allclose(r_ours, r.detach().numpy(), atol=1e-13)
    np.testing.assert_allclose(grad, expected.numpy(), atol=1e-10)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**16))
def test_householder_product_matches_torch(m, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, m + 1))  # PyTorch asks m >= n >= k
    k = int(rng.integers(1, n + 1))
    a, tau = rng.uniform(-1, 1, (m, n)), rng.uniform(0, 2, (k,))
    program = from_torch(torch.linalg.householder_product, torch.tensor(a), torch.tensor(tau))
    leaves = [torch.tensor(a, requires_grad=True), torch.tensor(tau, requires_grad=True)]
    q = torch.linalg.householder_product(*leaves)
    cotangent = rng.standard_normal(tuple(q.shape))
    expected = torch.autograd.grad([q], leaves, [torch.tensor(cotangent)])
    tensors = [symgrad.Tensor(a), symgrad.Tensor(tau)]
    np.testing.assert_allclose(program(*tensors).asnumpy(), q.detach().numpy(), atol=1e-13)
    grads = symgrad.grad(lambda x, t: (program(x, t) * symgrad.Tensor(cotangent)).sum(), (0, 1))(*tensors)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g.asnumpy(), e.numpy(), atol=1e-11)


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 5), st.booleans(), st.booleans(), st.integers(0, 2**16))
def test_ormqr_matches_torch(m, left, transpose, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, m + 1))
    a, tau = rng.uniform(-1, 1, (m, n)), rng.uniform(0, 2, (n,))
    other = rng.uniform(-1, 1, (m, 2) if left else (2, m))

    def f(x, t, c):
        return torch.ormqr(x, t, c, left=left, transpose=transpose)

    program = from_torch(f, *(torch.tensor(v) for v in (a, tau, other)))
    leaves = [torch.tensor(v, requires_grad=True) for v in (a, tau, other)]
    out = f(*leaves)
    cotangent = rng.standard_normal(tuple(out.shape))
    expected = torch.autograd.grad([out], leaves, [torch.tensor(cotangent)])
    tensors = [symgrad.Tensor(v) for v in (a, tau, other)]
    np.testing.assert_allclose(program(*tensors).asnumpy(), out.detach().numpy(), atol=1e-13)
    grads = symgrad.grad(lambda *t: (program(*t) * symgrad.Tensor(cotangent)).sum(), (0, 1, 2))(*tensors)
    for g, e in zip(grads, expected):
        np.testing.assert_allclose(g.asnumpy(), e.numpy(), atol=1e-11)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_of_an_empty_matrix_has_torch_shapes(shape, mode):
    a = torch.zeros(shape, dtype=torch.float64)
    q, r = from_torch(lambda x: torch.linalg.qr(x, mode=mode), a)(symgrad.Tensor(a.numpy()))
    q_torch, r_torch = torch.linalg.qr(a, mode=mode)
    np.testing.assert_array_equal(q.asnumpy(), q_torch.numpy())
    assert r.shape == tuple(r_torch.shape)


def test_a_column_already_zero_below_the_diagonal_is_not_reflected():
    """LAPACK's tau = 0 there: R keeps that entry's sign (a reflection would flip it)."""
    a = np.array([[-2.0, 1.0, 0.5], [0.0, 3.0, -1.0], [0.0, 0.0, -4.0]])
    q, r = from_torch(torch.linalg.qr, torch.tensor(a))(symgrad.Tensor(a))
    q_torch, r_torch = torch.linalg.qr(torch.tensor(a))
    np.testing.assert_allclose(r.asnumpy(), r_torch.numpy(), atol=1e-15)
    np.testing.assert_allclose(q.asnumpy(), q_torch.numpy(), atol=1e-15)


def test_an_unknown_mode_is_refused_by_name():
    with pytest.raises(OpError, match="aten.linalg_qr: mode='economic'"):
        from symgrad.core.graph import const
        from symgrad.importers.aten_linalg import _linalg_qr

        _linalg_qr(const(np.eye(2)), "economic")


@settings(max_examples=10, deadline=None)
@given(shapes, st.booleans(), st.integers(0, 2**16))
def test_jax_qr_and_its_derivatives(shape, full, seed):
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    jax.config.update("jax_enable_x64", True)
    from symgrad.importers import from_jax

    batch, m, n = shape
    if full and m > n:  # JAX differentiates the full Q of a wide or square matrix only
        full = False
    rng = np.random.default_rng(seed)
    a = rng.uniform(-1, 1, (*batch, m, n))

    def f(x):
        return tuple(jax.numpy.linalg.qr(x, mode="complete" if full else "reduced"))

    (q, r), pullback = jax.vjp(f, a)
    cotangents = [rng.standard_normal(q.shape), rng.standard_normal(r.shape)]
    (expected,) = pullback(tuple(cotangents))
    (q_ours, r_ours), (grad,) = _ours(from_jax(f, a), [a], cotangents)
    np.testing.assert_allclose(q_ours, np.asarray(q), atol=1e-13)
    np.testing.assert_allclose(r_ours, np.asarray(r), atol=1e-13)
    np.testing.assert_allclose(grad, np.asarray(expected), atol=1e-10)
