"""Wide layers in the per-point C program: the point loop as blocked matrix products.

A per-point program (even in blocks of 4-8 points) reads every shared weight matrix once per
block and adds each weight gradient's outer products into the thread's sums once per block:
once a layer's matrix leaves the core's cache (H = 128 and up) that traffic, not arithmetic,
sets the time. A *tiled* program takes ``lanes(...)`` points per block instead, and prints

- a product of a shared matrix and a per-point operand as calls of ``tiled_product``: register
  tiles of ``_COLS`` results x ``TILE_VECTORS`` vectors of points (4 where AVX-512 has 32
  registers: 24 sums, else 2) summed over a panel of the matrix, packed once
  per thread and call (``_panels``), so each panel is read from L1 and the matrix once per block;
- the batch-summed outer products of per-point vectors in one weight gradient (its signed
  terms) as one call of ``tiled_outer_sum``: a product over all the terms' points, each term's
  b values turned point-major in panels of ``TILE_VECTORS`` vectors of columns first
  (``tiled_panels``), its a values read where the block holds them, in register tiles of
  ``_ROWS`` rows x one panel;
- loops over a block's points marked ``omp simd``, and block arrays that reuse the scratch of
  arrays no node reads any more (``PointPrinter.array``).

Both sum in the per-point program's order over the summed index, so results agree with it to
rounding (1e-14 measured). Against OpenBLAS's dgemm (SciPy's, single-threaded, called through
``scipy.linalg.cython_blas``) on 256 x 256 layers and blocks of 32-256 points, on this project's
2-core Zen 4 under other jobs' load: 21-27 GFMA/s for these loops, 12-25 for dgemm (which packs
the whole matrix in every call). So the products are generated, not called: no BLAS thread pool
meets OpenMP's (OpenMP's threads own the cores; each runs these loops on its own blocks), and
float32 needs no second library.

``wide(nodes, shared)`` is the kernel builder's choice: tiled when a product multiplies a
per-point operand by a shared matrix of at least ``WIDE_ELEMENTS`` elements. Measured in CPU
time on the Burgers MLP [2, H, H, H, 1], N = 1e4 (2 threads, loaded machine): tiled / per point
0.78-0.86 (residual) and 0.88-0.95 (residual + weight gradient) at H = 64, 0.85-0.9 for the
gradient at H = 128, 0.65 at H = 256; at H = 16-32 the two were within the noise, so narrow
networks keep the per-point program.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from lowering import batch_sums
from lowering.batch_sums import OuterSum, Reshaped, SignedSum
from lowering.c.point_program import size_of
from symgrad.core.graph import Const, Node, Var
from symgrad.core.registry import CONTRACTION, lookup

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter

# prints one signed term of a batch sum (``outputs._accumulate``)
Accumulate = Callable[["PointPrinter", batch_sums.Plan, int, int], list[str]]

# a shared matrix of at least this many elements (a 64 x 64 layer) makes the program tiled
WIDE_ELEMENTS = 4096
# points per block of a tiled program (``lanes``): a multiple of two vectors of floats on AVX-512.
# 32 against 64 (Burgers MLP, N = 1e4, idle 2-core Zen 4, 5 alternating calls): res+grad 352-397
# against 382-429 ms at H = 256 (1e5 points: 3512-3803 against 3607-3988), level at H = 128 and 512
# and on the residual
LANES = 32
# doubles per block where the compiler targets no AVX-512: block arrays half the size (a modified
# MLP's at H = 128: 1.6 MB a thread, not 3.3; Zen 3's L2 is 512 KB). Against 32 (Zen 3, AVX2,
# 2 threads, N = 1e4, 2-3 alternating rounds, ms): residual 0.82-0.91x the time at H = 128-512 (MLP
# H = 256: 126-134 against 150-158), res+grad 0.86-0.97x at H = 128-256 (modified MLP H = 256:
# 694-709 against 711-750), level at H = 512 (1902-2006 against 1941-2053)
LANES_WITHOUT_AVX512 = 16
_COLS = 6  # results of a product tile (columns of the matrix), each TILE_VECTORS vectors of points
_ROWS = 6  # rows of an outer-sum tile, each TILE_VECTORS vectors of columns
_PANEL = 256  # bytes of b's panels in an outer sum at most: 4 vectors (OUTER_PANEL values)
# rows of a packed panel ahead that a product prefetches: in a kernel whose arrays overflow the L3
# cache (H = 512: 15 MB of block arrays and packs a thread) the panels come from memory. A product
# of 512 x 512 over 32 points after a 32 MB sweep: 22.7-23.2 GFMA/s, 24.6-27.7 prefetching 32-160
# rows ahead, 28.1-28.4 with warm caches; the H = 512 Burgers loss gradient on one thread 0.915x the
# time (5 alternating calls), H = 256 level (1.003x)
_PREFETCH_ROWS = 64


def wide(nodes: Iterable[Node], shared: Iterable[Var], elements: int | None = None) -> bool:
    """Whether a product of ``nodes`` multiplies a per-point operand by a matrix of at least
    ``elements`` (default ``WIDE_ELEMENTS``) elements that every point shares (``shared`` and what
    depends on them alone)."""
    elements = WIDE_ELEMENTS if elements is None else elements
    uniform: set[Node] = set(shared)
    for node in nodes:
        if isinstance(node, Const) or (not isinstance(node, Var) and all(a in uniform for a in node.args)):
            uniform.add(node)
        elif node.args and lookup(node.op).pattern == CONTRACTION:
            matrices = [a for a in node.args if a in uniform and a.ndim == 2]
            if len(matrices) == 1 and size_of(matrices[0]) >= elements:
                return True
    return False


def lanes(itemsize: int, vector_bytes: int) -> int:
    """Points per block of a tiled program computing in reals of ``itemsize`` bytes where the
    compiler's widest vectors are ``vector_bytes`` (``build.native_vector_bytes``): ``LANES``, or
    ``LANES_WITHOUT_AVX512`` for doubles in 32-byte vectors. Either is whole tiles of two vectors
    on every host, so a wrong ``vector_bytes`` costs speed, never results."""
    return LANES_WITHOUT_AVX512 if itemsize == 8 and vector_bytes < 64 else LANES


def header(real: str) -> list[str]:
    """The tiles' vector type (64-byte vectors where AVX-512 has 32 registers for them, else 32)
    and the pragma on loops over a block's points."""
    return [
        '#define SIMD_LANES _Pragma("omp simd")',
        "#if defined(__AVX512F__)",
        "#define TILE_BYTES 64",
        "#else",
        "#define TILE_BYTES 32",
        "#endif",
        f"typedef {real} tile_t __attribute__((vector_size(TILE_BYTES)));",
        f"#define TILE_WIDTH ((int)(TILE_BYTES / sizeof({real})))",
        "#if defined(__AVX512F__)",  # 32 vector registers: tiles of 24 sums
        "#define TILE_VECTORS 4",
        "#else",
        "#define TILE_VECTORS 2",
        "#endif",
        "#define OUTER_PANEL (TILE_VECTORS * TILE_WIDTH)",
        f"static inline tile_t load_tile(const {real} *p) {{ tile_t v; memcpy(&v, p, sizeof v); return v; }}",
        f"static inline void store_tile({real} *p, tile_t v) {{ memcpy(p, &v, sizeof v); }}",
    ]


def product(printer: PointPrinter, name: str, sizes: tuple[int, int, int], a_operand, b_operand) -> str:
    """``op(a) @ op(b)`` for a block of points where exactly one operand is shared: calls of
    ``tiled_product``, one per row of a per-point ``op(a)`` or per column of a per-point ``op(b)``,
    over the shared matrix's panels (packed once per thread, see :func:`_panels`).

    Operands are as in ``products._lanes_matmul``: ``(node, (first, second))`` strides.
    """
    (a, (ar, al)), (b, (bl, bc)) = a_operand, b_operand
    m, k, q = sizes
    lanes, function = printer.lanes, _product_function(printer)

    def plus(pointer: str, step: int) -> str:  # row (or column) r of a per-point operand
        return pointer if count == 1 else f"{pointer} + r * {step}"

    if b in printer.uniform:  # row r of the result: op(b)^T times row r of op(a)
        count, panels = m, _panels(printer, b, (bl, bc), k, q)
        call = (
            f"{function}({plus(name, q * lanes)}, {lanes}, {plus(printer.pointer(a), ar * lanes)}, "
            f"{al * lanes}, {panels}, {k}, {q});"
        )
    else:  # column r of the result: op(a) times column r of op(b)
        count, panels = q, _panels(printer, a, (al, ar), k, m)
        call = (
            f"{function}({plus(name, lanes)}, {q * lanes}, {plus(printer.pointer(b), bc * lanes)}, "
            f"{bl * lanes}, {panels}, {k}, {m});"
        )
    return call if count == 1 else f"for (int r = 0; r < {count}; r++) {call}"


def _panels(printer: PointPrinter, node: Node, strides: tuple[int, int], k: int, q: int) -> str:
    """The name of the shared matrix ``s[l, c] = node[l * strides[0] + c * strides[1]]`` (k x q)
    packed in panels of _COLS columns (column j of panel p, row l, at ``(p * k + l) * _COLS + j``;
    zeros past q), computed once in the prelude by the threads together (an ``omp for``, whose end
    waits for all of them), in the scratch they share: one copy in the caches, not one a thread
    (H = 512: four packs of 2 MB)."""
    key = (node, strides, k, q)
    if key not in printer.packed:
        name = f"pk{len(printer.packed)}"
        size = -(-q // _COLS) * _COLS * k
        offset, printer.shared_scratch = printer.shared_scratch, printer.shared_scratch + size
        sl, sc = strides
        printer.flush(printer.prelude)
        printer.prelude += [
            f"{printer.real} *restrict {name} = packs + {offset};",
            "#pragma omp for schedule(static)",
            f"for (int c = 0; c < {size // k}; c++) for (int l = 0; l < {k}; l++) "
            f"{name}[(c / {_COLS} * {k} + l) * {_COLS} + c % {_COLS}] = "
            f"c < {q} ? {printer.pointer(node)}[l * {sl} + c * {sc}] : 0;",
        ]
        printer.packed[key] = name
    return printer.packed[key]


def _product_function(printer: PointPrinter) -> str:
    """Define (once) ``tiled_product``: ``y[c * ys + b] = sum over l < k of s[l, c] * x[l * xs + b]``
    for ``c < q`` and every point ``b`` of the block, s given as packed panels.

    Per panel of _COLS columns and TILE_VECTORS vectors of points, the tile's sums run over the panel's
    rows in registers, prefetching the panels ``_PREFETCH_ROWS`` rows ahead (on into the next panel;
    a prefetch never faults).
    """
    name = "tiled_product"
    if name in printer.functions:
        return name
    real, cols = printer.real, range(_COLS)

    def loop(vectors: int) -> list[str]:  # the tiles of _COLS columns x ``vectors`` vectors of points
        sums = ", ".join(f"s{j}_{v} = {{0}}" for j in cols for v in range(vectors))
        at = "y + (long)(c0 + {j}) * ys + b0 + {v} * TILE_WIDTH"
        loads = ", ".join(f"x{v} = load_tile(xl + {v} * TILE_WIDTH)" for v in range(vectors))
        adds = " ".join(f"s{j}_{v} += w[{j}] * x{v};" for j in cols for v in range(vectors))
        stores = " ".join(
            f"if ({j} < nc) {{ "
            + " ".join(f"store_tile({at.format(j=j, v=v)}, s{j}_{v});" for v in range(vectors))
            + " }"
            for j in cols
        )
        return [
            f"        for (int b0 = 0; b0 < {printer.lanes}; b0 += {vectors} * TILE_WIDTH) {{",
            f"            tile_t {sums};",
            "            for (int l = 0; l < k; l++) {",
            f"                const {real} *xl = x + l * xs + b0, *w = panel + l * {_COLS}; "
            f"__builtin_prefetch(w + {_PREFETCH_ROWS * _COLS});",
            f"                tile_t {loads}; {adds}",
            "            }",
            f"            {stores}",
            "        }",
        ]

    lines = [
        f"static NOINLINE void {name}({real} *restrict y, long ys, const {real} *restrict x, long xs, "
        f"const {real} *restrict panels, int k, int q)",
        "{",
        f"    for (int c0 = 0; c0 < q; c0 += {_COLS}) {{",
        f"        int nc = q - c0 < {_COLS} ? q - c0 : {_COLS};",
        f"        const {real} *panel = panels + (long)c0 * k;",
        "#if TILE_VECTORS == 4",
        *(loop(4) if printer.lanes % (4 * 64 // printer.itemsize) == 0 else loop(2)),
        "#else",
        *loop(2),
        "#endif",
        "    }",
        "}",
    ]
    printer.functions[name] = "\n".join(lines)
    return name


def accumulate(printer: PointPrinter, plan: batch_sums.Plan, offset: int, each: Accumulate) -> list[str]:
    """Add a block's share of the batch sum ``plan`` to the thread's sums at ``offset``.

    The outer products of two per-point vectors among its signed terms, grouped by size, are one
    product each over all their points (``tiled_outer_sum``, after ``tiled_panels`` turned each
    term's lanes point-major, b times the term's sign); ``each(printer, term, sign, offset)``
    prints the other terms.
    """
    groups: dict[tuple[int, int], list[tuple[int, Node, Node]]] = {}
    lines: list[str] = []
    for sign, term in _terms(plan, 1):
        if isinstance(term, OuterSum) and term.a not in printer.uniform and term.b not in printer.uniform:
            groups.setdefault((size_of(term.a), size_of(term.b)), []).append((sign, term.a, term.b))
        else:
            lines += each(printer, term, sign, offset)
    for (k, q), terms in groups.items():
        panel = _PANEL // printer.itemsize  # OUTER_PANEL at most
        width = -(-q // panel) * panel  # b's columns in whole panels (``_panels_function``)
        bt = _transposed(printer, "b", width * len(terms))
        panels = _panels_function(printer)
        moves = " ".join(
            f"{panels}({bt}, {printer.pointer(b)}, {q}, nb, {len(terms)} * nb, {t} * nb, {sign});"
            for t, (sign, _, b) in enumerate(terms)
        )
        rows = ", ".join(printer.pointer(a) for _, a, _ in terms)
        function = _outer_sum_function(printer)
        lines.append(
            f"{{ {moves} const {printer.real} *rows[] = {{{rows}}}; "
            f"{function}(acc + {offset}, rows, {bt}, {k}, {q}, {len(terms)}, nb); }}"
        )
    return lines


def _terms(plan: batch_sums.Plan, sign: int) -> Iterator[tuple[int, batch_sums.Plan]]:
    """The signed terms of a plan, through signed sums and order-keeping reshapes."""
    if isinstance(plan, SignedSum):
        for s, term in plan.terms:
            yield from _terms(term, s * sign)
    elif isinstance(plan, Reshaped):  # the flat order is unchanged
        yield from _terms(plan.inner, sign)
    else:
        yield sign, plan


def _transposed(printer: PointPrinter, operand: str, size: int) -> str:
    """Scratch for ``size`` values per point of a block turned point-major, for ``operand`` ("a"
    or "b"): outer sums of one size reuse it."""
    key = ("transposed", operand, size)
    if key not in printer.packed:
        offset, printer.scratch = printer.scratch, printer.scratch + size * printer.lanes
        printer.packed[key] = f"(scratch + {offset})"
    return printer.packed[key]


def _panels_function(printer: PointPrinter) -> str:
    """Define (once) ``tiled_panels``: a block's ``q`` values per point (value c of point p at
    ``x[c * lanes + p]``) times sign, point-major in panels of ``OUTER_PANEL`` columns: column c
    of point start + p at ``y[(c / OUTER_PANEL * np + start + p) * OUTER_PANEL + c % OUTER_PANEL]``,
    zeros past q, for p < nb."""
    name = "tiled_panels"
    if name not in printer.functions:
        real = printer.real
        printer.functions[name] = (
            f"static NOINLINE void {name}({real} *restrict y, const {real} *restrict x, int q, int nb, "
            f"long np, long start, {real} sign)\n{{\n"
            "    for (int c0 = 0; c0 < q; c0 += OUTER_PANEL) {\n"
            f"        {real} *panel = y + ((long)(c0 / OUTER_PANEL) * np + start) * OUTER_PANEL;\n"
            "        int nc = q - c0 < OUTER_PANEL ? q - c0 : OUTER_PANEL;\n"
            "        for (int p = 0; p < nb; p++) { int j = 0; "
            f"for (; j < nc; j++) panel[p * OUTER_PANEL + j] = sign * x[(c0 + j) * {printer.lanes} + p]; "
            "for (; j < OUTER_PANEL; j++) panel[p * OUTER_PANEL + j] = 0; }\n"
            "    }\n}"
        )
    return name


def _outer_sum_function(printer: PointPrinter) -> str:
    """Define (once) ``tiled_outer_sum``: ``acc[r * q + c] += sum over terms t and points p < nb
    of rows[t][r * lanes + p] * bt[...]``, bt the terms' b values in panels (``tiled_panels``).

    Tiles of acc, _ROWS rows (then 1 row) x one panel of TILE_VECTORS vectors of columns, are summed in
    registers over the terms' points, each row read where the term's block array holds it;
    the last, partial panel's sums are added column by column.
    """
    name = "tiled_outer_sum"
    if name in printer.functions:
        return name
    real, lanes = printer.real, printer.lanes

    def tile(rows: int, vectors: int) -> str:  # rows r.. x the panel from c0, over the terms' points
        cells = [(i, j) for i in range(rows) for j in range(vectors)]
        at = "acc + (long)(r + {i}) * q + c0 + {j} * TILE_WIDTH"
        sums = ", ".join(f"s{i}_{j} = full ? load_tile({at.format(i=i, j=j)}) : zero" for i, j in cells)
        row_ptrs = " ".join(f"const {real} *a{i} = rows[t] + (long)(r + {i}) * {lanes};" for i in range(rows))
        reads = (
            "tile_t "
            + ", ".join(f"b{j} = load_tile(bp + p * OUTER_PANEL + {j} * TILE_WIDTH)" for j in range(vectors))
            + ";"
        )
        a_reads = " ".join(f"{real} v{i} = a{i}[p];" for i in range(rows))
        adds = " ".join(f"s{i}_{j} += v{i} * b{j};" for i, j in cells)
        stores = " ".join(f"store_tile({at.format(i=i, j=j)}, s{i}_{j});" for i, j in cells)
        part = " ".join(
            " ".join(f"store_tile(last + {j} * TILE_WIDTH, s{i}_{j});" for j in range(vectors))
            + f" for (int j = 0; j < q - c0; j++) acc[(long)(r + {i}) * q + c0 + j] += last[j];"
            for i in range(rows)
        )
        return (
            f"{{ tile_t {sums}; for (int t = 0; t < terms; t++) {{ {row_ptrs} "
            "const " + real + " *bp = panel + (long)t * nb * OUTER_PANEL; "
            f"for (int p = 0; p < nb; p++) {{ {reads} {a_reads} {adds} }} }} "
            f"if (full) {{ {stores} }} else {{ {part} }} }}"
        )

    lines = [
        f"static NOINLINE void {name}({real} *restrict acc, const {real} *const *rows, const {real} *restrict bt, "
        "int k, int q, int terms, int nb)",
        "{",
        f"    const tile_t zero = {{0}}; {real} last[OUTER_PANEL];",
        "    for (int c0 = 0; c0 < q; c0 += OUTER_PANEL) {",
        "        int full = c0 + OUTER_PANEL <= q, r = 0;",
        f"        const {real} *panel = bt + (long)(c0 / OUTER_PANEL) * terms * nb * OUTER_PANEL;",
        "#if TILE_VECTORS == 4",
        f"        for (; r + {_ROWS} <= k; r += {_ROWS}) {tile(_ROWS, 4)}",
        f"        for (; r < k; r++) {tile(1, 4)}",
        "#else",
        f"        for (; r + {_ROWS} <= k; r += {_ROWS}) {tile(_ROWS, 2)}",
        f"        for (; r < k; r++) {tile(1, 2)}",
        "#endif",
        "    }",
        "}",
    ]
    printer.functions[name] = "\n".join(lines)
    return name
