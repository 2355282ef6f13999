"""PyTorch programs whose gather and index tensors are computed from the inputs (``gather`` of an
argsort, ``x[arange, argmax]``, ``grid_sample``'s corners, ``quantile``): the pick at each value
the index can take, chosen where it takes it. Values and vector-Jacobian products against
torch.autograd in float64 over shapes, dims and modes; NaN where PyTorch would raise."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
from symgrad.importers import from_torch  # noqa: E402


def _matches_torch(f, x: np.ndarray, rtol: float = 1e-12) -> None:
    program = from_torch(f, torch.tensor(x))
    leaf = torch.tensor(x, requires_grad=True)
    expected = f(leaf)
    cotangent = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    (grad_torch,) = torch.autograd.grad((expected * torch.tensor(cotangent)).sum(), [leaf])
    value = program(symgrad.Tensor(x)).asnumpy()
    grad = symgrad.grad(lambda t: (program(t) * symgrad.Tensor(cotangent)).sum())(symgrad.Tensor(x)).asnumpy()
    np.testing.assert_allclose(value, expected.detach().numpy(), rtol=rtol, atol=rtol)
    np.testing.assert_allclose(grad, grad_torch.numpy(), rtol=rtol, atol=rtol)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2), st.integers(0, 2**16))
def test_gathers_at_computed_indices_match_torch(dim, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (3, 4, 2))
    _matches_torch(lambda t: torch.gather(t, dim, torch.argsort(t, dim=dim)), x)
    _matches_torch(lambda t: torch.take_along_dim(t, torch.argmax(t, dim=dim, keepdim=True), dim=dim) * t, x)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**16))
def test_advanced_indexing_at_computed_indices_matches_torch(seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (3, 4, 5))
    _matches_torch(lambda t: t[torch.arange(3)[:, None], torch.argmax(t, dim=1)], x)  # adjacent
    _matches_torch(lambda t: t[torch.argmax(t[:, :, 0], dim=0), :, torch.argmin(t[0], dim=1)], x)  # apart
    _matches_torch(lambda t: t[:, torch.argsort(t[0, :, 0]) - 4], x)  # negative, counted from the end
    _matches_torch(lambda t: torch.index_select(t, 2, torch.argsort(t[0, 0])[:3]) * 2, x)


@settings(max_examples=10, deadline=None)
@given(st.sampled_from(["bilinear", "nearest"]), st.sampled_from(["zeros", "border", "reflection"]),
       st.booleans(), st.integers(0, 2**16))  # fmt: skip
def test_grid_sample_matches_torch(mode, padding, align_corners, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (2, 3, 4, 5))

    def sample(t):
        grid = torch.tanh(t[:, :2, :3, :].permute(0, 2, 3, 1)[..., :2] * 2) * 1.2  # some points outside
        return torch.nn.functional.grid_sample(
            t, grid, mode=mode, padding_mode=padding, align_corners=align_corners
        )

    _matches_torch(sample, x, rtol=1e-11)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_matches_torch(interpolation):
    x = np.random.default_rng(4).uniform(-1, 1, (3, 7))
    q = torch.tensor([0.1, 0.5, 0.93], dtype=torch.float64)
    _matches_torch(lambda t: torch.quantile(t, q, dim=1, interpolation=interpolation), x)


def test_an_index_out_of_range_gives_nan_where_pytorch_raises():
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    program = from_torch(
        lambda t: torch.gather(t, 1, torch.argmax(t, dim=1, keepdim=True) + 5), torch.tensor(x)
    )
    assert np.isnan(program(symgrad.Tensor(x)).asnumpy()).all()


@pytest.mark.parametrize("mask", [1, 3, 7])
def test_an_integer_and_with_low_bits_is_the_remainder_as_in_pytorch(mask):
    """grid_sample's reflection takes a parity, ``flips & 1``; on negative ints too."""
    x = np.array([-9.0, -5.0, -2.0, 0.0, 3.0, 7.0, 12.0])

    def f(t):
        return (t.to(torch.int64) & mask).to(torch.float64) * t

    np.testing.assert_array_equal(
        from_torch(f, torch.tensor(x))(symgrad.Tensor(x)).asnumpy(), f(torch.tensor(x)).numpy()
    )


def test_an_integer_and_with_other_masks_is_refused_by_name():
    x = np.array([1.0, 2.0])
    with pytest.raises(symgrad.errors.OpError, match="aten.bitwise_and: bitwise ops on int64"):
        from_torch(lambda t: (t.to(torch.int64) & 5).to(torch.float64), torch.tensor(x))(symgrad.Tensor(x))


@settings(max_examples=10, deadline=None)
@given(st.booleans(), st.integers(0, 2**16))
def test_sorts_order_nan_as_the_largest_value_as_pytorch_does(descending, seed):
    """Values and indices of sort; topk's values (PyTorch leaves the order of its ties' indices open)."""
    x = np.random.default_rng(seed).choice([np.nan, -np.inf, np.inf, 0.5, -1.0, 2.0], size=(2, 6))
    values, indices = from_torch(lambda t: torch.sort(t, dim=1, descending=descending), torch.tensor(x))(
        symgrad.Tensor(x)
    )
    values_torch, indices_torch = torch.sort(torch.tensor(x), dim=1, descending=descending, stable=True)
    np.testing.assert_array_equal(values.asnumpy(), values_torch.numpy())
    np.testing.assert_array_equal(indices.asnumpy(), indices_torch.numpy())
    top = from_torch(lambda t: torch.topk(t, 3, dim=1, largest=not descending)[0], torch.tensor(x))(
        symgrad.Tensor(x)
    )
    np.testing.assert_array_equal(
        top.asnumpy(), torch.topk(torch.tensor(x), 3, dim=1, largest=not descending)[0].numpy()
    )


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 6), st.booleans(), st.integers(0, 2**16))
def test_median_and_nanmedian_with_nans_match_pytorch(length, keepdim, seed):
    """median: NaN and the first NaN's index where one is present; nanmedian: the median of the
    rest, at a position computed from the NaN count (its index is checked to hold the value:
    PyTorch leaves which of equal values it returns open)."""
    rng = np.random.default_rng(seed)
    x = rng.choice([np.nan, 0.5, -1.0, 2.0, 3.0], size=(4, length))
    x[0] = np.nan
    x[1] = rng.uniform(-1, 1, length)
    value, index = from_torch(lambda t: torch.median(t, dim=1, keepdim=keepdim), torch.tensor(x))(
        symgrad.Tensor(x)
    )
    value_torch, index_torch = torch.median(torch.tensor(x), dim=1, keepdim=keepdim)
    np.testing.assert_array_equal(value.asnumpy(), value_torch.numpy())
    np.testing.assert_array_equal(index.asnumpy(), index_torch.numpy())
    value, index = from_torch(lambda t: torch.nanmedian(t, dim=1), torch.tensor(x))(symgrad.Tensor(x))
    value_torch, _ = torch.nanmedian(torch.tensor(x), dim=1)
    np.testing.assert_array_equal(value.asnumpy(), value_torch.numpy())
    held = x[np.arange(4), index.asnumpy()]
    np.testing.assert_array_equal(held, value.asnumpy())
    overall = from_torch(torch.nanmedian, torch.tensor(x))(symgrad.Tensor(x)).asnumpy()
    np.testing.assert_array_equal(overall, torch.nanmedian(torch.tensor(x)).numpy())
    grad = symgrad.grad(
        lambda t: from_torch(lambda u: torch.nanmedian(u, dim=1)[0][1:].sum(), torch.tensor(x))(t)
    )
    expected = np.zeros_like(x)
    rows = [r for r in range(1, 4) if not np.isnan(x[r]).all()]  # an all-NaN row's NaN passes nothing
    expected[rows, index.asnumpy()[rows]] = 1.0
    np.testing.assert_array_equal(grad(symgrad.Tensor(x)).asnumpy(), expected)


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 1), st.integers(1, 4), st.integers(0, 2**16))
def test_scatter_add_at_computed_indices_matches_torch(dim, width, seed):
    x = np.random.default_rng(seed).uniform(-1, 1, (3, 4))

    def picks(t):
        return torch.argsort(t, dim=dim).narrow(dim, 0, min(width, t.shape[dim]))

    _matches_torch(lambda t: t.scatter_add(dim, picks(t), t.narrow(dim, 0, picks(t).shape[dim]) ** 2), x)
    _matches_torch(lambda t: t.scatter_reduce(dim, torch.argsort(t, dim=dim), t * 3, "sum"), x)
    _matches_torch(lambda t: torch.nn.functional.max_pool2d(t[None, None], 2).sum() * t, x)  # its backward


def test_a_scatter_add_out_of_range_gives_nan_where_pytorch_raises():
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    program = from_torch(
        lambda t: t.scatter_add(1, torch.argmax(t, dim=1, keepdim=True) + 5, t), torch.tensor(x)
    )
    assert np.isnan(program(symgrad.Tensor(x)).asnumpy()).all()


@settings(max_examples=10, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**16))
def test_index_add_and_index_put_at_computed_indices_match_torch(k, seed):
    """Mixture-of-experts routing: rows added at a top-k's indices; accumulating puts; one set."""
    x = np.random.default_rng(seed).uniform(-1, 1, (4, 3))
    _matches_torch(lambda t: t.index_add(0, torch.topk(t[:, 0], k).indices, t[:k] ** 2), x)
    _matches_torch(
        lambda t: t.index_put((torch.argmax(t, dim=0) - 4, torch.arange(3)), t[1] * 5, accumulate=True), x
    )
    _matches_torch(lambda t: t.index_put((torch.argmax(t[:, 0]).reshape(1),), t[0:1] * 7), x)


def test_an_index_put_out_of_range_gives_nan_and_a_set_of_several_is_refused():
    x = np.array([[0.5, -1.0], [2.0, 0.25]])
    program = from_torch(
        lambda t: t.index_put((torch.argmax(t, dim=0) + 5,), t, accumulate=True), torch.tensor(x)
    )
    assert np.isnan(program(symgrad.Tensor(x)).asnumpy()).all()
    with pytest.raises(symgrad.errors.OpError, match="aten.index_put: a set at 2 index positions"):
        from_torch(lambda t: t.index_put((torch.argmax(t, dim=0),), t), torch.tensor(x))(symgrad.Tensor(x))
