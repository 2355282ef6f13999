"""Which ``jax.custom_vjp`` / ``jax.custom_jvp`` function of a JAX program has a rule that is not
its derivative.

As for PyTorch's autograd.Functions (``custom_rules``): where a program's derivatives differ from
the exact ones, it is run once more with each custom function's ``__call__`` recording its first
call's arguments (concrete arrays; a call traced inside ``jax.jit`` has none and is said so), and
each custom function is verified alone at them: JAX's derivatives (its rule) against the exact
derivatives of its primal, named after the function.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator

from symgrad.verification.custom_rules import held_fixed
from symgrad.verification.report import Report


@contextlib.contextmanager
def first_custom_calls() -> Iterator[dict]:
    """While inside: ``{custom function: its first call's arguments}`` (None where they were traced)."""
    import jax

    calls: dict = {}
    originals = {cls: cls.__call__ for cls in (jax.custom_vjp, jax.custom_jvp)}

    def recorder(original):
        def call(self, *args, **kwargs):
            if self not in calls:
                leaves = jax.tree_util.tree_leaves(args)
                calls[self] = None if any(isinstance(x, jax.core.Tracer) for x in leaves) else args
            return original(self, *args, **kwargs)

        return call

    for cls, original in originals.items():
        cls.__call__ = recorder(original)  # type: ignore[method-assign]
    try:
        yield calls
    finally:
        for cls, original in originals.items():
            cls.__call__ = original  # type: ignore[method-assign]


def _name(custom) -> str:
    kind = "custom_vjp" if type(custom).__name__ == "custom_vjp" else "custom_jvp"
    return f"{kind} {getattr(custom, '__name__', type(custom).__name__)}"


def _custom_calls_in(jaxpr) -> int:
    """How many custom_vjp/custom_jvp calls a jaxpr makes, inside jit and other sub-jaxprs too."""
    count = 0
    for eqn in jaxpr.eqns:
        count += eqn.primitive.name in ("custom_vjp_call", "custom_jvp_call", "custom_vjp_call_jaxpr")
        for value in eqn.params.values():
            inner = getattr(value, "jaxpr", value)
            if hasattr(inner, "eqns"):
                count += _custom_calls_in(inner)
    return count


def check_custom_jax_rules(report: Report, run: Callable[[], object], verify_one, traced=None) -> None:
    """Add to ``report`` a note per custom_vjp/custom_jvp function ``run()`` calls, saying whether
    its rule is its primal's derivative (its own report in ``report.rules``). ``traced()`` gives the
    program's jaxpr, to say so where custom rules ran inside a compiled ``jax.jit``, unseen."""
    with first_custom_calls() as calls:
        run()
    if not calls and traced is not None:
        hidden = _custom_calls_in(traced().jaxpr)
        if hidden:
            report.notes.append(
                f"{hidden} custom_vjp/custom_jvp call(s) run inside a compiled jax.jit: not checked alone; "
                "verify the function without jax.jit to have the rule that differs named"
            )
    for custom, args in calls.items():
        name = _name(custom)
        if args is None:
            report.notes.append(f"{name}: called inside jax.jit (traced arguments): not checked alone")
            continue
        arrays = [k for k, a in enumerate(args) if hasattr(a, "dtype") and hasattr(a, "shape")]
        try:  # the inputs named as the function names them
            params = list(inspect.signature(getattr(custom, "fun", custom)).parameters.values())
        except (TypeError, ValueError):
            params = []
        alone_fn = held_fixed(custom, args, arrays, params, getattr(custom, "__name__", "custom"))
        try:
            alone = verify_one(alone_fn, *(args[k] for k in arrays))
        except Exception as e:  # noqa: BLE001 - the note says why this rule could not be checked alone
            report.notes.append(f"{name}: not checked alone ({type(e).__name__}: {e})")
            continue
        report.rules[name] = alone
        if alone.ok:
            report.notes.append(f"{name}: its rule is its primal's derivative")
            continue
        worst = max(alone.failures, key=lambda r: (r.max_abs, r.max_rel))
        report.notes.append(
            f"{name}: its rule is NOT its primal's derivative ({worst.derivative}: the rule gives {worst.got:.6g} "
            f"where the derivative is {worst.reference:.6g} at {list(worst.where)}, max rel err "
            f"{worst.max_rel:.2e}); fix this rule"
        )


__all__ = ["check_custom_jax_rules", "first_custom_calls"]
