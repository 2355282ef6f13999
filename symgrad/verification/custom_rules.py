"""Which custom ``torch.autograd.Function`` of a program has a backward that is not its derivative.

When a program's gradients differ from the exact ones, the person needs the rule to fix. The
program is run once under autograd; its autograd graph names every custom Function it used; each
is run again with its ``apply`` recording its first call's arguments, and then verified on its own
(its backward against the exact derivative of its forward) at those arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

from symgrad.verification.report import ALLOWED, FAIL, Report


def custom_functions(outputs: Sequence) -> list[type]:
    """The custom autograd.Function classes in the autograd graph of ``outputs``, in first-met order."""
    found: dict[type, None] = {}
    stack = [o.grad_fn for o in outputs if getattr(o, "grad_fn", None) is not None]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        owner = getattr(node, "_forward_cls", None)
        if isinstance(owner, type):
            found.setdefault(owner, None)
        stack.extend(n for n, _ in node.next_functions)
    return list(found)


def first_calls(run: Callable[[], object], classes: Sequence[type]) -> dict[type, tuple]:
    """Each class's first ``apply`` arguments during ``run()`` (its ``apply`` put back after)."""
    calls: dict[type, tuple] = {}
    originals = {cls: cls.__dict__.get("apply") for cls in classes}
    for cls in classes:
        inner = getattr(cls, "apply")  # noqa: B009 - a class of PyTorch's, typed as any class here

        def recording(*args, _cls=cls, _inner=inner, **kwargs):
            calls.setdefault(_cls, args)
            return _inner(*args, **kwargs)

        setattr(cls, "apply", recording)  # noqa: B010
    try:
        run()
    finally:
        for cls, original in originals.items():
            if original is None:
                delattr(cls, "apply")
            else:
                setattr(cls, "apply", original)  # noqa: B010
    return calls


def held_fixed(
    call: Callable, args: Sequence, varied: Sequence[int], params: Sequence, name: str
) -> Callable:
    """``call`` as a function of ``args[k]`` for ``k`` in ``varied`` only, the other arguments (a
    float such as a gradient reversal's lambda, a flag) fixed at their values; its inputs named by
    ``params[k]`` (the custom rule's own parameters), for the report."""

    def alone(*given):
        full = list(args)
        for k, value in zip(varied, given):
            full[k] = value
        return call(*full)

    if params:  # else the importer names them itself
        alone.__signature__ = inspect.Signature([params[k] for k in varied if k < len(params)])  # type: ignore[attr-defined]
    alone.__name__ = name
    return alone


def forward_names(cls: type, args: Sequence = ()) -> Callable:
    """``cls.apply`` with the parameter names of its ``forward`` (less ``ctx``), for the report.

    With ``args`` (a call's arguments), the function takes the tensor ones only (:func:`held_fixed`)."""
    params = list(inspect.signature(cls.forward).parameters.values())  # type: ignore[attr-defined]
    if params and params[0].name == "ctx":
        params = params[1:]
    name = f"{cls.__name__}.apply"

    def apply(*given):
        return cls.apply(*given)  # type: ignore[attr-defined]

    if args:
        return held_fixed(apply, args, [k for k, a in enumerate(args) if hasattr(a, "detach")], params, name)

    apply.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    apply.__name__ = name
    return apply


def _named(allow) -> set[str]:
    """The rule names ``allow`` gives (names, or the Function classes themselves)."""
    return {a if isinstance(a, str) else getattr(a, "__name__", repr(a)) for a in allow}


def check_custom_rules(
    report: Report, run: Callable[[], object], outputs: Sequence, verify_one, allow: Sequence = ()
) -> None:
    """Add to ``report`` a note for each custom Function the program used, saying whether its
    backward is its forward's derivative, and its own report in ``report.rules[name]``;
    ``verify_one(fn, *args)`` verifies one of them. Rules named in ``allow`` are intended not to
    be derivatives (a straight-through estimator, a gradient reversal): where every other rule is
    its derivative, the program's differences are theirs, and its failed rows become explained."""
    allowed = _named(allow)
    classes = custom_functions(outputs)
    unused = sorted(allowed - {c.__name__ for c in classes})
    if unused:
        report.notes.append(f"allow= names {', '.join(unused)}, which the program does not use")
    calls = first_calls(run, classes) if classes else {}
    unexplained: list[str] = []
    differing: list[str] = []
    for cls in classes:
        name = cls.__name__
        if cls not in calls:
            unexplained.append(name)
            continue
        args = [a.detach().clone() if hasattr(a, "detach") else a for a in calls[cls]]
        tensors = [a for a in args if hasattr(a, "detach")]
        try:
            alone = verify_one(forward_names(cls, args), *tensors)
        except Exception as e:  # noqa: BLE001 - the note says why this rule could not be checked alone
            report.notes.append(
                f"custom autograd.Function {name}: not checked alone ({type(e).__name__}: {e})"
            )
            (differing if name in allowed else unexplained).append(name)
            continue
        report.rules[name] = alone
        if alone.ok:
            report.notes.append(f"custom autograd.Function {name}: its backward is its forward's derivative")
            continue
        worst = max(alone.failures, key=lambda r: (r.max_abs, r.max_rel))
        found = (
            f"{worst.derivative}: backward gives {worst.got:.6g} where the derivative is {worst.reference:.6g} "
            f"at {list(worst.where)}, max abs err {worst.max_abs:.2e}"
        )
        if name in allowed:
            differing.append(name)
            report.notes.append(
                f"custom autograd.Function {name}: its backward is not its forward's derivative ({found}): "
                "allowed, as intended (allow=)"
            )
        else:
            unexplained.append(name)
            report.notes.append(
                f"custom autograd.Function {name}: its backward is NOT its forward's derivative ({found}); "
                "fix this rule"
            )
    if differing and not unexplained and not report.ok:
        for row in report.rows:
            if row.verdict == FAIL:
                row.verdict = ALLOWED
        report.notes.append(
            f"the program's derivatives differ from the exact ones only through the allowed rules "
            f"{', '.join(differing)}: every other custom rule is its derivative, and PyTorch's own ops are "
            "differentiated by PyTorch"
        )


__all__ = ["check_custom_rules", "custom_functions", "first_calls", "forward_names"]
