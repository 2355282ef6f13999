"""Gradients matched to Parameters by identity, never by position.

Each loss term differentiates its own Parameters (``term.params``: a :class:`ResidualLoss`'s, or the
term it wraps). An optimizer moves its own list. The two need not agree in order or in content: a
term's gradient goes to the optimizer's entry for the same Parameter object, a Parameter the term
does not use gets zero from it, and a term's Parameter that the optimizer does not hold is an
error naming it (as PyTorch's optimizers match gradients by Parameter object).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from symgrad.parameter import Parameter


def optimized_parameters(params: Sequence[Parameter], where: str) -> list[Parameter]:
    """``params`` as a list, refusing a Parameter listed twice (its gradient would be ambiguous)."""
    params = list(params)
    seen: dict[int, int] = {}
    for i, p in enumerate(params):
        if id(p) in seen:
            raise ValueError(
                f"{where}: Parameter {p.name!r} is listed twice (entries {seen[id(p)]} and {i}); list each once"
            )
        seen[id(p)] = i
    return params


def term_parameters(term: Callable) -> list[Parameter] | None:
    """The Parameters a loss term's gradients are for, in its order; None for a term that does not say."""
    params = getattr(term, "params", None)
    return None if params is None else list(params)


def wrapped_term(term, found: Callable[[object], bool]):
    """The first of ``term`` and the terms it wraps (a weighted term's ``term``, a causal term's
    ``loss``, up to four deep) for which ``found`` is true; None where none is."""
    for _ in range(4):
        if found(term):
            return term
        inner = getattr(term, "term", None) or getattr(term, "loss", None)
        if inner is None or inner is term:
            return None
        term = inner
    return None


def term_label(term: Callable, i: int) -> str:
    """A term's name, or "term i" where it has none (or an empty one)."""
    return str(getattr(term, "name", None) or f"term {i}")


def check_terms(losses: Sequence[tuple[Callable, object]], params: Sequence[Parameter], where: str) -> None:
    """Every term's Parameters are among ``params``; a term that does not name its Parameters gives
    one gradient per entry of ``params`` (checked when it is called)."""
    held = {id(p) for p in params}
    for i, (term, _) in enumerate(losses):
        own = term_parameters(term)
        if own is None:
            continue
        missing = [p.name for p in own if id(p) not in held]
        if missing:
            raise ValueError(
                f"{where}: term {term_label(term, i)!r} differentiates Parameter(s) {missing}, which the "
                f"optimizer does not hold (it holds {[p.name for p in params]}); add them to its list, or "
                "leave them out of the term's"
            )


def aligned(
    params: Sequence[Parameter], term: Callable, grads: Sequence[np.ndarray], where: str
) -> list[np.ndarray]:
    """``term``'s gradients ``grads`` laid out as ``params``: by identity, zero where the term does not
    use a Parameter."""
    own = term_parameters(term)
    if own is None:
        if len(grads) != len(params):
            raise ValueError(
                f"{where}: term {term_label(term, 0)!r} gave {len(grads)} gradients for {len(params)} "
                "Parameters and has no .params list to match them by; give it one"
            )
        return list(grads)
    if len(grads) != len(own):
        raise ValueError(
            f"{where}: term {term_label(term, 0)!r} gave {len(grads)} gradients for its {len(own)} Parameters"
        )
    if len(own) == len(params) and all(a is b for a, b in zip(own, params)):
        return list(grads)
    index = {id(p): k for k, p in enumerate(own)}
    return [grads[index[id(p)]] if id(p) in index else np.zeros(p.shape, p._value().dtype) for p in params]


def aligned_columns(
    params: Sequence[Parameter], term: Callable, jacobian: np.ndarray, where: str
) -> np.ndarray:
    """A term's Jacobian (columns over its own flat Parameters) with columns over ``params``' flat layout,
    zero columns where the term does not use a Parameter."""
    own = term_parameters(term)
    if own is None or (len(own) == len(params) and all(a is b for a, b in zip(own, params))):
        return jacobian
    sizes = [int(np.prod(p.shape)) for p in own]
    if jacobian.shape[1] != sum(sizes):
        raise ValueError(
            f"{where}: term {term_label(term, 0)!r} gave {jacobian.shape[1]} Jacobian columns for "
            f"{sum(sizes)} weights"
        )
    starts = np.cumsum([0, *sizes])
    block = {id(p): (int(starts[k]), int(starts[k + 1])) for k, p in enumerate(own)}
    columns = []
    for p in params:
        if id(p) in block:
            start, stop = block[id(p)]
            columns.append(jacobian[:, start:stop])
        else:
            columns.append(np.zeros((jacobian.shape[0], int(np.prod(p.shape))), jacobian.dtype))
    return np.concatenate(columns, axis=1)


__all__ = ["aligned", "aligned_columns", "check_terms", "optimized_parameters", "term_parameters"]
