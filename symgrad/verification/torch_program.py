"""``verify`` for PyTorch programs: torch.autograd's derivatives against the exact closed form.

The program is imported into symgrad's graph (``symgrad.importers.from_torch``), which gives
the 50-digit derivatives of what its forward pass computes. torch.autograd differentiates the
program itself, custom ``autograd.Function`` backwards included (their double backward at
order 2), in the dtype the inputs have. Each block is compared entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from symgrad.autodiff.tracing import Trace
from symgrad.core.graph import free_vars
from symgrad.evaluate import value_of
from symgrad.importers.torch_export import from_torch
from symgrad.tensor import Tensor
from symgrad.verification import methods
from symgrad.verification.blocks import derivative_blocks
from symgrad.verification.kinks import kink_aware, kink_notes
from symgrad.verification.report import FAIL, Report, Row, compare

# rtol, and atol as a fraction of the block's largest entry; an error up to 10x symgrad's own
# kernel's rounding error in the same dtype is also allowed (a correct program makes as much)
TOLERANCE = {np.dtype(np.float64): (1e-9, 1e-11), np.dtype(np.float32): (1e-4, 1e-5)}


def is_torch_call(inputs: Sequence) -> bool:
    """True when some input (or a leaf of a list, tuple or dict of them) is a torch tensor."""
    for value in inputs:
        if isinstance(value, list | tuple):
            if is_torch_call(value):
                return True
        elif isinstance(value, dict):
            if is_torch_call(list(value.values())):
                return True
        elif type(value).__module__.startswith("torch") and type(value).__name__ in ("Tensor", "Parameter"):
            return True
    return False


def is_torch_module(fn) -> bool:
    """True for a ``torch.nn.Module`` (found without importing PyTorch)."""
    return any(c.__name__ == "Module" and c.__module__.startswith("torch.nn") for c in type(fn).__mro__)


def verify_torch(program: Callable, *inputs, order: int = 1, weights: Sequence[str] | bool = ()) -> Report:
    """Compare torch.autograd's derivatives of ``program`` at ``inputs`` (torch tensors) with the
    exact ones, up to ``order``.

    Args:
        program: an ``nn.Module`` or a function of torch tensors.
        inputs: the point; every floating-point tensor (leaves of nested lists, tuples and dicts
            too) is differentiated.
        order: highest derivative order checked (each order is).
        weights: names of the module's Parameters to differentiate as well (True: all of them).
    """
    import torch
    from torch.utils._pytree import tree_flatten, tree_unflatten

    if order < 1:
        raise ValueError(f"verify: order must be 1 or more, got {order}")
    imported = from_torch(program, *inputs)
    leaves, spec = tree_flatten(list(inputs))
    tensors = [x for x in leaves if isinstance(x, torch.Tensor)]
    positions = [i for i, x in enumerate(tensors) if x.is_floating_point()]
    params = dict(program.named_parameters()) if isinstance(program, torch.nn.Module) else {}
    names = list(params) if weights is True else list(weights or ())
    for name in names:
        if name not in params:
            raise ValueError(
                f"verify: weights= names {name!r}, which is not a Parameter of the module: {sorted(params)}"
            )
    if not positions and not names:
        raise ValueError("verify: nothing to differentiate: no floating-point tensor input and no weights=")

    # symgrad: the imported graph at variables standing for the inputs and the weights
    trace = Trace()
    placeholders = imported.input_names
    sym_inputs = [trace.leaf(Tensor(x.detach().cpu().numpy()), n) for x, n in zip(tensors, placeholders)]
    outputs = imported(*sym_inputs)
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    wrt: list = [sym_inputs[p]._node for p in positions] + [imported.parameter(n)._node for n in names]
    wrt_names = [placeholders[p] for p in positions] + names
    out_nodes = [o._node for o in outputs]
    levels = derivative_blocks(out_nodes, wrt, wrt_names, order)
    blocks = [b for level in levels for b in level]
    env = {**trace.env, **{k: v for o in outputs for k, v in o._env.items()}}
    args = list(dict.fromkeys(wrt + free_vars(out_nodes + [b.node for b in blocks])))
    values = [np.asarray(value_of(v, env)) for v in args]
    dtype = np.result_type(*(t.detach().cpu().numpy().dtype for t in tensors if t.is_floating_point()))
    reference = methods.high_precision([b.node for b in blocks], args, values)
    with np.errstate(all="ignore"):  # only its rounding is used: an overflow there is not a finding
        kernel = methods.compiled_values([b.node for b in blocks], args, values)

    point = ", ".join(f"{placeholders[p]} {tuple(tensors[p].shape)}" for p in positions)
    report = Report(f"verify {imported.name} (PyTorch) at {point} ({dtype}), order {order}")
    report.blocks = blocks
    kinks = kink_notes(out_nodes, args, values, report.notes)

    # PyTorch: the program itself, differentiated by torch.autograd
    tensor_at = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
    fresh = list(leaves)
    for k, i in enumerate(tensor_at):
        fresh[i] = leaves[i].detach().clone().requires_grad_(k in positions)
    variables = [fresh[tensor_at[p]] for p in positions] + [params[n] for n in names]
    got, failure = _torch_blocks(program, tree_unflatten(fresh, spec), variables, order, torch)
    if failure:
        report.notes.append(failure)
    rtol, atol_fraction = TOLERANCE.get(dtype, (1e-3, 1e-4))
    magnitudes = [_magnitude(r) for r in reference]
    method = f"torch.autograd {dtype}"
    for k, (block, ref, ours) in enumerate(zip(blocks, reference, kernel)):
        if k >= len(got):
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


def _torch_blocks(program, inputs, variables, order: int, torch) -> tuple[list[np.ndarray], str]:
    """Every derivative block up to ``order``, in ``derivative_blocks``' order, by torch.autograd:
    one backward pass per entry of the block below (``create_graph`` where a higher order follows).

    Stops at the first order PyTorch cannot compute, and says why."""
    try:
        out = program(*inputs)
    except Exception as e:
        return [], f"PyTorch raised {type(e).__name__} running the program: {e}"
    current = [o for o in torch.utils._pytree.tree_leaves(out) if isinstance(o, torch.Tensor)]
    blocks: list[np.ndarray] = []
    for k in range(order):
        following = []
        try:
            for tensor in current:
                for x in variables:
                    following.append(_jacobian(tensor, x, create_graph=k + 1 < order, torch=torch))
        except Exception as e:
            return blocks, (
                f"torch.autograd could not compute the order-{k + 1} derivatives: {type(e).__name__}: {e} "
                "(those blocks are marked FAIL)"
            )
        blocks += [b.detach().cpu().numpy().astype(np.float64) for b in following]
        current = following
    return blocks, ""


def _jacobian(tensor, x, create_graph: bool, torch):
    """d tensor / d x with shape tensor.shape + x.shape, one backward pass per entry of ``tensor``."""
    flat = tensor.reshape(-1)
    rows = []
    for e in range(flat.numel()):
        grad = None
        if flat.requires_grad:
            (grad,) = torch.autograd.grad(
                flat[e], x, retain_graph=True, create_graph=create_graph, allow_unused=True
            )
        rows.append(torch.zeros_like(x) if grad is None else grad)
    stacked = torch.stack(rows) if rows else torch.zeros((0, *x.shape), dtype=x.dtype)
    return stacked.reshape(*tensor.shape, *x.shape)


def _magnitude(array: np.ndarray) -> float:
    finite = np.abs(array[np.isfinite(array)])
    return float(finite.max(initial=0.0))
