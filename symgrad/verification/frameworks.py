"""The part of ``verify`` shared by every framework's programs: an imported program's exact
derivative blocks, and a framework's own blocks compared with them entry by entry.

``torch_program.py`` and ``jax_program.py`` import a program and compute its framework's
derivatives; this module does the rest the same way for both.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.autodiff.tracing import Trace
from symgrad.core.graph import free_vars
from symgrad.evaluate import value_of
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor
from symgrad.verification import methods
from symgrad.verification.blocks import derivative_blocks
from symgrad.verification.kinks import kink_aware, kink_notes
from symgrad.verification.report import FAIL, Report, Row, compare, magnitude

# rtol, and atol as a fraction of the block's largest entry; an error up to 10x symgrad's own
# kernel's rounding error in the same dtype is also allowed (a correct program makes as much)
TOLERANCE = {np.dtype(np.float64): (1e-9, 1e-11), np.dtype(np.float32): (1e-4, 1e-5)}


def has_leaf(inputs: Sequence, test: Callable[[object], bool]) -> bool:
    """True when ``test`` holds for some input, or a leaf of a list, tuple or dict of them."""
    for value in inputs:
        if isinstance(value, list | tuple):
            if has_leaf(value, test):
                return True
        elif isinstance(value, dict):
            if has_leaf(list(value.values()), test):
                return True
        elif test(value):
            return True
    return False


@dataclass
class TracedProgram:
    """An imported program traced at its inputs: what both ways of checking it start from."""

    outputs: tuple[Tensor, ...]
    wrt: list  # the differentiated inputs' variables, then the weights'
    labels: list[str]  # their names in the report
    env: dict  # every variable's value
    point: str  # "x (2, 3), y (3,)": the differentiated inputs, for the report's title


def trace_program(
    imported, arrays: Sequence[np.ndarray], positions: Sequence[int], weights: Sequence[tuple[str, Parameter]]
) -> TracedProgram:
    """``imported`` (``from_torch``/``from_jax``) called on variables standing for ``arrays``."""
    trace = Trace()
    names = imported.input_names
    leaves = [trace.leaf(Tensor(np.asarray(a)), n) for a, n in zip(arrays, names)]
    outputs = imported(*leaves)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    return TracedProgram(
        outputs,
        [leaves[p]._node for p in positions] + [w._node for _, w in weights],
        [names[p] for p in positions] + [n for n, _ in weights],
        {**trace.env, **{k: v for o in outputs for k, v in o._env.items()}},
        ", ".join(f"{names[p]} {tuple(np.shape(arrays[p]))}" for p in positions),
    )


def check_against_exact(
    imported,
    arrays: Sequence[np.ndarray],
    positions: Sequence[int],
    weights: Sequence[tuple[str, Parameter]],
    order: int,
    framework: str,
    derivatives: Callable[[], tuple[list[np.ndarray], str]],
    kind: str,
) -> Report:
    """Compare a framework's derivative blocks with the exact ones of its imported program.

    Args:
        imported: the program as a symgrad Cell (``from_torch``/``from_jax``), with ``input_names``.
        arrays: its inputs' values, one per input.
        positions: the inputs differentiated; ``weights``: Parameters of ``imported`` too, each
            with the name the report gives it (the framework's own).
        order: the highest order; every block of every order up to it is compared.
        framework: how the report names the framework's method (``"torch.autograd"``).
        derivatives: the framework's blocks, in ``derivative_blocks``' order, and a note saying
            why they stop early if they do (those blocks are then failures).
        kind: what the program is written in (``"PyTorch"``), for the report's title.
    """
    if order < 1:
        raise ValueError(f"verify: order must be 1 or more, got {order}")
    traced = trace_program(imported, arrays, positions, weights)
    wrt, env = traced.wrt, traced.env
    out_nodes = [o._node for o in traced.outputs]
    levels = derivative_blocks(out_nodes, wrt, traced.labels, order)
    blocks = [b for level in levels for b in level]
    args = list(dict.fromkeys(wrt + free_vars(out_nodes + [b.node for b in blocks])))
    values = [np.asarray(value_of(v, env)) for v in args]
    dtype = (
        np.result_type(*(np.asarray(arrays[p]).dtype for p in positions))
        if positions
        else np.dtype(np.float64)
    )
    reference = methods.high_precision([b.node for b in blocks], args, values)
    with np.errstate(all="ignore"):  # only its rounding is used: an overflow there is not a finding
        kernel = methods.compiled_values([b.node for b in blocks], args, values)

    report = Report(f"verify {imported.name} ({kind}) at {traced.point} ({dtype}), order {order}")
    report.blocks = blocks
    kinks = kink_notes(out_nodes, args, values, report.notes)
    got, failure = derivatives()
    if failure:
        report.notes.append(failure)
    rtol, atol_fraction = TOLERANCE.get(dtype, (1e-3, 1e-4))
    magnitudes = [magnitude(r) for r in reference]
    method = f"{framework} {dtype}"
    for k, (block, ref, ours) in enumerate(zip(blocks, reference, kernel)):
        if k >= len(got) or np.shape(got[k]) != ref.shape:
            if k < len(got):
                report.notes.append(
                    f"{framework} gave {block.label} the shape {np.shape(got[k])}, not {ref.shape}"
                )
            report.rows.append(Row(block.label, method, np.nan, np.nan, (), np.nan, np.nan, rtol, 0.0, FAIL))
            continue
        scale = magnitudes[k] or max(magnitudes, default=0.0) or 1.0
        with np.errstate(invalid="ignore"):
            rounding = float(np.nanmax(np.abs(ours - ref), initial=0.0))
        atol = max(atol_fraction * scale, 10 * rounding)
        report.rows.append(kink_aware(compare(block.label, method, got[k], ref, rtol, atol), kinks))
    report.notes.append(
        f"tolerance: rtol {rtol:.0e} and atol {atol_fraction:.0e} x the block's largest entry, or 10x the rounding "
        f"error of symgrad's own {dtype} kernel for the same block where that is larger"
    )
    return report
