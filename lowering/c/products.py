"""Matrix products (CONTRACTION nodes) in the per-point C program.

Point by point, ``op(a) @ op(b)`` is a loop nest: dot products when b's rows are contiguous,
register blocks of _ROWS x _COLS results otherwise, sums of rows for small results. In a block
of points (lanes) it is a call of one of the program's product functions, whose inner loops run
over the points on SIMD lanes, one per kind of operand (per point or shared).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lowering.c import tiles
from symgrad.core.graph import Node

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter

ROWS, COLS = 4, 8  # a register block: 4 rows of a times 8 columns of b
# vectors of results of a blocked product summed together: with the vectors of a and the
# weight they fill 15 of AVX2's 16 registers (measured, 32 x 32 on 8 lanes: 12 sums 16-20 GFMA/s
# against 11-15 for 8, whose reads the compiler folded into the FMAs)
_LANE_SUMS = 12


def emit(printer: PointPrinter, node: Node, name: str) -> None:
    """``op(a) @ op(b)`` with params ``(transpose_a, transpose_b)``."""
    printer.flush()
    (a, b), (ta, tb) = node.args, node.params
    ta, tb = ta and a.ndim == 2, tb and b.ndim == 2
    # op(a) is (m, k), op(b) is (k, q); vectors are a row (a) and a column (b)
    if a.ndim == 2:
        m, k = (a.shape[1], a.shape[0]) if ta else a.shape
    else:
        m, k = 1, a.shape[0]
    q = (b.shape[0] if tb else b.shape[1]) if b.ndim == 2 else 1

    a_strides = (1, m) if ta else (k, 1)  # element (r, l) of op(a) is r * first + l * second of a
    b_strides = (1, k) if tb else (q, 1)  # element (l, c) of op(b)

    def a_index(r: str, l: str) -> str:  # noqa: E741 - the summed index, as in the loops
        return f"{r} * {a_strides[0]} + {l} * {a_strides[1]}"

    def b_index(l: str, c: str) -> str:  # noqa: E741
        return f"{l} * {b_strides[0]} + {c} * {b_strides[1]}"

    if printer.lane:
        loops = _lanes_matmul(printer, name, (m, k, q), (a, a_strides), (b, b_strides))
        printer.body.append(f"{printer.array(name, m * q)} {loops}")
        return

    def a_at(r: str, l: str) -> str:  # noqa: E741
        return printer.at(a, a_index(r, l))

    def b_at(l: str, c: str) -> str:  # noqa: E741
        return printer.at(b, b_index(l, c))

    a_ik, b_kj = a_at("r", "l"), b_at("l", "c")
    if tb:  # rows of b are contiguous: dot products (the pragma allows a vectorized sum)
        loops = _dot_products(name, (0, m), (0, q), (k, q), a_ik, b_kj, printer.real, vectorized=True)
    elif m >= ROWS and q >= COLS:  # register blocks of the result, then the edges
        loops = _blocked_matmul(printer, name, (m, k, q), a_at, b_at)
    else:  # columns of the result are contiguous in b: accumulate rows
        loops = _row_sums(name, (0, m), (k, q), a_ik, b_kj, printer.real)
    printer.body.append(f"{printer.array(name, m * q)} {loops}")


def _lanes_matmul(printer: PointPrinter, name: str, sizes: tuple[int, int, int], a_operand, b_operand) -> str:
    """``op(a) @ op(b)`` for a block of points: a call of the program's product function
    for this pair of kinds of operand (per point or shared), sizes and strides its arguments.

    ``a_operand`` is ``(a, (r_stride, l_stride))``: element (r, l) of op(a) is element
    ``r * r_stride + l * l_stride`` of a (likewise ``(b, (l_stride, c_stride))``). One function
    per kind keeps the source and the compile short (an MLP's loss gradient has some twenty
    products: its compile went from 3.2-3.7 s to 1.0-1.4 s).
    """
    (a, (ar, al)), (b, (bl, bc)) = a_operand, b_operand
    if printer.tiled and (a in printer.uniform) != (b in printer.uniform):
        return tiles.product(printer, name, sizes, a_operand, b_operand)
    function = _lanes_matmul_function(printer, a in printer.uniform, b in printer.uniform)
    m, k, q = sizes
    return f"{function}({name}, {printer.pointer(a)}, {printer.pointer(b)}, {m}, {k}, {q}, {ar}, {al}, {bl}, {bc});"


def _lanes_matmul_function(printer: PointPrinter, shared_a: bool, shared_b: bool) -> str:
    """Define (once) and name the block product for per-point or shared operands.

    _LANE_SUMS vectors of results are summed together, so each vector of a is read once for
    a few columns; the last columns go in smaller blocks (of 3, 2 and 1 after blocks of 6).
    """
    name = f"lanes_matmul_{'s' if shared_a else 'p'}{'s' if shared_b else 'p'}"
    if name in printer.functions:
        return name
    real, lanes, width = printer.real, printer.lanes, printer.vector
    vectors = range(lanes // width)
    block = max(1, _LANE_SUMS // len(vectors))  # columns per block

    def term(shared: bool, pointer: str, index: str, v: int) -> str:  # a vector of points, or a scalar
        if shared:
            return f"{pointer}[{index}]"
        return f"load_lanes({pointer} + ({index}) * {lanes} + {v * width})"

    a_type = real if shared_a else "lanes_t"

    def columns(count: int) -> str:
        sums = ", ".join(f"s{j}_{v} = {{0}}" for j in range(count) for v in vectors)
        reads = " ".join(
            f"{a_type} x{v} = {term(shared_a, 'a', 'r * ar + l * al', v)};"
            for v in (vectors[:1] if shared_a else vectors)
        )
        adds = " ".join(
            f"s{j}_{v} += x{0 if shared_a else v} * {term(shared_b, 'b', f'l * bl + (c0 + {j}) * bc', v)};"
            for j in range(count)
            for v in vectors
        )
        stores = " ".join(
            f"store_lanes(y + (r * q + c0 + {j}) * {lanes} + {v * width}, s{j}_{v});"
            for j in range(count)
            for v in vectors
        )
        return f"{{ lanes_t {sums}; for (int l = 0; l < k; l++) {{ {reads} {adds} }} {stores} }}"

    lines = [
        f"static NOINLINE void {name}({real} *restrict y, const {real} *restrict a, const {real} *restrict b, "
        "int m, int k, int q, int ar, int al, int bl, int bc)",
        "{",
        "    for (int r = 0; r < m; r++) {",
        "        int c0 = 0;",
        f"        for (; c0 + {block} <= q; c0 += {block}) {columns(block)}",
    ]
    count = block
    while count > 1:
        count = (count + 1) // 2
        lines.append(f"        if (c0 + {count} <= q) {{ {columns(count)} c0 += {count}; }}")
    lines += ["    }", "}"]
    printer.functions[name] = "\n".join(lines)
    return name


def _blocked_matmul(printer: PointPrinter, name: str, sizes: tuple[int, int, int], a_at, b_at) -> str:
    """``op(a) @ op(b)`` in blocks of ROWS x COLS results kept in registers over the sum.

    ``a_at(r, l)`` and ``b_at(l, c)`` read op(a) and op(b). Rows and columns past the last
    whole block are summed by the plain loop.
    """
    m, k, q = sizes
    a_ik, b_kj = a_at("r", "l"), b_at("l", "c")
    rows, cols = m - m % ROWS, q - q % COLS
    real = printer.real
    zero = ", ".join(["0"] * (ROWS * COLS))
    a_reads = " ".join(f"{real} v{i} = {a_at(f'(r0 + {i})', 'l')};" for i in range(ROWS))
    sums = " ".join(f"s[{i * COLS} + j] += v{i} * w;" for i in range(ROWS))
    block = (  # UNROLL_BLOCK unrolls the column loop fully, so the block stays in registers
        f"for (int r0 = 0; r0 < {rows}; r0 += {ROWS}) for (int c0 = 0; c0 < {cols}; c0 += {COLS}) {{ "
        f"{real} s[{ROWS * COLS}] = {{{zero}}}; "
        f"for (int l = 0; l < {k}; l++) {{ {a_reads} "
        f"UNROLL_BLOCK for (int j = 0; j < {COLS}; j++) {{ {real} w = {b_at('l', '(c0 + j)')}; {sums} }} }} "
        f"for (int i = 0; i < {ROWS * COLS}; i++) {name}[(r0 + i / {COLS}) * {q} + c0 + i % {COLS}] = s[i]; }}"
    )
    edges = []
    if cols < q:  # the last columns of the blocked rows
        edges.append(_dot_products(name, (0, rows), (cols, q), (k, q), a_ik, b_kj, real, vectorized=False))
    if rows < m:  # the last rows
        edges.append(_row_sums(name, (rows, m), (k, q), a_ik, b_kj, real))
    return " ".join([block, *edges])


def _dot_products(name, rows, cols, kq, a_ik: str, b_kj: str, real: str, vectorized: bool) -> str:
    """Results ``rows`` x ``cols`` (ranges) of ``op(a) @ op(b)``, each as one sum over l."""
    k, q = kq
    pragma = "SIMD_SUM " if vectorized else ""
    return (
        f"for (int r = {rows[0]}; r < {rows[1]}; r++) for (int c = {cols[0]}; c < {cols[1]}; c++) "
        f"{{ {real} s = 0; {pragma}for (int l = 0; l < {k}; l++) s += {a_ik} * {b_kj}; {name}[r * {q} + c] = s; }}"
    )


def _row_sums(name, rows, kq, a_ik: str, b_kj: str, real: str) -> str:
    """Rows ``rows`` (a range) of ``op(a) @ op(b)`` as sums of rows of op(b), contiguous in the result."""
    k, q = kq
    return (
        f"for (int i = {rows[0] * q}; i < {rows[1] * q}; i++) {name}[i] = 0; "
        f"for (int r = {rows[0]}; r < {rows[1]}; r++) for (int l = 0; l < {k}; l++) {{ {real} v = {a_ik}; "
        f"for (int c = 0; c < {q}; c++) {name}[r * {q} + c] += v * {b_kj}; }}"
    )
