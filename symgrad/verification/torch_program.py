"""``verify`` for PyTorch programs: torch.autograd's derivatives against the exact closed form.

The program is imported into symgrad's graph (``symgrad.importers.from_torch``), which gives
the 50-digit derivatives of what its forward pass computes. torch.autograd differentiates the
program itself, custom ``autograd.Function`` backwards included (their double backward at
order 2), in the dtype the inputs have. Each block is compared entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from symgrad.importers.torch_export import from_torch
from symgrad.verification.custom_rules import check_custom_rules, forward_names
from symgrad.verification.directional import check_directional, directions_to_use
from symgrad.verification.frameworks import check_against_exact, has_leaf
from symgrad.verification.report import Report


def is_torch_call(inputs: Sequence) -> bool:
    """True when some input (or a leaf of a list, tuple or dict of them) is a torch tensor."""
    return has_leaf(
        inputs,
        lambda v: type(v).__module__.startswith("torch") and type(v).__name__ in ("Tensor", "Parameter"),
    )


def is_torch_module(fn) -> bool:
    """True for a ``torch.nn.Module`` (found without importing PyTorch)."""
    return any(c.__name__ == "Module" and c.__module__.startswith("torch.nn") for c in type(fn).__mro__)


def verify_torch(
    program: Callable,
    *inputs,
    order: int = 1,
    weights: Sequence[str] | bool = (),
    directions: int | None = None,
    seed: int = 0,
    check_rules: bool = True,
    allow: Sequence = (),
) -> Report:
    """Compare torch.autograd's derivatives of ``program`` at ``inputs`` (torch tensors) with the
    exact ones, up to ``order``.

    Args:
        program: an ``nn.Module`` or a function of torch tensors (a custom Function's ``apply`` too:
            its inputs are named after its ``forward``'s parameters).
        inputs: the point; every floating-point tensor (leaves of nested lists, tuples and dicts
            too) is differentiated.
        order: highest derivative order checked (each order is).
        weights: names of the module's Parameters to differentiate as well (True: all of them).
        directions: compare J^T v for this many random cotangents v instead of every entry of the
            blocks (order 1); None: per entry unless the blocks would hold more than
            ``directional.LARGEST_PER_ENTRY`` entries; 0: per entry always.
        seed: seed of the random cotangents.
        check_rules: where something differs, verify each custom autograd.Function the program
            used on its own, and name the ones whose backward is not their forward's derivative.
        allow: custom autograd.Functions (classes or their names) whose backward is intended not
            to be the derivative (a straight-through estimator, a gradient reversal): reported as
            such; where they explain every difference, the report is ok.
    """
    import torch
    from torch.utils._pytree import tree_flatten, tree_unflatten

    owner = getattr(program, "__self__", None)
    if (
        getattr(program, "__name__", "") == "apply"
        and isinstance(owner, type)
        and issubclass(owner, torch.autograd.Function)
    ):
        program = forward_names(owner)
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

    def fresh_inputs():  # the inputs again, the differentiated ones requiring grad, and the variables
        tensor_at = [i for i, x in enumerate(leaves) if isinstance(x, torch.Tensor)]
        fresh = list(leaves)
        for k, i in enumerate(tensor_at):
            fresh[i] = leaves[i].detach().clone().requires_grad_(k in positions)
        variables = [fresh[tensor_at[p]] for p in positions] + [params[n] for n in names]
        return tree_unflatten(fresh, spec), variables

    def derivatives():  # the program itself, differentiated by torch.autograd
        given, variables = fresh_inputs()
        return _torch_blocks(program, given, variables, order, torch)

    def pulled_back(cotangents):  # J^T v by one backward pass of the program itself
        given, variables = fresh_inputs()
        try:
            out = list(torch.utils._pytree.tree_leaves(program(*given)))
            grads = torch.autograd.grad(
                out, variables, [torch.as_tensor(c) for c in cotangents], allow_unused=True
            )
        except Exception as e:
            return [], f"torch.autograd could not compute J^T v: {type(e).__name__}: {e}"
        return [
            np.zeros(tuple(x.shape)) if g is None else g.detach().cpu().numpy().astype(np.float64)
            for g, x in zip(grads, variables)
        ], ""

    arrays = [x.detach().cpu().numpy() for x in tensors]
    weight_params = [(n, imported.parameter(n)) for n in names]
    count = directions_to_use(directions, order, imported, arrays, positions, weight_params)
    if count:
        report = check_directional(
            imported, arrays, positions, weight_params, "torch.autograd", pulled_back, "PyTorch", count, seed
        )
    else:
        report = check_against_exact(
            imported, arrays, positions, weight_params, order, "torch.autograd", derivatives, "PyTorch"
        )
    if check_rules and not report.ok:

        def run():
            given, _ = fresh_inputs()
            return list(torch.utils._pytree.tree_leaves(program(*given)))

        def verify_one(fn, *args):
            return verify_torch(fn, *args, order=1 if count else order, seed=seed, check_rules=False)

        check_custom_rules(report, run, [o for o in run() if isinstance(o, torch.Tensor)], verify_one, allow)
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
