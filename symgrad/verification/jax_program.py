"""``verify`` for JAX functions: JAX's derivatives against the exact closed form.

The function is imported into symgrad's graph (``symgrad.importers.from_jax``), which gives the
50-digit derivatives of what it computes (a ``custom_vjp``/``custom_jvp`` function's primal).
JAX differentiates the function itself, custom rules included, by ``jax.jacrev`` nested once per
order (``jax.jacfwd`` where reverse mode refuses the program, as for a ``while_loop``, with a note),
in the dtype the arrays have; each block is compared entry by entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from symgrad.importers.jax_program import from_jax
from symgrad.verification.directional import check_directional, directions_to_use
from symgrad.verification.frameworks import check_against_exact, has_leaf
from symgrad.verification.jax_custom_rules import check_custom_jax_rules
from symgrad.verification.report import Report


def is_jax_call(inputs: Sequence) -> bool:
    """True when some input (or a leaf of a list, tuple or dict of them) is a JAX array."""
    return has_leaf(inputs, lambda v: type(v).__module__.startswith(("jax", "jaxlib")))


def verify_jax(
    function: Callable,
    *args,
    order: int = 1,
    directions: int | None = None,
    seed: int = 0,
    check_rules: bool = True,
) -> Report:
    """Compare JAX's derivatives of ``function`` at ``args`` (arrays, or pytrees of them) with the
    exact ones, up to ``order``: every floating-point leaf is differentiated. ``directions``: as
    :func:`symgrad.verification.torch_program.verify_torch`'s (J^T v by ``jax.vjp``). Where they
    differ (``check_rules``), each custom_vjp/custom_jvp function called is verified alone and named."""
    report = _verify_jax(function, args, order, directions, seed)
    if check_rules and not report.ok:

        def verify_one(custom, *custom_args):
            return verify_jax(custom, *custom_args, order=order, seed=seed, check_rules=False)

        import jax

        check_custom_jax_rules(
            report, lambda: function(*args), verify_one, lambda: jax.make_jaxpr(function)(*args)
        )
    return report


def _verify_jax(function: Callable, args: tuple, order: int, directions: int | None, seed: int) -> Report:
    import jax

    imported = from_jax(function, *args)
    leaves, tree = jax.tree_util.tree_flatten(list(args))
    positions = [i for i, x in enumerate(leaves) if np.issubdtype(np.asarray(x).dtype, np.floating)]
    if not positions:
        raise ValueError("verify: nothing to differentiate: no floating-point array among the arguments")

    def flat(*xs):  # the function of the leaves, its outputs as a flat list
        return jax.tree_util.tree_leaves(function(*jax.tree_util.tree_unflatten(tree, list(xs))))

    def derivatives():
        try:
            count = len(flat(*leaves))
        except Exception as e:
            return [], f"JAX raised {type(e).__name__} running the function: {e}"
        current: list[Callable] = [lambda *xs, o=o: flat(*xs)[o] for o in range(count)]
        blocks: list[np.ndarray] = []
        notes = []
        for k in range(order):
            following = [jax.jacrev(f, argnums=p) for f in current for p in positions]
            try:
                blocks += [np.asarray(f(*leaves), dtype=np.float64) for f in following]
            except Exception as e:  # reverse mode refuses some programs (a while_loop): forward mode
                why = f"{type(e).__name__}: {e}"
                following = [jax.jacfwd(f, argnums=p) for f in current for p in positions]
                try:
                    blocks += [np.asarray(f(*leaves), dtype=np.float64) for f in following]
                except Exception:
                    return blocks, f"JAX could not compute the order-{k + 1} derivatives: {why}"
                notes.append(f"order {k + 1}: JAX's reverse mode could not ({why}); these are jax.jacfwd's")
            current = following
        return blocks, "; ".join(notes)

    arrays = [np.asarray(x) for x in leaves]
    count = directions_to_use(directions, order, imported, arrays, positions, [])
    if count:

        def pulled_back(cotangents):  # J^T v by jax.vjp of the function itself
            try:
                outputs, pull = jax.vjp(flat, *leaves)
                grads = pull([np.asarray(c, np.asarray(o).dtype) for c, o in zip(cotangents, outputs)])
            except Exception as e:
                return [], f"jax.vjp could not compute J^T v: {type(e).__name__}: {e}"
            return [np.asarray(grads[p], np.float64) for p in positions], ""

        return check_directional(imported, arrays, positions, [], "jax.vjp", pulled_back, "JAX", count, seed)
    return check_against_exact(imported, arrays, positions, [], order, "jax.jacrev", derivatives, "JAX")
