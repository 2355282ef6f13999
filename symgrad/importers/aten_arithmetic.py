"""PyTorch's spellings of the arithmetic rows (add, sub, div, pow, maximum, minimum, select) that
need a ``build``: ``add``'s ``alpha``, ``div``'s rounding modes, ``clamp``, reductions to the
largest element, and the picks by comparison (``max.dim``, ``argmax``, ``sort``, ``topk``,
``kthvalue``, ``median``, max pooling, ``prelu``), written as chains of selects with
``arithmetic.picked``, so the derivative reaches the one element picked, as PyTorch's does.
``ATEN`` maps each row to these spellings; ``importers.common`` puts them on the rows
(``OpDef.imports``) after the rows' own plain ones (``aten("mul")``)."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.arithmetic import picked
from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import (
    adaptive_windows,
    along,
    fold,
    full,
    getitem,
    per_axis,
    pooling_windows,
    reduce_sum,
    reshape,
    stack,
)
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, apply, aten
from symgrad.errors import OpError
from symgrad.importers.aten_composites import _isnan
from symgrad.importers.picks import chosen_by_value

ATEN: dict[str, tuple[Imported, ...]] = {}  # each arithmetic row's ATen spellings with a build

# ----- add, sub, div, pow -----


def _scaled(b, alpha):
    """ATen's ``alpha`` argument of add and sub: ``b`` times it."""
    return b if alpha == 1 else apply("mul", alpha, b)


def _aten_div(a, b, rounding_mode=None):
    """ATen's div with a rounding mode: true division, floor division ('floor'), or truncated ('trunc')."""
    if rounding_mode is None:
        return apply("div", a, b)
    if rounding_mode == "floor":
        return apply("floor_div", a, b)
    if rounding_mode == "trunc":  # toward zero: sign(q) floor(|q|)
        quotient = apply("div", a, b)
        return apply("mul", apply("sign", quotient), apply("floor", apply("abs", quotient)))
    raise OpError(
        f"aten.div: rounding_mode={rounding_mode!r} has no op in symgrad's table (None, 'floor', 'trunc' do)"
    )


ATEN["add"] = (aten("add", lambda a, b, alpha=1: apply("add", a, _scaled(b, alpha))),)
ATEN["sub"] = (aten("sub", lambda a, b, alpha=1: apply("sub", a, _scaled(b, alpha))),)
ATEN["div"] = (aten("div", _aten_div), aten("reciprocal", lambda x: apply("div", 1, x)))
ATEN["pow"] = (aten("exp2", lambda x: apply("pow", 2, x)),)

# ----- maximum, minimum: clamps, and reductions to the largest element -----


def _clamp(x, min=None, max=None):  # noqa: A002 (ATen's argument names)
    """ATen's clamp: maximum with ``min``, then minimum with ``max``, each where given."""
    x = x if min is None else apply("maximum", x, min)
    return x if max is None else apply("minimum", x, max)


ATEN["maximum"] = (
    aten("clamp", _clamp),
    aten("hardtanh", lambda x, min_val=-1.0, max_val=1.0: _clamp(x, min_val, max_val)),
    # reductions to the largest element: a chain of maximums (ties share the gradient)
    aten("amax", lambda x, dim=(), keepdim=False: fold(x, tuple(dim), keepdim, "maximum")),
    aten("max.default", lambda x: fold(x, None, False, "maximum")),
)  # fmt: skip
ATEN["minimum"] = (
    aten("amin", lambda x, dim=(), keepdim=False: fold(x, tuple(dim), keepdim, "minimum")),
    aten("min.default", lambda x: fold(x, None, False, "minimum")),
)

# ----- select: picks by comparison, as chains of selects -----


def _items(x: Node, dim: int) -> list[Node]:
    return [getitem(x, along(x.ndim, dim, k)) for k in range(x.shape[dim])]


def _kept(x: Node, dim: int, keepdim: bool) -> Node:
    return reshape(x, x.shape[:dim] + (1,) + x.shape[dim:]) if keepdim else x


def _aten_max_dim(x: Node, dim: int, keepdim: bool = False, largest: bool = True) -> tuple[Node, Node]:
    """aten.max.dim (min.dim with ``largest=False``): the values and their indices along ``dim``."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    values, indices = picked(_items(x, dim), list(range(x.shape[dim])), largest)
    return _kept(values, dim, keepdim), _kept(indices, dim, keepdim)


def _aten_argmax(x: Node, dim=None, keepdim: bool = False, largest: bool = True) -> Node:
    """aten.argmax (argmin): the index of the first largest (smallest) element, over all when ``dim`` is None."""
    if dim is None:
        index = _aten_max_dim(reshape(x, (-1,)), 0, False, largest)[1]
        return reshape(index, (1,) * x.ndim) if keepdim else index
    return _aten_max_dim(x, dim, keepdim, largest)[1]


SORT_LENGTH_LIMIT = 128  # 0.5 s of graph building at 128; 2.5 s at 256, growing as n^2


def precedes(a: Node, b: Node, descending: bool = False) -> Node:
    """Whether ``a`` comes strictly before ``b`` in a sort where NaN is the largest value
    (PyTorch's and JAX's order: NaN last ascending, first descending)."""
    order = apply("greater" if descending else "less", a, b)
    if a.dtype is None or a.dtype.kind != "f":
        return order
    first, second = (b, a) if descending else (a, b)  # ascending: a NaN never precedes; descending: always
    return apply("select", _isnan(first), False, apply("select", _isnan(second), True, order))


def same_place(a: Node, b: Node) -> Node:
    """Whether neither of ``a``, ``b`` comes before the other (equal, or both NaN)."""
    if a.dtype is None or a.dtype.kind != "f":
        return apply("equal", a, b)
    return apply("select", _isnan(a), _isnan(b), apply("equal", a, b))


def _aten_sort(x: Node, dim: int = -1, descending: bool = False, stable=None) -> tuple[Node, Node]:
    """aten.sort: odd-even transposition sort along ``dim`` (``sort_in_place``: stable), the
    values and where each came from. NaN is the largest value, as PyTorch's (last, or first when
    ``descending``)."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    check_sort_length(x, dim, "aten.sort")
    items = _items(x, dim)
    numbers = [full(items[0].shape, k, np.int64) for k in range(len(items))]
    sort_in_place([items, numbers], 1, descending)
    return stack(items, dim), stack(numbers, dim)


def check_sort_length(x: Node, dim: int, who: str) -> None:
    """Refuse a sort along ``dim`` longer than the compare-and-swap network is built for."""
    if x.shape[dim] > SORT_LENGTH_LIMIT:
        raise OpError(
            f"{who}: {x.shape[dim]} elements along dim {dim} of a {x.shape} tensor; symgrad sorts at "
            f"most {SORT_LENGTH_LIMIT} (a compare-and-swap network of n^2/2 steps, each a graph node)"
        )


def sort_in_place(columns: list[list[Node]], num_keys: int = 1, descending: bool = False) -> None:
    """Odd-even transposition sort of ``columns`` (each the items along the sorted axis): n rounds
    of compare-and-swap of neighbours, ordered by the first ``num_keys`` columns lexicographically,
    every column swapped with them; a pair swaps only when strictly out of order, so equal items
    keep their order (a stable sort)."""
    n = len(columns[0])
    for step in range(n):
        for i in range(step % 2, n - 1, 2):
            swap = _before(
                [c[i + 1] for c in columns[:num_keys]], [c[i] for c in columns[:num_keys]], descending
            )
            for c in columns:
                a, b = c[i], c[i + 1]
                c[i], c[i + 1] = apply("select", swap, b, a), apply("select", swap, a, b)


def _before(left: list[Node], right: list[Node], descending: bool) -> Node:
    """Whether keys ``left`` come strictly before keys ``right`` (lexicographic: the next key
    decides where one is equal; NaN the largest)."""
    verdict = precedes(left[-1], right[-1], descending)
    for a, b in zip(reversed(left[:-1]), reversed(right[:-1])):
        earlier = precedes(a, b, descending)
        verdict = apply("select", earlier, True, apply("select", same_place(a, b), verdict, False))
    return verdict


def _aten_topk(
    x: Node,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,  # noqa: A002 (ATen's name)
) -> tuple[Node, Node]:
    """aten.topk: the first ``k`` of the sort, largest first (smallest first with ``largest=False``)."""
    if not sorted:
        raise OpError(
            "aten.topk: sorted=False (an order PyTorch leaves unspecified) has no row; sorted=True has"
        )
    values, indices = _aten_sort(x, dim, largest)
    if x.ndim == 0:
        return values, indices
    first = along(x.ndim, dim % x.ndim, slice(0, k))
    return getitem(values, first), getitem(indices, first)


def _aten_max_pool(x: Node, kernel_size, stride=(), padding=0, dilation=1, ceil_mode: bool = False, *,
                   dims: int) -> tuple[Node, Node]:  # fmt: skip
    """aten.max_pool1d/2d/3d_with_indices: the first largest element of each window (padding is
    -inf) and its index in the flattened input plane, as PyTorch's."""
    taps, out, (_, s, p) = pooling_windows(
        x, dims, kernel_size, stride, padding, dilation, ceil_mode, -np.inf
    )
    spatial, d = x.shape[x.ndim - dims :], per_axis(dilation, dims)
    numbers = []
    for tap, _ in taps:  # each tap's element as a position in the input plane (row-major)
        position = np.zeros(out, np.int64)
        for axis, (o, s_, p_, d_, t) in enumerate(zip(out, s, p, d, tap)):
            along_axis = (np.arange(o) * s_ - p_ + t * d_).reshape(
                [-1 if a == axis else 1 for a in range(dims)]
            )
            position = position * spatial[axis] + along_axis
        numbers.append(position)
    return picked([window for _, window in taps], numbers)


def _aten_kthvalue(x: Node, k: int, dim: int = -1, keepdim: bool = False) -> tuple[Node, Node]:
    """aten.kthvalue: the ``k``-th smallest element along ``dim`` and its index (the sort's)."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    values, indices = _aten_sort(x, dim)
    at = along(x.ndim, dim, k - 1)
    return _kept(getitem(values, at), dim, keepdim), _kept(getitem(indices, at), dim, keepdim)


def _aten_median(x: Node, dim: int | None = None, keepdim: bool = False):
    """aten.median: the lower median ((n + 1) // 2-th smallest), with its index along ``dim``;
    over all elements (the value alone) without one. NaN where one is among them, with the first
    NaN's index, as PyTorch."""
    if dim is None:
        return _aten_median(reshape(x, (-1,)), 0)[0]
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    value, index = _aten_kthvalue(x, (x.shape[dim] + 1) // 2, dim, keepdim)
    if x.dtype is None or x.dtype.kind != "f":
        return value, index
    flags = apply("select", _isnan(x), 1.0, 0.0)
    some, first = _aten_max_dim(flags, dim, keepdim)
    has_nan = apply("equal", some, 1.0)
    return apply("select", has_nan, math.nan, value), apply("select", has_nan, first, index)


def _aten_nanmedian(x: Node, dim: int | None = None, keepdim: bool = False):
    """aten.nanmedian: the lower median of the values that are not NaN (sorted, NaN last: the
    ((count + 1) // 2)-th, a position computed from the inputs), with its index; NaN and index 0
    where all are NaN, as PyTorch."""
    if dim is None:
        return _aten_nanmedian(reshape(x, (-1,)), 0)[0]
    if x.ndim == 0 or x.dtype is None or x.dtype.kind != "f":
        return _aten_median(x, dim, keepdim)
    dim %= x.ndim
    values, indices = _aten_sort(x, dim)
    count = reduce_sum(cast(apply("equal", x, x), np.int64), (dim,))
    position = apply("floor_div", apply("sub", count, 1), 2)
    n, dtype = x.shape[dim], x.dtype

    def at(source: Node, fill) -> Node:
        def build(values_) -> Node:
            return getitem(source, along(x.ndim, dim, values_[0]))

        default = full(position.shape, fill, source.dtype or dtype)
        return _kept(
            chosen_by_value([position], [n], build, lambda m: m, default, "aten.nanmedian"), dim, keepdim
        )

    return at(values, math.nan), at(indices, 0)


def _aten_adaptive_max_pool(x: Node, output_size, *, dims: int) -> tuple[Node, Node]:
    """aten.adaptive_max_pool1d/2d/3d: the first largest element of each of PyTorch's adaptive
    windows (see ``adaptive_windows``) and its index in the flattened input plane."""
    lead, spatial, out = x.ndim - dims, x.shape[x.ndim - dims :], per_axis(output_size, dims)
    spans = [adaptive_windows(n, o) for n, o in zip(spatial, out)]
    numbers = np.arange(int(np.prod(spatial))).reshape(spatial)
    values, indices = [], []
    for position in np.ndindex(*out):
        box = tuple(slice(*spans[axis][i]) for axis, i in enumerate(position))
        region = getitem(x, (slice(None),) * lead + box)
        taps = [getitem(region, (slice(None),) * lead + e) for e in np.ndindex(*region.shape[lead:])]
        value, index = picked(taps, [int(k) for k in numbers[box].ravel()])
        values.append(value)
        indices.append(index)
    shape = x.shape[:lead] + tuple(out)
    return reshape(stack(values, lead), shape), reshape(stack(indices, lead), shape)


def _aten_prelu(x: Node, weight: Node) -> Node:
    """aten.prelu: ``x`` where positive, else ``weight * x``, one weight per channel (axis 1) or one for all."""
    if weight.ndim == 1 and weight.shape[0] > 1 and x.ndim >= 2:
        weight = reshape(weight, (1, -1) + (1,) * (x.ndim - 2))
    elif weight.ndim == 1 and weight.shape[0] == 1:
        weight = reshape(weight, ())
    return _prelu_kernel(x, weight)


def _prelu_kernel(x: Node, weight: Node) -> Node:
    """x where positive, else weight x (weight already broadcasts): PReLU'(0) is the weight, as PyTorch's."""
    return apply("select", apply("greater", x, 0), x, apply("mul", weight, x))


ATEN["select"] = (
    aten("max.dim", _aten_max_dim),
    aten("min.dim", lambda x, dim, keepdim=False: _aten_max_dim(x, dim, keepdim, largest=False)),
    aten("argmax", _aten_argmax),
    aten("argmin", lambda x, dim=None, keepdim=False: _aten_argmax(x, dim, keepdim, largest=False)),
    aten("sort", _aten_sort),
    aten("topk", _aten_topk),
    aten("kthvalue", _aten_kthvalue),
    aten("median", _aten_median),
    aten("nanmedian", _aten_nanmedian),
    *(aten(f"max_pool{n}d_with_indices", lambda *a, n=n, **k: _aten_max_pool(*a, **k, dims=n))
      for n in (1, 2, 3)),  # fmt: skip
    *(aten(f"max_pool{n}d", lambda *a, n=n, **k: _aten_max_pool(*a, **k, dims=n)[0]) for n in (1, 2, 3)),
    *(aten(f"adaptive_max_pool{n}d", lambda x, size, n=n: _aten_adaptive_max_pool(x, size, dims=n))
      for n in (1, 2, 3)),  # fmt: skip
    aten("prelu", _aten_prelu),
    aten("_prelu_kernel", _prelu_kernel),
)  # fmt: skip
