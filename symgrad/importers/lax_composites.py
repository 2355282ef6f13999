"""JAX primitives that are compositions of several rows, written with the ATen compositions where
the two frameworks mean the same (``aten_composites``, ``aten_linalg``): inverse hyperbolic
functions, cbrt, rem, arg-max/min, running products, maxima and log-sum-exps (``reverse`` too),
reduce_prod, sort (of several operands too) and top_k, windowed reductions (pooling), pad, and LU, QR and Cholesky factors and
triangular solves. ``LAX`` lists them as :func:`~symgrad.core.registry.lax` entries.
"""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import fold, full, padded, reduce_sum, stack, windows
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, apply, lax
from symgrad.errors import OpError
from symgrad.importers import aten_composites as ac
from symgrad.importers import aten_linalg as al
from symgrad.importers.aten_arithmetic import (
    _aten_argmax,
    _aten_sort,
    _aten_topk,
    _items,
    check_sort_length,
    sort_in_place,
)
from symgrad.importers.aten_composites import _and, _not, _or, _xor
from symgrad.importers.aten_structural import _reversed
from symgrad.importers.lax_rows import over_axes


def _cumulative(build):
    """A running op along ``axis``, from the end when ``reverse``."""

    def run(x: Node, axis: int, reverse: bool = False) -> Node:
        if not reverse:
            return build(x, axis)
        return _reversed(build(_reversed(x, (axis,)), axis), (axis,))

    return run


def _cbrt(x: Node) -> Node:
    return apply("mul", apply("sign", x), apply("pow", apply("abs", x), 1 / 3))


def _argmax(x: Node, axes, index_dtype, largest: bool = True) -> Node:
    (axis,) = axes
    return cast(_aten_argmax(x, axis, False, largest), index_dtype)


def _sort(*operands: Node, dimension: int, is_stable: bool = True, num_keys: int = 1):
    """lax.sort: one operand as aten.sort; several (``jnp.argsort``: the keys and an iota) in
    one compare-and-swap network, ordered by the first ``num_keys`` operands lexicographically,
    every operand swapped with them (stable: a pair swaps only when strictly out of order)."""
    if len(operands) == 1 and num_keys == 1:
        return _aten_sort(operands[0], dimension)[0]
    if not 1 <= num_keys <= len(operands) or len({x.shape for x in operands}) != 1:
        raise OpError(
            f"lax.sort: {len(operands)} operands of shapes {[x.shape for x in operands]} with num_keys={num_keys}; "
            "expected operands of one shape and 1 <= num_keys <= their number"
        )
    x = operands[0]
    if x.ndim == 0:
        return operands
    dim = dimension % x.ndim
    check_sort_length(x, dim, "lax.sort")
    columns = [_items(op, dim) for op in operands]
    sort_in_place(columns, num_keys)
    return tuple(stack(c, dim) for c in columns)


def _lu(a: Node) -> tuple[Node, Node, Node]:
    """lax.linalg.lu: (the packed factors, the 0-based int32 pivots, the int32 permutation with
    ``a[permutation] = L U``), by the unrolled elimination of ``aten_linalg`` (LAPACK's pivots)."""
    rows, pivots, _, _ = al._lu(a, who="lax.linalg.lu")
    m = a.shape[-2]
    batch = a.shape[:-2]
    order = [full(batch, i, np.int64) for i in range(m)]
    for k, p in enumerate(pivots):
        al._swap(order, k, p)
    pivots_out = cast(stack(pivots, -1), np.int32) if pivots else full((*batch, 0), 0, np.int32)
    permutation = cast(stack(order, -1), np.int32) if order else full((*batch, 0), 0, np.int32)
    return al._matrix(rows), pivots_out, permutation


def _top_k(x: Node, k: int, axis: int = -1, **_rest):
    values, indices = _aten_topk(x, k, axis)
    return values, cast(indices, np.int32)


def _reduce_window(fill: float, combine: str):
    """lax.reduce_window_sum (max, min): ``combine`` over each window of the (padded) input."""

    def build(x: Node, window_dimensions, window_strides, padding, base_dilation, window_dilation) -> Node:
        if any(d != 1 for d in base_dilation):
            raise OpError("lax.reduce_window: base_dilation other than 1 has no row")
        grown = padded(x, [tuple(p) for p in padding], fill)
        out = tuple(
            (n - (k - 1) * d - 1) // s + 1
            for n, k, d, s in zip(grown.shape, window_dimensions, window_dilation, window_strides)
        )
        taps = [w for _, w in windows(grown, window_dimensions, window_strides, window_dilation, out)]
        total = taps[0]
        for w in taps[1:]:
            total = apply(combine, total, w)
        return total

    return build


def _pad(x: Node, value: Node, padding_config) -> Node:
    """lax.pad: (low, high, interior) per axis; negative low/high crop."""
    from symgrad.core.families.structural import along, getitem, stack
    from symgrad.importers.aten_structural import _aten_constant_pad_nd

    for axis, (_, _, interior) in enumerate(padding_config):
        if interior and x.shape[axis] > 1:
            fill = apply("mul", apply("add", getitem(x, along(x.ndim, axis, 0)), 0.0), 0.0)
            pieces = []
            for k in range(x.shape[axis]):
                pieces.append(getitem(x, along(x.ndim, axis, k)))
                if k < x.shape[axis] - 1:
                    pieces += [apply("add", fill, value)] * interior
            x = stack(pieces, axis)
    flat = [p for low, high, _ in reversed(padding_config) for p in (low, high)]
    constant = value if not isinstance(value, Node) else None
    if constant is None:
        from symgrad.importers.picks import constant_value

        known = constant_value(value)
        if known is None:
            raise OpError("lax.pad: a padding value computed from the inputs has no row (a constant has)")
        constant = float(known)
    return _aten_constant_pad_nd(x, flat, constant)


def _triangular_solve(a: Node, b: Node, left_side: bool = False, lower: bool = False, transpose_a: bool = False,
                      conjugate_a: bool = False, unit_diagonal: bool = False) -> Node:  # fmt: skip
    """lax.linalg.triangular_solve: X with op(A) X = B (X op(A) = B unless ``left_side``)."""
    op_a = al._mT(a) if transpose_a else a
    return al._solve_triangular(op_a, b, lower == transpose_a, left_side, unit_diagonal)


def _cholesky(a: Node, symmetrize_input: bool = False) -> Node:
    return al._cholesky(a)


def _logical(who: str, *xs: Node) -> tuple[Node, ...]:
    """The operands of JAX's and/or/xor/not and their reductions: bools (on integers these are
    bitwise, which has no row)."""
    for x in xs:
        if isinstance(x, Node) and x.dtype != np.dtype(bool):
            raise OpError(
                f"lax.{who}: on {x.dtype} operands it is bitwise, which has no row (on bools it is logical)"
            )
    return xs


def _any(x: Node, axes: tuple) -> Node:
    """Whether any element along ``axes`` holds: a count of them, not 0."""
    return apply("not_equal", reduce_sum(cast(x, np.int64), axes), 0)


def _qr(a: Node, full_matrices: bool = True, pivoting: bool = False, **_placement) -> tuple[Node, Node]:
    """lax.linalg.qr: (Q, R) by Householder reflectors, LAPACK's; column pivoting has no row."""
    if pivoting:
        raise OpError("lax.linalg.qr: pivoting=True (column pivoting chosen from the values) has no row")
    return al.householder_qr(a, full_matrices, "lax.linalg.qr")


def _reduce_precision(x: Node, exponent_bits: int, mantissa_bits: int) -> Node:
    """Rounding to a narrower float: float32's and float16's widths as a cast there and back."""
    narrower = {(8, 23): np.float32, (5, 10): np.float16, (11, 52): np.float64}.get(
        (exponent_bits, mantissa_bits)
    )
    if narrower is None:
        raise OpError(
            f"lax.reduce_precision to {exponent_bits} exponent and {mantissa_bits} mantissa bits has no row"
        )
    return cast(cast(x, narrower), x.dtype or np.float64)


LAX: tuple[Imported, ...] = (
    lax("asinh", ac._asinh),
    lax("acosh", ac._acosh),
    lax("cbrt", _cbrt),
    lax("rem", ac._fmod),
    lax("argmax", _argmax),
    lax("argmin", lambda x, axes, index_dtype: _argmax(x, axes, index_dtype, False)),
    lax("cumprod", _cumulative(ac._cumprod)),
    lax("cumlogsumexp", _cumulative(ac._logcumsumexp)),
    lax("cummax", _cumulative(lambda x, axis: ac._cummax(x, axis)[0])),
    lax("cummin", _cumulative(lambda x, axis: ac._cummax(x, axis, largest=False)[0])),
    lax("reduce_prod", over_axes(lambda x, axes: fold(x, axes, False, "mul"))),
    lax("reduce_or", over_axes(lambda x, axes: _any(_logical("reduce_or", x)[0], axes))),
    lax("reduce_and", over_axes(lambda x, axes: _not(_any(_not(_logical("reduce_and", x)[0]), axes)))),
    lax("and", lambda a, b: _and(*_logical("and", a, b))),
    lax("or", lambda a, b: _or(*_logical("or", a, b))),
    lax("xor", lambda a, b: _xor(*_logical("xor", a, b))),
    lax("not", lambda x: _not(*_logical("not", x))),
    lax("sort", _sort),
    lax("top_k", _top_k),
    lax("reduce_window_sum", _reduce_window(0.0, "add")),
    lax("reduce_window_max", _reduce_window(-math.inf, "maximum")),
    lax("reduce_window_min", _reduce_window(math.inf, "minimum")),
    lax("pad", _pad),
    lax("triangular_solve", _triangular_solve),
    lax("cholesky", _cholesky),
    lax("lu", _lu),
    lax("qr", _qr),
    lax("reduce_precision", _reduce_precision),
)
