"""Which custom ``torch.autograd.Function`` of a program has a backward that is not its derivative.

When a program's gradients differ from the exact ones, the person needs the rule to fix. The
program is run once under autograd; its autograd graph names every custom Function it used; each
is run again with its ``apply`` recording its first call's arguments, and then verified on its own
(its backward against the exact derivative of its forward) at those arguments.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence

from symgrad.verification.report import Report


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


def forward_names(cls: type) -> Callable:
    """``cls.apply`` with the parameter names of its ``forward`` (less ``ctx``), for the report."""

    def apply(*args):
        return cls.apply(*args)  # type: ignore[attr-defined]

    params = list(inspect.signature(cls.forward).parameters.values())  # type: ignore[attr-defined]
    if params and params[0].name == "ctx":
        params = params[1:]
    apply.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    apply.__name__ = f"{cls.__name__}.apply"
    return apply


def check_custom_rules(report: Report, run: Callable[[], object], outputs: Sequence, verify_one) -> None:
    """Add to ``report`` a note for each custom Function the program used, saying whether its
    backward is its forward's derivative, and its own report in ``report.rules[name]``;
    ``verify_one(fn, *args)`` verifies one of them."""
    classes = custom_functions(outputs)
    if not classes:
        return
    calls = first_calls(run, classes)
    for cls in classes:
        if cls not in calls:
            continue
        args = [a.detach().clone() if hasattr(a, "detach") else a for a in calls[cls]]
        try:
            alone = verify_one(forward_names(cls), *args)
        except Exception as e:  # noqa: BLE001 - the note says why this rule could not be checked alone
            report.notes.append(
                f"custom autograd.Function {cls.__name__}: not checked alone ({type(e).__name__}: {e})"
            )
            continue
        if alone.ok:
            report.rules[cls.__name__] = alone
            report.notes.append(
                f"custom autograd.Function {cls.__name__}: its backward is its forward's derivative"
            )
            continue
        worst = max(alone.failures, key=lambda r: r.max_rel)
        report.notes.append(
            f"custom autograd.Function {cls.__name__}: its backward is NOT its forward's derivative "
            f"({worst.derivative}: max rel err {worst.max_rel:.2e} at {list(worst.where)}); fix this rule"
        )
        report.rules[cls.__name__] = alone


__all__ = ["check_custom_rules", "custom_functions", "first_calls", "forward_names"]
