"""JAX's spellings with a ``build`` of the rows outside the structural family: primitives whose
params are not the row's (``integer_pow``, ``clamp``'s operand order, ``reduce_max``'s axes,
``select_n``, ``dot_general``'s dimension numbers, ``round``'s rounding method, the casts) or
that are written with a row (``exp2``, ``rsqrt``, ``bessel_i0e``, ``digamma``, ``is_finite``).
``LAX`` maps each row to them; ``importers.common`` puts them on the rows (``OpDef.imports``)
after the rows' own plain ones (``lax("sin")``)."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.families.linalg import matmul
from symgrad.core.families.structural import fold, getitem, reshape, stack, transpose
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, apply, lax
from symgrad.errors import OpError
from symgrad.importers.aten_arithmetic import _clamp
from symgrad.importers.aten_functions import _rounded

LAX: dict[str, tuple[Imported, ...]] = {}  # each row's JAX spellings with a build

# ----- arithmetic -----


def _select_n(which, *cases):
    """JAX's select_n: ``cases[which]``; with a boolean ``which``, cases[1] where it holds."""
    if len(cases) != 2 or which.dtype != np.dtype(bool):
        raise OpError(
            f"select_n with {len(cases)} cases and a {which.dtype} selector has no row (2 cases, bool)"
        )
    return apply("select", which, cases[1], cases[0])


LAX["pow"] = (
    lax("integer_pow", lambda x, y: apply("pow", x, y)),
    lax("exp2", lambda x: apply("pow", 2, x)),
)


def over_axes(build):
    """A JAX reduction: ``build(x, axes)``, or ``x`` itself where ``axes`` is empty (JAX reduces
    over no axis there; symgrad's folds and sums read no axes as all of them)."""

    def reduce(x: Node, axes) -> Node:
        return build(x, tuple(axes)) if len(axes) else x

    return reduce


LAX["maximum"] = (
    lax("clamp", lambda low, x, high: _clamp(x, low, high)),
    lax("reduce_max", over_axes(lambda x, axes: fold(x, axes, False, "maximum"))),
)
LAX["minimum"] = (lax("reduce_min", over_axes(lambda x, axes: fold(x, axes, False, "minimum"))),)
LAX["select"] = (lax("select_n", _select_n),)

# ----- matmul -----


def _lax_dot_general(a: Node, b: Node, dimension_numbers) -> Node:
    """lax.dot_general: batch axes first, then a's free axes, then b's; contracted axes summed.

    Each batch item is a matrix product of ``a`` with its free axes in front and its contracted
    ones behind, reshaped to two axes, and ``b`` the other way round."""
    (a_sum, b_sum), (a_batch, b_batch) = dimension_numbers
    a_free = [i for i in range(a.ndim) if i not in a_sum and i not in a_batch]
    b_free = [i for i in range(b.ndim) if i not in b_sum and i not in b_batch]
    a = transpose(a, (*a_batch, *a_free, *a_sum))
    b = transpose(b, (*b_batch, *b_sum, *b_free))
    batch = a.shape[: len(a_batch)]
    free_a, free_b = a.shape[len(a_batch) : len(a_batch) + len(a_free)], b.shape[len(b_batch) + len(b_sum) :]
    inner = math.prod(a.shape[len(a_batch) + len(a_free) :])
    products = []
    for index in np.ndindex(*batch):
        left = reshape(getitem(a, index) if index else a, (math.prod(free_a), inner))
        right = reshape(getitem(b, index) if index else b, (inner, math.prod(free_b)))
        products.append(reshape(matmul(left, right), free_a + free_b))
    if not batch:
        return products[0]
    return reshape(stack(products, 0), batch + free_a + free_b)


LAX["matmul"] = (lax("dot_general", _lax_dot_general),)

# ----- functions: rsqrt, scaled Bessel functions, digamma, casts, rounding, is_finite -----


def _lax_round(x: Node, rounding_method=1) -> Node:
    """lax.round: half to even (method 1, jnp.round's), or half away from zero (method 0)."""
    if int(rounding_method) == 1:
        return apply("round", x)
    return apply("mul", apply("sign", x), apply("floor", apply("add", apply("abs", x), 0.5)))


LAX["sqrt"] = (lax("rsqrt", lambda x: apply("div", 1, apply("sqrt", x))),)
LAX["bessel_i"] = (  # JAX's exponentially scaled ones: exp(-|x|) I_n(x)
    *(lax(f"bessel_i{n}e", lambda x, n=n: apply("mul", apply("exp", apply("neg", apply("abs", x))), apply("bessel_i", x, params=(n,)))) for n in (0, 1)),
)  # fmt: skip
LAX["polygamma"] = (lax("digamma", lambda x: apply("polygamma", x, params=(0,))),)
LAX["cast"] = (lax("convert_element_type", lambda x, new_dtype, weak_type=False: cast(x, new_dtype)),)
LAX["floor"] = (lax("floor", _rounded("floor")),)
LAX["ceil"] = (lax("ceil", _rounded("ceil")),)
LAX["round"] = (lax("round", _lax_round),)
# is_finite: x - x is 0 for a finite x, NaN for inf and NaN (a closed form's symbols are finite)
LAX["equal"] = (lax("is_finite", lambda x: apply("equal", apply("sub", x, x), 0)),)
