"""ATen's dense linear algebra written with rows: LU factorisation with partial pivoting (LAPACK's
choice of pivot: the first largest magnitude, so the factors and pivots are PyTorch's), and from it
determinants, solves and inverses; Householder QR (LAPACK's reflectors); Cholesky factors;
triangular solves.

The elimination is unrolled over the matrix's rows (each step a few nodes over every batch at
once); a pivot is picked by comparison (``select`` chains), which has zero derivative, so the
derivatives are those of the elimination the values went through: the derivatives of det, inv and
solve wherever the matrix is invertible. Symmetric inputs (Cholesky) are read as (A + A^T) / 2,
so the gradient is symmetric, as PyTorch's.
"""

from __future__ import annotations

import numpy as np

from symgrad.core.families.arithmetic import picked
from symgrad.core.families.conversion import cast
from symgrad.core.families.linalg import matmul
from symgrad.core.families.structural import (
    broadcast_to,
    full,
    getitem,
    reduce_sum,
    reshape,
    stack,
    transpose,
)
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, apply, aten
from symgrad.errors import OpError
from symgrad.importers.picks import _constant_indices

_MAX_ORDER = 64  # matrices up to this order (the elimination is unrolled: n^3 / 3 nodes' worth)


def _square(a: Node, who: str) -> int:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise OpError(f"{who}: expected square matrices (..., n, n), got shape {a.shape}")
    if a.shape[-1] > _MAX_ORDER:
        raise OpError(f"{who}: matrices of order {a.shape[-1]}; symgrad unrolls up to order {_MAX_ORDER}")
    return a.shape[-1]


def _matrix_shape(a: Node, who: str) -> tuple[int, int]:
    if a.ndim < 2 or max(a.shape[-2:]) > _MAX_ORDER:
        raise OpError(f"{who}: expected matrices (..., m, n) up to order {_MAX_ORDER}, got shape {a.shape}")
    return a.shape[-2], a.shape[-1]


def _lead(x: Node) -> tuple:
    return (slice(None),) * (x.ndim - 2)


def _rows(a: Node) -> list[Node]:
    return [getitem(a, (*_lead(a), i)) for i in range(a.shape[-2])]


def _col(v: Node) -> Node:
    """``v`` (batch shape) with a trailing axis of 1, to scale rows."""
    return reshape(v, (*v.shape, 1))


def _matrix(rows: list[Node]) -> Node:
    return stack(rows, -2)


def _mT(a: Node) -> Node:  # noqa: N802 (PyTorch's name)
    return transpose(a, (*range(a.ndim - 2), a.ndim - 1, a.ndim - 2))


def _lu(a: Node, extra: Node | None = None, who: str = "lu"):
    """LU with partial pivoting: (the packed LU rows, each step's pivot row (0-based int64 nodes of
    the batch shape), the permutation's sign, and ``extra``'s rows under the same row operations)."""
    from symgrad.core.graph import const

    n = _square(a, who) if extra is not None else _matrix_shape(a, who)[1]
    steps = min(a.shape[-2], n)
    dtype = a.dtype or np.float64
    work, more = _rows(a), _rows(extra) if extra is not None else []
    lower = [full(a.shape[:-2] + (n,), 0, dtype) for _ in work]
    pivots, sign = [], full(a.shape[:-2], 1, dtype)
    for k in range(steps):
        _, p = picked([apply("abs", _at(r, k)) for r in work[k:]], list(range(k, len(work))))
        pivots.append(p)
        sign = apply("select", apply("equal", p, k), sign, apply("neg", sign))
        for group in (work, lower, more):  # LAPACK swaps whole rows, the factors' part too
            if group:
                _swap(group, k, _col(p))
        pivot = _at(work[k], k)
        left = const(np.arange(n) <= k)
        one_hot = const((np.arange(n) == k).astype(dtype))
        for i in range(k + 1, len(work)):
            factor = _col(apply("div", _at(work[i], k), pivot))
            work[i] = apply("select", left, 0.0, apply("sub", work[i], apply("mul", factor, work[k])))
            lower[i] = apply("add", lower[i], apply("mul", factor, one_hot))
            if more:
                more[i] = apply("sub", more[i], apply("mul", factor, more[k]))
    packed = [apply("add", lo, w) for lo, w in zip(lower, work)]
    return packed, pivots, sign, more


def _swap(group: list[Node], k: int, p: Node) -> None:
    """Rows k and p (a node: per batch element) of ``group`` exchanged, in place."""
    top = group[k]
    for i in range(k + 1, len(group)):
        top = apply("select", apply("equal", p, i), group[i], top)
    for i in range(k + 1, len(group)):
        group[i] = apply("select", apply("equal", p, i), group[k], group[i])
    group[k] = top


def _at(row: Node, j: int) -> Node:
    return getitem(row, (*(slice(None),) * (row.ndim - 1), j))


def _diagonal(rows: list[Node]) -> list[Node]:
    return [_at(r, k) for k, r in enumerate(rows)]


def _int32(pivots: list[Node], batch: tuple) -> Node:
    """The pivots as LAPACK gives them: 1-based int32, on a last axis."""
    if not pivots:
        return full((*batch, 0), 0, np.int32)
    return cast(stack([apply("add", p, 1) for p in pivots], -1), np.int32)


def _info(a: Node) -> Node:
    return full(a.shape[:-2], 0, np.int32)


def _det_parts(a: Node, who: str):
    n = _square(a, who)
    if n == 0:
        one = full(a.shape[:-2], 1, a.dtype or np.float64)
        return one, [], [], one
    rows, pivots, sign, _ = _lu(a, who=who)
    return rows, pivots, _diagonal(rows), sign


def _linalg_det(a: Node):
    """aten._linalg_det: (det, LU, pivots)."""
    rows, pivots, diagonal, sign = _det_parts(a, "aten._linalg_det")
    det = sign
    for d in diagonal:
        det = apply("mul", det, d)
    return det, _packed(a, rows), _int32(pivots, a.shape[:-2])


def _linalg_slogdet(a: Node):
    """aten._linalg_slogdet: (sign, log|det|, LU, pivots)."""
    rows, pivots, diagonal, sign = _det_parts(a, "aten._linalg_slogdet")
    total = full(a.shape[:-2], 0, a.dtype or np.float64)
    for d in diagonal:
        sign = apply("mul", sign, apply("sign", d))
        total = apply("add", total, apply("log", apply("abs", d)))
    return sign, total, _packed(a, rows), _int32(pivots, a.shape[:-2])


def _packed(a: Node, rows: list[Node]) -> Node:
    return _matrix(rows) if rows else a


def _batched(a: Node, b: Node) -> tuple[Node, Node]:
    """``a`` (..., n, n) and ``b`` (..., n, m) with their batch axes broadcast together."""
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    return broadcast_to(a, batch + a.shape[-2:]), broadcast_to(b, batch + b.shape[-2:])


def _is_vector(a: Node, b: Node) -> bool:
    """PyTorch's rule: ``b`` is a (batch of) vector(s) if 1-d, or shaped like ``a`` without its last axis."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


def _back(upper: list[Node], rhs: list[Node], unit: bool = False) -> list[Node]:
    """x with U x = rhs, U's rows ``upper`` (entries below the diagonal ignored), by back substitution."""
    n = len(rhs)
    x: list[Node] = [rhs[0]] * n
    for i in range(n - 1, -1, -1):
        acc = rhs[i]
        for j in range(i + 1, n):
            acc = apply("sub", acc, apply("mul", _col(_at(upper[i], j)), x[j]))
        x[i] = acc if unit else apply("div", acc, _col(_at(upper[i], i)))
    return x


def _forward(lower: list[Node], rhs: list[Node], unit: bool = False) -> list[Node]:
    """x with L x = rhs, L's rows ``lower`` (entries above the diagonal ignored)."""
    n = len(rhs)
    x: list[Node] = [rhs[0]] * n
    for i in range(n):
        acc = rhs[i]
        for j in range(i):
            acc = apply("sub", acc, apply("mul", _col(_at(lower[i], j)), x[j]))
        x[i] = acc if unit else apply("div", acc, _col(_at(lower[i], i)))
    return x


def _solve(a: Node, b: Node, who: str) -> tuple[Node, list[Node], list[Node]]:
    """X with A X = B (B a matrix), and A's LU rows and pivots."""
    _square(a, who)
    a, b = _batched(a, b)
    if a.shape[-1] == 0:
        return b, [], []
    rows, pivots, _, more = _lu(a, b, who)
    return _matrix(_back(rows, more)), rows, pivots


def _linalg_solve_ex(a: Node, b: Node, left: bool = True, check_errors: bool = False):
    """aten._linalg_solve_ex: (X, LU, pivots, info) with A X = B (X A = B when not ``left``)."""
    vector = _is_vector(a, b)
    if vector:
        b = reshape(b, (*b.shape, 1))
    if not left:
        a, b = _mT(a), _mT(b)
    x, rows, pivots = _solve(a, b, "aten._linalg_solve_ex")
    if not left:
        x = _mT(x)
    if vector:
        x = reshape(x, x.shape[:-1])
    return x, _packed(a, rows), _int32(pivots, a.shape[:-2]), _info(a)


def _eye(a: Node) -> Node:
    n = a.shape[-1]
    return broadcast_to(_const(np.eye(n, dtype=a.dtype or np.float64)), a.shape)


def _const(value: np.ndarray) -> Node:
    from symgrad.core.graph import const

    return const(value)


def _inv_ex(a: Node, check_errors: bool = False):
    """aten.linalg_inv_ex: (A^-1, info)."""
    return _solve(a, _eye(a), "aten.linalg_inv_ex")[0], _info(a)


def _lu_factor_ex(a: Node, pivot: bool = True, check_errors: bool = False):
    """aten.linalg_lu_factor_ex: (LU, pivots, info), as LAPACK's getrf."""
    if not pivot:
        raise OpError("aten.linalg_lu_factor_ex: pivot=False has no row (partial pivoting does)")
    if min(a.shape[-2:], default=0) == 0:
        return a, full((*a.shape[:-2], 0), 0, np.int32), _info(a)
    rows, pivots, _, _ = _lu(a, who="aten.linalg_lu_factor_ex")
    return _packed(a, rows), _int32(pivots, a.shape[:-2]), _info(a)


def _triangles(packed: Node) -> tuple[Node, Node]:
    """L (m x k, unit diagonal) and U (k x n) of a packed m x n LU, k = min(m, n)."""
    m, n = packed.shape[-2:]
    k = min(m, n)
    below = _const(np.tri(m, n, -1, dtype=bool))
    eye = _const(np.eye(m, n, dtype=packed.dtype or np.float64))
    lower = apply("add", apply("select", below, packed, 0.0), eye)
    upper = apply("select", below, 0.0, packed)
    lead = _lead(packed)
    return getitem(lower, (*lead, slice(None), slice(0, k))), getitem(upper, (*lead, slice(0, k)))


def _permutation(pivots: list[Node], batch: tuple, n: int, dtype) -> Node:
    """P with A = P L U, from the pivot of each step: column i holds a 1 in row perm[i]."""
    perm = [full(batch, i, np.int64) for i in range(n)]
    for k, p in enumerate(pivots):
        top = perm[k]
        for i in range(k + 1, n):
            top = apply("select", apply("equal", p, i), perm[i], top)
        for i in range(k + 1, n):
            perm[i] = apply("select", apply("equal", p, i), perm[k], perm[i])
        perm[k] = top
    columns = [stack([cast(apply("equal", q, r), dtype) for r in range(n)], -1) for q in perm]
    return stack(columns, -1)


def _linalg_lu(a: Node, pivot: bool = True):
    """aten.linalg_lu: (P, L, U) with A = P L U."""
    if not pivot:
        raise OpError("aten.linalg_lu: pivot=False has no row (partial pivoting does)")
    rows, steps, _, _ = _lu(a, who="aten.linalg_lu") if min(a.shape[-2:]) else (_rows(a), [], None, None)
    lower, upper = _triangles(_packed(a, rows))
    return _permutation(steps, a.shape[:-2], a.shape[-2], a.dtype or np.float64), lower, upper


def _constant_permutation(pivots: Node, who: str) -> np.ndarray:
    """Each row's source row (0-based), from LAPACK's 1-based pivots (a constant of the program)."""
    steps = np.asarray(_constant_indices(pivots, who)) - 1
    n = steps.shape[-1]
    perm = np.broadcast_to(np.arange(n), steps.shape).copy()
    for k in range(n):
        for idx in np.ndindex(steps.shape[:-1]):
            p = steps[idx + (k,)]
            perm[idx + (k,)], perm[idx + (p,)] = perm[idx + (p,)], perm[idx + (k,)]
    return perm


def _lu_unpack(packed: Node, pivots: Node, unpack_data: bool = True, unpack_pivots: bool = True):
    """aten.lu_unpack: (P, L, U) from a packed LU and its (constant) pivots."""
    m = packed.shape[-2]
    steps = np.asarray(_constant_indices(pivots, "aten.lu_unpack"))
    padded = np.concatenate(
        [steps, np.broadcast_to(np.arange(steps.shape[-1], m) + 1, (*steps.shape[:-1], m - steps.shape[-1]))],
        -1,
    )
    perm = _constant_permutation(_const(padded), "aten.lu_unpack")
    p = (perm[..., None, :] == np.arange(m)[:, None]).astype(packed.dtype or np.float64)
    lower, upper = _triangles(packed)
    return broadcast_to(_const(p), packed.shape[:-2] + (m, m)), lower, upper


def _lu_solve(packed: Node, pivots: Node, b: Node, left: bool = True, adjoint: bool = False) -> Node:
    """aten.linalg_lu_solve: X with A X = B, A = P L U given packed and its (constant) pivots."""
    if not left:  # X A = B: A^T X^T = B^T
        return _mT(_lu_solve(packed, pivots, _mT(b), True, not adjoint))
    perm = _constant_permutation(pivots, "aten.linalg_lu_solve")
    if perm.ndim > 1 and not (perm == perm.reshape(-1, perm.shape[-1])[0]).all():
        raise OpError(
            "aten.linalg_lu_solve: batches with different pivots have no row (one pivot order does)"
        )
    order = perm.reshape(-1, perm.shape[-1])[0] if perm.size else np.arange(packed.shape[-1])
    packed, b = _batched(packed, b)
    rows, rhs = _rows(packed), _rows(b)
    if not adjoint:  # P L U x = b: L U x = P^T b
        x = _back(rows, _forward(rows, [rhs[int(i)] for i in order], unit=True))
        return _matrix(x)
    columns = _rows(_mT(packed))  # A^T = U^T L^T P^T: U^T y = b, L^T z = y, x = P z
    z = _back(columns, _forward(columns, rhs), unit=True)
    solved: list[Node] = [z[0]] * len(z)
    for i, source in enumerate(order):
        solved[int(source)] = z[i]
    return _matrix(solved)


def _solve_triangular(a: Node, b: Node, upper: bool, left: bool = True, unitriangular: bool = False) -> Node:
    """aten.linalg_solve_triangular: X with A X = B (X A = B when not ``left``), A triangular."""
    if not left:
        return _mT(_solve_triangular(_mT(a), _mT(b), not upper, True, unitriangular))
    _square(a, "aten.linalg_solve_triangular")
    a, b = _batched(a, b)
    rows, rhs = _rows(a), _rows(b)
    if not rhs:
        return b
    return _matrix(_back(rows, rhs, unitriangular) if upper else _forward(rows, rhs, unitriangular))


def _triangular_solve(
    b: Node, a: Node, upper: bool = True, transpose: bool = False, unitriangular: bool = False
):
    """aten.triangular_solve: (X with op(A) X = B, a copy of A)."""
    op_a = _mT(a) if transpose else a
    return _solve_triangular(op_a, b, upper != transpose, True, unitriangular), a


def _cholesky(a: Node, upper: bool = False) -> Node:
    """The Cholesky factor of (A + A^T) / 2: L L^T (U^T U when ``upper``)."""
    n = _square(a, "aten.cholesky")
    a = apply("mul", apply("add", a, _mT(a)), 0.5)
    entry = [[getitem(a, (*_lead(a), i, j)) for j in range(n)] for i in range(n)]
    low: list[list[Node]] = [[full(a.shape[:-2], 0, a.dtype or np.float64)] * n for _ in range(n)]
    for j in range(n):
        acc = entry[j][j]
        for k in range(j):
            acc = apply("sub", acc, apply("square", low[j][k]))
        low[j][j] = apply("sqrt", acc)
        for i in range(j + 1, n):
            acc = entry[i][j]
            for k in range(j):
                acc = apply("sub", acc, apply("mul", low[i][k], low[j][k]))
            low[i][j] = apply("div", acc, low[j][j])
    factor = stack([stack(row, -1) for row in low], -2) if n else a
    return _mT(factor) if upper else factor


def _gram(factor: Node, upper: bool) -> Node:
    """L L^T (U^T U when ``upper``) of the whole factor, as PyTorch's derivative reads it."""
    lower = _mT(factor) if upper else factor
    rows = reshape(lower, (*lower.shape[:-1], 1, lower.shape[-1]))
    cols = reshape(lower, (*lower.shape[:-2], 1, *lower.shape[-2:]))
    return reduce_sum(apply("mul", rows, cols), (lower.ndim,), False)


def _cholesky_solve(b: Node, factor: Node, upper: bool = False) -> Node:
    """aten.cholesky_solve: X with A X = B, A = L L^T (U^T U when ``upper``)."""
    return _solve(_gram(factor, upper), b, "aten.cholesky_solve")[0]


def _cholesky_inverse(factor: Node, upper: bool = False) -> Node:
    return _cholesky_solve(_eye(factor), factor, upper)


def householder_qr(a: Node, complete: bool, who: str) -> tuple[Node, Node]:
    """Q and R of ``a`` (..., m, n) as LAPACK's geqrf and orgqr make them: Householder reflectors
    unrolled over the columns, each making R's diagonal entry -sign(a_kk) |column| (a column
    already zero below the diagonal is left as it is), so the factors are PyTorch's and JAX's.
    ``complete``: Q is m x m and R m x n; else m x k and k x n, k = min(m, n)."""
    m, n = _matrix_shape(a, who)
    steps, dtype = min(m, n), a.dtype or np.float64
    width = height = m if complete else steps
    if m == 0 or n == 0:  # Q the identity's first columns, R empty
        eye = broadcast_to(_const(np.eye(m, width, dtype=dtype)), (*a.shape[:-2], m, width))
        return eye, full((*a.shape[:-2], height, n), 0, dtype)
    rows, reflectors = _rows(a), []
    for k in range(steps):
        column = [_at(rows[i], k) for i in range(k, m)]
        alpha, below = column[0], full(a.shape[:-2], 0, dtype)
        for entry in column[1:]:
            below = apply("add", below, apply("mul", entry, entry))
        flat = apply("equal", below, 0.0)  # LAPACK's tau = 0: no reflection
        norm = apply("sqrt", apply("add", apply("mul", alpha, alpha), below))
        beta = apply("select", apply("less", alpha, 0.0), norm, apply("neg", norm))
        tau = apply(
            "select", flat, 0.0, apply("div", apply("sub", beta, alpha), apply("select", flat, 1.0, beta))
        )
        scale = apply("div", 1.0, apply("select", flat, 1.0, apply("sub", alpha, beta)))
        v = [None, *(apply("mul", entry, scale) for entry in column[1:])]  # v[0] = 1
        _reflect(rows, k, v, tau)
        reflectors.append((k, v, tau))
    q = _rows(broadcast_to(_const(np.eye(m, width, dtype=dtype)), (*a.shape[:-2], m, width)))
    for k, v, tau in reversed(reflectors):
        _reflect(q, k, v, tau)
    r = apply("mul", _matrix(rows[:height]), _const(np.triu(np.ones((height, n), dtype=dtype))))
    return _matrix(q), r


def _reflect(rows: list[Node], k: int, v: list, tau: Node) -> None:
    """Rows k.. of ``rows`` times I - tau v v^T (``v[0]`` is 1), in place."""
    lower = rows[k:]
    w = lower[0]
    for entry, row in zip(v[1:], lower[1:]):
        w = apply("add", w, apply("mul", _col(entry), row))
    scaled = apply("mul", _col(tau), w)
    for i, entry in enumerate(v):
        rows[k + i] = apply(
            "sub", rows[k + i], scaled if entry is None else apply("mul", _col(entry), scaled)
        )


def _householder_product(
    a: Node, tau: Node, width: int | None = None, who: str = "aten.linalg_householder_product"
) -> Node:
    """aten.linalg_householder_product (LAPACK's orgqr): the first n (``width``) columns of
    H_0 ... H_{k-1}, H_j = I - tau_j v_j v_j^T, v_j the j-th column of ``a`` below its diagonal
    with 1 on it."""
    m, n = _matrix_shape(a, who)
    k = tau.shape[-1]
    if k > min(m, n) or tau.shape[:-1] != a.shape[:-2]:
        raise OpError(
            f"{who}: tau of shape {tau.shape} for reflectors of shape {a.shape}; "
            "expected (..., k) with k <= min(m, n) and a's batch shape"
        )
    width = n if width is None else width
    dtype = a.dtype or np.float64
    if m == 0 or width == 0:
        return full((*a.shape[:-2], m, width), 0, dtype)
    q = _rows(broadcast_to(_const(np.eye(m, width, dtype=dtype)), (*a.shape[:-2], m, width)))
    columns = [[_at(row, j) for row in _rows(a)] for j in range(k)]
    for j in reversed(range(k)):
        _reflect(q, j, [None, *columns[j][j + 1 :]], getitem(tau, (*(slice(None),) * (tau.ndim - 1), j)))
    return _matrix(q)


def _ormqr(a: Node, tau: Node, other: Node, left: bool = True, transpose: bool = False) -> Node:
    """aten.ormqr (LAPACK's ormqr): ``other`` times Q (m x m, from ``a``'s reflectors), Q^T when
    ``transpose``, on the left or the right."""
    q = _householder_product(a, tau, a.shape[-2], "aten.ormqr")
    q = _mT(q) if transpose else q
    return matmul(q, other) if left else matmul(other, q)


def _linalg_qr(a: Node, mode: str = "reduced") -> tuple[Node, Node]:
    """aten.linalg_qr: (Q, R); ``mode`` "reduced", "complete", or "r" (Q empty, as PyTorch's)."""
    if mode not in ("reduced", "complete", "r"):
        raise OpError(f"aten.linalg_qr: mode={mode!r}; expected 'reduced', 'complete' or 'r'")
    q, r = householder_qr(a, mode == "complete", "aten.linalg_qr")
    return (full((0,), 0, a.dtype or np.float64), r) if mode == "r" else (q, r)


ATEN: tuple[Imported, ...] = (
    aten("_linalg_det", _linalg_det),
    aten("_linalg_slogdet", _linalg_slogdet),
    aten("_linalg_solve_ex", _linalg_solve_ex),
    aten("linalg_inv_ex", _inv_ex),
    aten("linalg_lu_factor_ex", _lu_factor_ex),
    aten("linalg_lu", _linalg_lu),
    aten("lu_unpack", _lu_unpack),
    aten("linalg_lu_solve", _lu_solve),
    aten("linalg_solve_triangular", _solve_triangular),
    aten("triangular_solve", _triangular_solve),
    aten("cholesky", _cholesky),
    aten("linalg_cholesky_ex", lambda a, upper=False, check_errors=False: (_cholesky(a, upper), _info(a))),
    aten("cholesky_solve", _cholesky_solve),
    aten("cholesky_inverse", _cholesky_inverse),
    aten("linalg_qr", _linalg_qr),
    aten("linalg_householder_product", _householder_product),
    aten("ormqr", _ormqr),
)
