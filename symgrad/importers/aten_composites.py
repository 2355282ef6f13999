"""ATen ops that are compositions of several rows (no one row means them): logical and bitwise
ops on bools, fmax/fmin, copysign, remainder/fmod, hypot, logaddexp, the scaled Bessel and error
functions, products, running products, maxima and log-sum-exps, and a few layers' kernels
(``_trilinear``, ``_cdist_forward``, ``unfold``, ``meshgrid``, two losses).

Each is written with the table's rows, so its derivative, closed form and kernels come from
theirs. ``ATEN`` lists them as :func:`~symgrad.core.registry.aten` entries; the importer looks
them up beside the rows' own (``importers.common.import_table``). PyTorch's primitives (``prims``)
share ATen's names here.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import (
    along,
    aten_dims,
    broadcast_to,
    fold,
    full,
    getitem,
    reduce_sum,
    reshape,
    stack,
)
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, apply, aten
from symgrad.errors import OpError
from symgrad.importers.picks import constant_value

# ----- logical and bitwise (bools only) -----


def _truth(x: Node, who: str) -> Node:
    """``x`` as bools: itself if bool, else ``x != 0``."""
    return x if x.dtype == np.dtype(bool) else apply("not_equal", x, 0)


def _bools(who: str, *xs: Node) -> tuple[Node, ...]:
    """Bitwise ops on bools are the logical ones; on integers they have no row."""
    for x in xs:
        if isinstance(x, Node) and x.dtype != np.dtype(bool):
            raise OpError(f"aten.{who}: bitwise ops on {x.dtype} tensors have no row (on bools they do)")
    return xs


def _not(x: Node) -> Node:
    return apply("equal", x, False)


def _and(a: Node, b: Node) -> Node:
    return apply("select", a, b, False)


def _or(a: Node, b: Node) -> Node:
    return apply("select", a, True, b)


def _xor(a: Node, b: Node) -> Node:
    return apply("not_equal", a, b)


def _isnan(x: Node) -> Node:
    return apply("not_equal", x, x)


# ----- elementwise compositions -----


def _fmax(a: Node, b: Node, largest: bool = True) -> Node:
    """aten.fmax (fmin): the larger (smaller), ignoring a NaN; ties give ``a`` the gradient, as PyTorch."""
    keep = apply("greater_equal" if largest else "less_equal", a, b)
    return apply("select", _or(keep, _isnan(b)), a, b)


def _signbit(x: Node) -> Node:
    """True where ``x`` is negative, -0.0 included (1 / -0.0 is -inf)."""
    return _or(apply("less", x, 0), _and(apply("equal", x, 0), apply("less", apply("div", 1, x), 0)))


def _copysign(a, b) -> Node:
    """|a| with the sign of ``b``."""
    a = a if isinstance(a, Node) else full((), a, np.float64)
    magnitude = apply("abs", a)
    b = b if isinstance(b, Node) else full((), b, magnitude.dtype)
    return apply("select", _signbit(b), apply("neg", magnitude), magnitude)


def _bitwise_and(a, b) -> Node:
    """aten.bitwise_and: logical on bools; on integers only with a constant mask of low bits,
    ``x & (2^k - 1)`` = x mod 2^k (two's complement: Python's %), as grid_sample's reflection
    takes a parity (``flips & 1``)."""
    for x, mask in ((a, b), (b, a)):
        value = mask if not isinstance(mask, Node) else constant_value(mask)
        if isinstance(x, Node) and x.dtype is not None and x.dtype.kind in "iu" and value is not None:
            low = int(np.asarray(value)) if np.ndim(value) == 0 else -1
            if low >= 0 and (low + 1) & low == 0:
                return _remainder(x, full((), low + 1, x.dtype))
    return _and(*_bools("bitwise_and", a, b))


def _angle(x: Node) -> Node:
    """aten.angle of a real tensor: pi where it is negative, 0 elsewhere, NaN for NaN; its
    derivative is 0, as PyTorch's."""
    if x.dtype is not None and x.dtype.kind in "iub":
        x = cast(x, np.float32)  # PyTorch's angle of an integer tensor is float
    steady = apply("stop_gradient", x)
    return apply("select", _isnan(steady), steady, apply("select", apply("less", steady, 0.0), math.pi, 0.0))


def _remainder(a, b) -> Node:
    """Python's ``a % b`` (the sign of ``b``): a - floor_div(a, b) b; d/da = 1, d/db = -floor(a / b)."""
    return apply("sub", a, apply("mul", apply("floor_div", a, b), b))


def _fmod(a, b) -> Node:
    """C's fmod (the sign of ``a``): a - trunc(a / b) b, trunc(a / b) = sign(a b) floor_div(|a|, |b|)."""
    quotient = apply("floor_div", apply("abs", a), apply("abs", b))
    signed = apply("mul", apply("mul", apply("sign", a), apply("sign", b)), quotient)
    return apply("sub", a, apply("mul", signed, b))


def _hypot(a, b) -> Node:
    """sqrt(a^2 + b^2), divided through by a power of two near max(|a|, |b|) (no overflow)."""
    scale = apply("pow2_scale", apply("maximum", apply("abs", a), apply("abs", b)))
    a, b = apply("div", a, scale), apply("div", b, scale)
    return apply("mul", apply("sqrt", apply("add", apply("square", a), apply("square", b))), scale)


def _logaddexp(a, b, base: float = math.e) -> Node:
    """log(e^a + e^b) as max(a, b) + log1p(e^-|a - b|) (base 2: log2 and 2^); ties split evenly."""
    gap = apply("neg", apply("abs", apply("sub", a, b)))
    if base == 2:
        tail = apply("div", apply("log1p", apply("pow", 2.0, gap)), math.log(2))
    else:
        tail = apply("log1p", apply("exp", gap))
    return apply("add", apply("maximum", a, b), tail)


def _scaled_bessel(n: int):
    """exp(-|x|) I_n(x) (special_i0e, i1e)."""
    return lambda x: apply(
        "mul", apply("exp", apply("neg", apply("abs", x))), apply("bessel_i", x, params=(n,))
    )


def _erfcx(x: Node) -> Node:
    """exp(x^2) erfc(x)."""
    return apply("mul", apply("exp", apply("square", x)), apply("erfc", x))


def _asinh(x: Node) -> Node:
    """log1p(a + a^2 / (1 + sqrt(1 + a^2))) for a = |x|, with x's sign (no cancellation)."""

    def positive(a: Node) -> Node:
        square = apply("square", a)
        return apply(
            "log1p",
            apply("add", a, apply("div", square, apply("add", 1, apply("sqrt", apply("add", 1, square))))),
        )

    return apply("select", apply("less", x, 0), apply("neg", positive(apply("neg", x))), positive(x))


def _acosh(x: Node) -> Node:
    """log1p((x - 1) + sqrt((x - 1)(x + 1))), exact near 1."""
    below = apply("sub", x, 1)
    return apply("log1p", apply("add", below, apply("sqrt", apply("mul", below, apply("add", below, 2)))))


def _log_ndtr(x: Node) -> Node:
    """log Phi(x) = log(erfc(-x / sqrt 2) / 2) below -1, log1p(-erfc(x / sqrt 2) / 2) above; each
    branch reads ``x`` only where it is chosen (no 0 * inf in the other's derivative)."""
    low = apply("less", x, -1)
    below, above = apply("select", low, x, -1.0), apply("select", low, 0.0, x)
    r2 = 1 / math.sqrt(2)
    left = apply("log", apply("mul", apply("erfc", apply("mul", below, -r2)), 0.5))
    right = apply("log1p", apply("mul", apply("erfc", apply("mul", above, r2)), -0.5))
    return apply("select", low, left, right)


def _safe_softmax(x: Node, dim: int, dtype=None) -> Node:
    """aten._safe_softmax: softmax along ``dim``, 0 (and no NaN in the derivative) where every
    entry is -inf."""
    x = x if dtype is None else cast(x, dtype)
    if x.ndim == 0:
        return apply("select", apply("equal", x, -math.inf), 0.0, apply("div", x, x))
    dim %= x.ndim
    finite = cast(apply("not_equal", x, -math.inf), x.dtype or np.float64)
    masked = apply("equal", reduce_sum(finite, (dim,), True), 0)
    safe = apply("select", masked, 0.0, x)
    top = apply("stop_gradient", fold(safe, (dim,), True, "maximum"))
    e = apply("exp", apply("sub", safe, top))
    return apply("select", masked, 0.0, apply("div", e, reduce_sum(e, (dim,), True)))


def _std_mean(x: Node, *args, **kwargs) -> tuple[Node, Node]:
    """aten.std_mean: the square root of var_mean's variance, and the mean."""
    from symgrad.importers.aten_structural import _aten_var_mean

    variance, mean = _aten_var_mean(x, *args, **kwargs)
    return apply("sqrt", variance), mean


# ----- products and running folds -----


def _prod(x: Node, dims=None, keepdim: bool = False, dtype=None, output_dtype=None) -> Node:
    """aten.prod (all elements, or ``dim``) and prims.prod (``dims``): a chain of products."""
    x = x if (dtype or output_dtype) is None else cast(x, dtype or output_dtype)
    return fold(x, aten_dims(x, dims) if dims is not None else None, keepdim, "mul")


def _running(x: Node, dim: int, step) -> list[Node]:
    """``step(acc, item)`` run along ``dim``: the running values, one per position."""
    items = [getitem(x, along(x.ndim, dim, k)) for k in range(x.shape[dim])]
    out = [items[0]]
    for item in items[1:]:
        out.append(step(out[-1], item))
    return out


def _cumprod(x: Node, dim: int, dtype=None) -> Node:
    x = x if dtype is None else cast(x, dtype)
    if x.ndim == 0:
        return x
    dim %= x.ndim
    return stack(_running(x, dim, lambda a, b: apply("mul", a, b)), dim)


def _logcumsumexp(x: Node, dim: int) -> Node:
    if x.ndim == 0:
        return x
    dim %= x.ndim
    return stack(_running(x, dim, _logaddexp), dim)


def _cummax(x: Node, dim: int, largest: bool = True) -> tuple[Node, Node]:
    """aten.cummax (cummin): the running largest (smallest) and its index, the latest on ties and
    NaN once one is met, as PyTorch."""
    if x.ndim == 0:
        return x, full((), 0, np.int64)
    dim %= x.ndim
    items = [getitem(x, along(x.ndim, dim, k)) for k in range(x.shape[dim])]
    best, index = items[0], full(items[0].shape, 0, np.int64)
    values, indices = [best], [index]
    for k, item in enumerate(items[1:], 1):
        beats = _or(apply("greater_equal" if largest else "less_equal", item, best), _isnan(item))
        beats = _and(beats, _not(_isnan(best)))
        best = apply("select", beats, item, best)
        index = apply("select", beats, full(item.shape, k, np.int64), index)
        values.append(best)
        indices.append(index)
    return stack(values, dim), stack(indices, dim)


# ----- layers' kernels -----


def _unsqueezed(x: Node, dims) -> Node:
    """``x`` with new axes of size 1 at ``dims`` (positions in the result)."""
    rank = x.ndim + len(dims)
    new = {d % rank for d in dims}
    sizes = iter(x.shape)
    return reshape(x, tuple(1 if i in new else next(sizes) for i in range(rank)))


def _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim: int = 1) -> Node:
    """aten._trilinear (nn.Bilinear's product): the three expanded, multiplied, summed over ``sumdim``."""
    product = apply(
        "mul",
        apply("mul", _unsqueezed(i1, expand1), _unsqueezed(i2, expand2)),
        _unsqueezed(i3, expand3),
    )
    return reduce_sum(product, tuple(sumdim), False) if sumdim else product


def _cdist(x1: Node, x2: Node, p: float = 2.0, compute_mode=None) -> Node:
    """aten._cdist_forward: the p-norm distances between the rows of ``x1`` and of ``x2``."""
    from symgrad.importers.aten_functions import _aten_vector_norm

    gaps = apply("sub", _unsqueezed(x1, (-2,)), _unsqueezed(x2, (-3,)))
    return _aten_vector_norm(gaps, p, [-1])


def _pdist(x: Node, p: float = 2.0) -> Node:
    """aten._pdist_forward: the p-norm distance of each pair of rows i < j, in row-major order."""
    from symgrad.importers.aten_functions import _aten_vector_norm

    n = x.shape[0]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    if not pairs:
        return full((0,), 0, x.dtype or np.float64)
    gaps = [apply("sub", getitem(x, (i,)), getitem(x, (j,))) for i, j in pairs]
    return _aten_vector_norm(stack(gaps, 0), p, [-1])


def _unfold(x: Node, dim: int, size: int, step: int) -> Node:
    """aten.unfold: the windows of ``size`` every ``step`` along ``dim``, on a new last axis."""
    if x.ndim == 0:
        return reshape(x, (1,))
    dim %= x.ndim
    count = (x.shape[dim] - size) // step + 1
    # each window: the taps on a last axis; the windows along dim
    windows = [
        stack([getitem(x, along(x.ndim, dim, k * step + t)) for t in range(size)], -1) for k in range(count)
    ]
    return stack(windows, dim)


def _meshgrid(tensors, indexing: str = "ij") -> tuple[Node, ...]:
    """aten.meshgrid: each 1-d (or 0-d) tensor broadcast along its own axis of the grid."""
    flat = [reshape(t, (-1,)) for t in tensors]
    sizes = [t.shape[0] for t in flat]
    if indexing == "xy" and len(flat) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for k, t in enumerate(flat):
        axis = {0: 1, 1: 0}.get(k, k) if indexing == "xy" and len(flat) >= 2 else k
        placed = [1] * len(flat)
        placed[axis] = t.shape[0]
        out.append(broadcast_to(reshape(t, tuple(placed)), tuple(sizes)))
    return tuple(out)


def _addbmm(x: Node, b1: Node, b2: Node, beta=1, alpha=1) -> Node:
    """aten.addbmm: beta x + alpha sum_b b1[b] @ b2[b]."""
    products = apply("mul", _unsqueezed(b1, (-1,)), _unsqueezed(b2, (1,)))  # (b, n, k, m)
    total = apply("mul", reduce_sum(products, (0, 2), False), alpha)
    return total if beta == 0 else apply("add", apply("mul", x, beta), total)


def _reduced(loss: Node, reduction: int) -> Node:
    """ATen's reduction codes: 0 none, 1 mean, 2 sum."""
    if reduction == 0:
        return loss
    total = reduce_sum(loss, None)
    return apply("div", total, max(math.prod(loss.shape), 1)) if reduction == 1 else total


def _margin_ranking_loss(a, b, target, margin: float = 0.0, reduction: int = 1) -> Node:
    gap = apply("add", apply("neg", apply("mul", target, apply("sub", a, b))), margin)
    return _reduced(apply("maximum", gap, 0), reduction)


def _hinge_embedding_loss(x, target, margin: float = 1.0, reduction: int = 1) -> Node:
    clamped = apply("maximum", apply("sub", margin, x), 0)
    loss = apply(
        "add",
        apply("select", apply("not_equal", target, 1), clamped, 0),
        apply("select", apply("not_equal", target, -1), x, 0),
    )
    return _reduced(loss, reduction)


def _tensor_split(x: Node, indices_or_sections, dim: int = 0) -> tuple[Node, ...]:
    """aten.tensor_split with a tensor of split points (a constant) or a count of sections."""
    from symgrad.importers.picks import _constant_indices

    points = np.asarray(_constant_indices(indices_or_sections, "aten.tensor_split")).reshape(-1)
    dim %= x.ndim
    n = x.shape[dim]
    if points.size == 1 and np.ndim(_constant_indices(indices_or_sections, "aten.tensor_split")) == 0:
        k = int(points[0])
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
        points = np.cumsum(sizes)[:-1]
    edges = [0, *(min(max(int(p), 0), n) for p in points), n]
    return tuple(getitem(x, along(x.ndim, dim, slice(a, max(a, b)))) for a, b in zip(edges[:-1], edges[1:]))


ATEN: tuple[Imported, ...] = (
    *(aten(name, lambda x: _not(_bools("bitwise_not", x)[0])) for name in ("bitwise_not",)),
    aten("bitwise_and", _bitwise_and),
    aten("bitwise_or", lambda a, b: _or(*_bools("bitwise_or", a, b))),
    aten("bitwise_xor", lambda a, b: _xor(*_bools("bitwise_xor", a, b))),
    aten("logical_not", lambda x: _not(_truth(x, "logical_not"))),
    aten("logical_and", lambda a, b: _and(_truth(a, "logical_and"), _truth(b, "logical_and"))),
    aten("logical_or", lambda a, b: _or(_truth(a, "logical_or"), _truth(b, "logical_or"))),
    aten("logical_xor", lambda a, b: _xor(_truth(a, "logical_xor"), _truth(b, "logical_xor"))),
    aten("isnan", _isnan),
    aten("angle", _angle),
    aten("fmax", _fmax),
    aten("fmin", lambda a, b: _fmax(a, b, largest=False)),
    aten("signbit", _signbit),
    aten("copysign", _copysign),
    aten("remainder", _remainder),
    aten("fmod", _fmod),
    aten("hypot", _hypot),
    aten("logaddexp", _logaddexp),
    aten("logaddexp2", lambda a, b: _logaddexp(a, b, 2)),
    aten("asinh", _asinh),
    aten("acosh", _acosh),
    *(aten(name, _scaled_bessel(0)) for name in ("special_i0e", "bessel_i0e")),
    *(aten(name, _scaled_bessel(1)) for name in ("special_i1e", "bessel_i1e")),
    *(aten(name, _erfcx) for name in ("special_erfcx", "erfcx")),
    aten("special_log_ndtr", _log_ndtr),
    aten("_safe_softmax", _safe_softmax),
    aten("prod", _prod),
    aten("std_mean", _std_mean),
    aten("cumprod", _cumprod),
    aten("logcumsumexp", _logcumsumexp),
    aten("cummax", _cummax),
    aten("cummin", lambda x, dim: _cummax(x, dim, largest=False)),
    aten("_trilinear", _trilinear),
    aten("addbmm", _addbmm),
    aten("_cdist_forward", _cdist),
    *(aten(name, _pdist) for name in ("pdist", "_pdist_forward")),
    aten("unfold", _unfold),
    aten("meshgrid", _meshgrid),
    aten("margin_ranking_loss", _margin_ranking_loss),
    aten("hinge_embedding_loss", _hinge_embedding_loss),
    aten("tensor_split.tensor_indices_or_sections", _tensor_split),
)
