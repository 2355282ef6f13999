"""One point's (or one block's) step of the loop: read its inputs, run the body, then write each
output or add its share to the thread's batch sums.

A batch-summed outer product (a weight gradient: a layer's inputs times its outputs' cotangents,
summed over the points) never forms the per-point matrix: in a block of points it is a call of
the program's outer-sum function, which keeps tiles of the sum in registers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lowering import batch_sums
from lowering.batch_sums import OuterSum, Reshaped, SignedSum
from lowering.c import tiles
from lowering.c.point_program import size_of
from symgrad.core.graph import Node

if TYPE_CHECKING:
    from lowering.c.walk import PointPrinter

# a tile of a batch-summed outer product kept in registers: _SUM_VECTORS vectors of a row's columns
# (then one vector), as many rows as make _LANE_SUMS_OUTER sums (with the vectors of b and one of
# a: 13 of AVX2's 16 registers)
_SUM_VECTORS, _LANE_SUMS_OUTER = 4, 8


def point_lines(printer: PointPrinter, offsets: dict[int, int], arg_start: str, out_base: str) -> list[str]:
    """One point: its arguments start at ``arg_start`` (a format of ``k``), its outputs are
    written at ``out_base`` (a format of ``j``), its sums go to ``offsets`` in ``acc``."""
    real = printer.real
    lines = [f"const {real} *a{k} = {arg_start.format(k=k)};" for k in range(len(printer.args))]
    return lines + printer.body + _results(printer, offsets, out_base)


def block_lines(printer: PointPrinter, offsets: dict[int, int]) -> list[str]:
    """One block of points: its inputs in lanes (the block's last point repeated past
    ``nb``), the program, then each real point's outputs and sums."""
    lanes, lines = printer.lanes, []
    printer.lane = "b"  # the inputs' arrays and the sums' scratch are per lane
    for k, var in enumerate(printer.args):
        if var not in printer.uniform:
            size = size_of(var)
            lines.append(
                f"{printer.array(f'a{k}', size)} for (int b = 0; b < {lanes}; b++) {{ "
                f"const {printer.real} *src = in[{k}] + (p0 + (b < nb ? b : nb - 1)) * stride[{k}]; "
                f"for (int i = 0; i < {size}; i++) a{k}[i * {lanes} + b] = src[i]; }}"
            )
    return lines + printer.body + _results(printer, offsets, "out[{j}]", "b")


def _results(
    printer: PointPrinter, offsets: dict[int, int], out_base: str, lane: str | None = None
) -> list[str]:
    """Each output's share of a batch sum, or its values written at ``out_base``: for point
    ``p``, or with a ``lane`` for each real point of the block."""
    point, loop = ("(p0 + b)", "for (int b = 0; b < nb; b++) ") if lane else ("p", "")
    lines = []
    for j, node in enumerate(printer.outputs):
        size = size_of(node)
        if j in printer.plans and printer.tiled:
            lines += tiles.accumulate(printer, printer.plans[j], offsets[j], _accumulate)
        elif j in printer.plans:
            lines += _accumulate(printer, printer.plans[j], 1, offsets[j])
        else:
            lines.append(
                f"{loop}{{ {printer.real} *o = {out_base.format(j=j)} + {point} * {size}; "
                f"for (int i = 0; i < {size}; i++) o[i] = {printer.at(node, 'i', lane)}; }}"
            )
    return lines


def _accumulate(printer: PointPrinter, plan: batch_sums.Plan, sign: int, offset: int) -> list[str]:
    """Add one point's (or block's) share of a batch sum to the thread's sums (outer products stay fused)."""
    if isinstance(plan, SignedSum):
        return [line for s, term in plan.terms for line in _accumulate(printer, term, s * sign, offset)]
    if isinstance(plan, Reshaped):  # the flat order is unchanged
        return _accumulate(printer, plan.inner, sign, offset)
    op = "+=" if sign > 0 else "-="
    real, lanes = printer.real, printer.lanes
    if isinstance(plan, OuterSum):  # (k, 1) @ (1, q): both factors are vectors in flat order
        a, b = plan.a, plan.b
        k, q = size_of(a), size_of(b)
        if lanes == 1:
            return [
                f"for (int r = 0; r < {k}; r++) {{ {real} v = {printer.at(a, 'r')}; "
                f"for (int c = 0; c < {q}; c++) acc[{offset} + r * {q} + c] {op} v * {printer.at(b, 'c')}; }}"
            ]
        return [_lanes_outer_sum(printer, a, b, sign, offset)]
    node = plan.node
    if lanes == 1:
        return [f"for (int i = 0; i < {size_of(node)}; i++) acc[{offset} + i] {op} {printer.at(node, 'i')};"]
    return [
        f"for (int i = 0; i < {size_of(node)}; i++) {{ {real} s = 0; "
        f"for (int b = 0; b < nb; b++) s += {printer.at(node, 'i', 'b')}; acc[{offset} + i] {op} s; }}"
    ]


def _lanes_outer_sum(printer: PointPrinter, a: Node, b: Node, sign: int, offset: int) -> str:
    """``acc[r, c] += sign * sum over the block's points of a[r] * b[c]``: a call of the
    program's outer-sum function, with scratch for b's lanes turned point-major."""
    a_strides, b_strides = (_lane_strides(printer, x) for x in (a, b))
    return (
        f"{{ {printer.array('bt', size_of(b))} {_lanes_outer_sum_function(printer)}(acc + {offset}, "
        f"{printer.pointer(a)}, {a_strides}, {printer.pointer(b)}, {b_strides}, bt, {size_of(a)}, {size_of(b)}, nb, {sign}); }}"
    )


def _lane_strides(printer: PointPrinter, node: Node) -> str:
    """Where element i of point p of ``node`` is, as ``i_stride, p_stride``."""
    return "1, 0" if node in printer.uniform else f"{printer.lanes}, 1"


def _lanes_outer_sum_function(printer: PointPrinter) -> str:
    """Define (once) and name the batch-summed outer product of a block.

    b's lanes are turned point-major into bt. Tiles of acc (rows x vectors) are summed in
    registers over the block's points, each vector of bt read once for all of a tile's
    rows: 2 rows x 4 vectors, then 8 rows x 1 vector for the columns left, so that a tile
    has 8 independent sums (one vector of 4 columns, one row at a time, waited on its FMA's
    latency: half the H = 20 loss gradient's outer-sum time). Fewer than a vector's
    columns left are dot products over the points. (A 4 x 2 run for 8 columns left ran
    no faster and added 0.05 s to the compile.)
    """
    name = "lanes_outer_sum"
    if name in printer.functions:
        return name
    real, lanes, width = printer.real, printer.lanes, printer.vector

    def tile(rows: int, count: int) -> str:  # rows r.. x ``count`` vectors from c0, over the points
        cells = [(i, j) for i in range(rows) for j in range(count)]
        sums = ", ".join(f"s{i}_{j} = {{0}}" for i, j in cells)
        reads = " ".join(f"lanes_t b{j} = load_lanes(bt + p * q + c0 + {j * width});" for j in range(count))
        a_reads = " ".join(f"{real} v{i} = a[(r + {i}) * ai + p * ap];" for i in range(rows))
        adds = " ".join(f"s{i}_{j} += v{i} * b{j};" for i, j in cells)
        stores = " ".join(
            f"store_lanes(acc + (r + {i}) * q + c0 + {j * width}, "
            f"load_lanes(acc + (r + {i}) * q + c0 + {j * width}) + sign * s{i}_{j});"
            for i, j in cells
        )
        return f"{{ lanes_t {sums}; for (int p = 0; p < nb; p++) {{ {reads} {a_reads} {adds} }} {stores} }}"

    def run(count: int, guard: str) -> str:  # ``count`` vectors of columns from c0, every row
        rows = _LANE_SUMS_OUTER // count
        return (
            f"    {guard} {{ int r = 0; for (; r + {rows} <= k; r += {rows}) {tile(rows, count)} "
            f"for (; r < k; r++) {tile(1, count)} c0 += {count * width}; }}"
        )

    lines = [
        f"static NOINLINE void {name}({real} *restrict acc, const {real} *restrict a, int ai, int ap, "
        f"const {real} *restrict b, int bi, int bp, {real} *restrict bt, int k, int q, int nb, {real} sign)",
        "{",
        f"    for (int c = 0; c < q; c++) for (int p = 0; p < {lanes}; p++) bt[p * q + c] = b[c * bi + p * bp];",
        "    int c0 = 0;",
        run(_SUM_VECTORS, f"while (c0 + {_SUM_VECTORS * width} <= q)"),
        run(1, f"while (c0 + {width} <= q)"),  # the columns left, a vector at a time
        "    for (int r = 0; r < k; r++) for (int c = c0; c < q; c++) {",
        f"        {real} s = 0; for (int p = 0; p < nb; p++) s += a[r * ai + p * ap] * b[c * bi + p * bp];",
        "        acc[r * q + c] += sign * s;",
        "    }",
        "}",
    ]
    printer.functions[name] = "\n".join(lines)
    return name


def sum_offsets(printer: PointPrinter) -> tuple[dict[int, int], int]:
    """Where each batch-summed output starts in a thread's sums, and their total size."""
    offsets, total = {}, 0
    for j in sorted(printer.plans):
        offsets[j], total = total, total + size_of(printer.outputs[j])
    return offsets, total
