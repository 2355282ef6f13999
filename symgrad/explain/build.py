"""From recorded differentiations to the guide's steps: forward, sum, derivative, number."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import sympy

from symgrad.autodiff.recording import Episode, recording
from symgrad.closed_form import (
    STOPPED,
    as_sympy,
    expanded_size,
    to_sympy,
    variable_labels,
    variable_symbols,
)
from symgrad.core.graph import Node, Var, count_ops, topo_order
from symgrad.core.registry import lookup
from symgrad.errors import UnboundError
from symgrad.evaluate import evaluate
from symgrad.explain.derivation import Derivation, Entry, Explanation, Step
from symgrad.explain.i18n import phrase
from symgrad.explain.intermediates import intermediates
from symgrad.explain.notation import common_factors, familiar, grouped_sum, text, tidy

MAX_FLAT_SIZE = 600  # operations of the flattened formulas; larger ones are shown as named intermediates
MAX_SUM_TERMS = 200
MAX_FLAT_CHARS = 400  # a longer flat formula element is shown as named intermediates (the chain rule)


def explain(fn: Callable, *inputs, lang: str = "en") -> Explanation:
    """Run ``fn(*inputs)`` and explain every differentiation it performs, as the guide does.

    ``fn`` is anything that differentiates when called: a Cell whose ``construct``
    uses ``GradOperation``, the function ``grad(...)`` returns, ``nn.Jvp``/``nn.Vjp``,
    a nested second-order cell, or a plain function calling ``jvp``/``vjp``.
    """
    phrase("forward", lang)  # validates the language early
    with recording() as episodes:
        fn(*inputs)
    if not episodes:
        name = getattr(fn, "__name__", type(fn).__name__)
        raise ValueError(
            f"explain: calling {name} differentiated nothing; pass something that differentiates, "
            "such as a GradOperation-wrapped cell, grad(net), nn.Jvp(net) or a nested second-order cell"
        )
    return explain_episodes(episodes, lang)


def explain_episodes(episodes: list[Episode], lang: str = "en") -> Explanation:
    """Derivations for the outermost of recorded ``episodes`` (inner ones explain their outputs)."""
    return Explanation([_derivation(e, episodes, lang) for e in episodes if e.depth == 0])


def _producers(episode: Episode, episodes: list[Episode]) -> dict[Node, tuple[Episode, int]]:
    """Outputs of ``episode`` that are results of an inner differentiation."""
    found = {}
    for inner in episodes:
        if inner.depth == episode.depth + 1:
            for j, node in enumerate(inner.finished):
                if node in episode.outputs:
                    found[node] = (inner, j)
    return found


def _label(var: Node, name: str, labels: dict) -> str:
    """``name``, or the label the formulas use where another input's names made it change."""
    if isinstance(var, Var) and var in labels and labels[var][0] != var.display_name:
        return labels[var][0]
    return name


def _d(name: str) -> tuple[str, str]:
    return f"d{name}", rf"\mathrm{{d}}{name}"


def _derivation(e: Episode, episodes: list[Episode], lang: str) -> Derivation:
    producers = _producers(e, episodes)
    seeds = e.seeds or []
    stops = [n for n in topo_order(e.outputs) if n.args and lookup(n.op).passes_value]
    shown = list(e.outputs) + list(seeds) + list(e.results) + [s.args[0] for s in stops]
    size = expanded_size(e.outputs + e.results)
    flat = size <= MAX_FLAT_SIZE
    shown_size = f"{size:,.0f}" if size < 1e9 else f"{size:.3g}"
    why = phrase("intermediates", lang, n=shown_size)  # the heading where formulas are not flattened
    exprs: dict[Node, object] = {}  # SymPy objects to show
    raw: dict[Node, np.ndarray] = {}  # the same as object arrays, to compute with
    if flat:
        variables = list(dict.fromkeys([w for w in e.wrt if isinstance(w, Var)] + [
            n for n in topo_order(shown) if isinstance(n, Var)
        ]))  # fmt: skip
        labels = variable_labels(variables)
        e = replace(e, wrt_names=[_label(w, name, labels) for w, name in zip(e.wrt, e.wrt_names)])
        symbols = variable_symbols(variables)
        raw = without_shifts(dict(zip(shown, to_sympy(shown, symbols, marked=True, familiar=True))))
        exprs = {n: as_sympy(_each(a, _display_form(n, e))) for n, a in raw.items()}
        stops = [s for s in stops if _still_shown(s, raw, e.outputs)]
        longest = max(_longest(exprs[n]) for n in list(e.outputs) + list(e.results))
        if longest > MAX_FLAT_CHARS:  # a long flat formula reads better as the chain rule
            flat, exprs, raw = False, {}, {}
            why = phrase("intermediates_long", lang, n=longest)
    values = _bound_values(list(e.results) + list(seeds), e.env)
    title = phrase(f"{e.kind}_title", lang, fn=e.fn_name)
    d = Derivation(title)

    out_names = _output_names(e, producers)
    if not flat:
        names: dict[Node, str] = {}
        d.steps.append(Step(why, [
            Entry(name, name, f"{text}   {shape}") for name, text, shape in intermediates(e.outputs, names)
        ]))  # fmt: skip
        d.steps.append(Step(phrase("local", lang), [
            Entry(name, name, f"{text}   {shape}") for name, text, shape in intermediates(e.results, names)
        ]))  # fmt: skip
        if e.kind == "grad":
            total = " + ".join(("s·" if seeds else "") + t for t, _ in out_names)
            d.steps.append(Step(phrase("which", lang), [
                Entry(f"d(Σ {total})/d{name}", _which_latex(out_names, bool(seeds), name), names[r])
                for name, r in zip(e.wrt_names, e.results)
            ]))  # fmt: skip
        d.steps.append(Step(phrase("sizes", lang), [
            Entry("output", r"\mathrm{output}", phrase("ops", lang, n=count_ops(e.outputs))),
            Entry("derivative", r"\mathrm{derivative}", phrase("ops", lang, n=count_ops(e.results))),
        ]))  # fmt: skip
    else:
        key = "first_order" if producers else "forward"
        d.steps.append(
            Step(phrase(key, lang), [Entry(t, lt, exprs[o]) for o, (t, lt) in zip(e.outputs, out_names)])
        )
        if stops:
            d.steps.append(Step(phrase("stop", lang), [
                Entry("stop_gradient", r"\mathrm{stop\_gradient}", exprs[s.args[0]], phrase("stop_note", lang)) for s in stops
            ]))  # fmt: skip
    if e.kind == "grad":
        _grad_steps(d, e, seeds, exprs, raw, values, out_names, flat, lang)
    elif e.kind == "jvp":
        _jvp_steps(d, e, seeds, exprs, values, flat, lang)
    else:
        _labelled_steps(d, e, seeds, exprs, values, flat, lang)
    return d


def _bound_values(nodes: list[Node], env: dict) -> dict[Node, np.ndarray]:
    """The numbers of ``nodes`` that have them: a derivative taken of a symbolic placeholder (a
    PINN's residual at x) has a formula but no value, and is shown without one."""
    try:
        return dict(zip(nodes, evaluate(nodes, env)))
    except UnboundError:
        found = {}
        for node in nodes:
            try:
                found[node] = evaluate([node], env)[0]
            except UnboundError:
                pass
        return found


def _which_latex(out_names, seeded: bool, name: str) -> str:
    total = " + ".join(("s \\cdot " if seeded else "") + lt for _, lt in out_names)
    return rf"\frac{{\mathrm{{d}}(\sum {total})}}{{\mathrm{{d}}{name}}}"


def _each(array: np.ndarray, fn) -> np.ndarray:
    out = np.empty(array.shape, dtype=object)
    for idx in np.ndindex(array.shape):
        out[idx] = fn(array[idx])
    return out


def _display_form(node: Node, e: Episode):
    """How an element is shown: derivatives tidied (x^x·(log(x) + 1)), forward results with their
    common factors outside ((x1·y1 + x2·y4 + x3·y7)·z), σ for the logistic function."""
    if any(node is r for r in e.results):
        return lambda v: familiar(tidy(v))
    return lambda v: familiar(common_factors(v)) if isinstance(v, sympy.Expr) else v


def _longest(expr) -> int:
    items = sympy.flatten(expr.tolist()) if isinstance(expr, sympy.NDimArray) else [expr]
    return max((len(text(i)) for i in items), default=0)


def _still_shown(stop: Node, raw: dict, outputs) -> bool:
    """A stop_gradient is shown while its mark is in a forward formula (not a removed shift)."""
    marked = {STOPPED(v) for v in np.asarray(raw[stop.args[0]]).flat}
    return any(
        isinstance(v, sympy.Basic) and marked & v.atoms(STOPPED)
        for o in outputs
        for v in np.asarray(raw[o]).flat
    )


def without_shifts(raw: dict) -> dict:
    """Formulas without the stability shift ``x - stop_gradient(max(x))`` of softmax and logsumexp,
    which the student never wrote: removed where every formula is the same without it (checked at
    random points to 30 digits), so what is shown is what the student's formula means."""
    shifts = {
        a for arr in raw.values() for v in np.asarray(arr).flat if isinstance(v, sympy.Basic)
        for a in v.atoms(STOPPED) if isinstance(a.args[0], sympy.Max)
    }  # fmt: skip
    for shift in shifts:
        if all(_independent(v, shift) for arr in raw.values() for v in np.asarray(arr).flat):
            raw = {n: _each(np.asarray(arr), lambda v, m=shift: _put(v, m)) for n, arr in raw.items()}
    return raw


def _put(value, shift):
    return value.subs(shift, 0) if isinstance(value, sympy.Basic) else value


def _independent(value, shift, points: int = 2) -> bool:
    if not isinstance(value, sympy.Basic) or not value.has(shift):
        return True
    m = sympy.Dummy("m")
    with_m = value.subs(shift, m)
    rng = np.random.default_rng(0)
    for _ in range(points):
        at = {s: sympy.Rational(int(rng.integers(300, 1700)), 1000) for s in with_m.free_symbols if s != m}
        a, b = (with_m.subs({**at, m: v}).evalf(30) for v in (0, sympy.Rational(7, 10)))
        if not (a.is_number and b.is_number) or abs(a - b) > 1e-20 * (1 + abs(a)):
            return False
    return True


def _output_names(e: Episode, producers) -> list[tuple[str, str]]:
    names = []
    for k, node in enumerate(e.outputs):
        if node in producers:
            inner, j = producers[node]
            names.append(_d(inner.wrt_names[j]))
        else:
            suffix = f"[{k}]" if len(e.outputs) > 1 else ""
            names.append((f"output{suffix}", rf"\mathrm{{output}}{suffix}"))
    return names


def _grad_steps(d, e, seeds, exprs, raw, values, out_names, flat, lang) -> None:
    if seeds:
        entries = []
        for seed, (text, latex) in zip(seeds, out_names):
            if seed not in values:
                if seed in exprs:
                    entries.append(Entry(f"s({text})", rf"s({latex})", exprs[seed]))
                continue
            v = values[seed]
            mark = "kept" if np.all(v == 1) else "dropped" if np.all(v == 0) else "weighted"
            rhs = exprs.get(seed, v)
            entries.append(Entry(f"s({text})", rf"s({latex})", rhs, f"= {_numbers(v)}, {phrase(mark, lang)}"))
        if entries:
            d.steps.append(Step(phrase("sens", lang), entries))
    total_text = " + ".join(("s·" if seeds else "") + t for t, _ in out_names)
    total_latex = " + ".join(("s \\cdot " if seeds else "") + lt for _, lt in out_names)
    if len(out_names) > 1:
        total_text, total_latex = f"({total_text})", rf"\left({total_latex}\right)"
    total_text, total_latex = f"Σ {total_text}", rf"\sum {total_latex}"
    if flat:
        terms = []
        for k, out in enumerate(e.outputs):
            o = raw[out].ravel()
            s = raw[seeds[k]].ravel() if seeds else [1] * o.size
            terms += [a * b for a, b in zip(o, s)]
        if len(terms) <= MAX_SUM_TERMS:
            d.steps.append(Step(phrase("sum", lang), [Entry(total_text, total_latex, grouped_sum(terms))]))
        d.steps.append(Step(phrase("derivative", lang), [
            Entry(f"d({total_text})/d{name}", rf"\frac{{\mathrm{{d}}({total_latex})}}{{\mathrm{{d}}{name}}}", exprs[r])
            for name, r in zip(e.wrt_names, e.results)
        ]))  # fmt: skip
    _value_step(d, lang, [
        Entry(f"d({total_text})/d{name}", rf"\frac{{\mathrm{{d}}({total_latex})}}{{\mathrm{{d}}{name}}}", values[r])
        for name, r in zip(e.wrt_names, e.results) if r in values
    ])  # fmt: skip


def _value_step(d: Derivation, lang: str, entries: list[Entry], key: str = "value") -> None:
    """The numbers step, where any result has numbers (none has, of a symbolic placeholder)."""
    if entries:
        d.steps.append(Step(phrase(key, lang), entries))


def _jvp_steps(d, e, seeds, exprs, values, flat, lang) -> None:
    d.steps.append(Step(phrase("tangent", lang), [_seed_entry(f"v({name})", rf"v({name})", s, exprs, values)
        for name, s in zip(e.wrt_names, seeds) if s in exprs or s in values
    ]))  # fmt: skip
    label = "J·v" if len(e.results) == 1 else None
    entries = []
    for k, r in enumerate(e.results):
        text = label or f"J·v [{k}]"
        entries.append((text, text.replace("·", r" \cdot "), r))
    if flat:
        d.steps.append(Step(phrase("jvp", lang), [Entry(t, lt, exprs[r]) for t, lt, r in entries]))
    _value_step(d, lang, [Entry(t, lt, values[r]) for t, lt, r in entries if r in values])


def _seed_entry(text: str, latex: str, seed: Node, exprs: dict, values: dict) -> Entry:
    """A tangent or path seed: its formula where shown, and its numbers where it has them."""
    if seed not in values:
        return Entry(text, latex, exprs[seed])
    return Entry(text, latex, exprs.get(seed, values[seed]), f"= {_numbers(values[seed])}")


def _labelled_steps(d, e, seeds, exprs, values, flat, lang) -> None:
    """Taylor mode and the Laplacian: the path (Taylor), each result's formula, its numbers."""
    if seeds:
        d.steps.append(Step(phrase("path", lang), [_seed_entry(text, latex, s, exprs, values)
            for (text, latex), s in zip(e.seed_labels, seeds) if s in exprs or s in values
        ]))  # fmt: skip
    entries = list(zip(e.result_labels, e.results))
    if flat:
        d.steps.append(
            Step(phrase(f"{e.kind}_formula", lang), [Entry(t, lt, exprs[r]) for (t, lt), r in entries])
        )
    _value_step(d, lang, [Entry(t, lt, values[r]) for (t, lt), r in entries if r in values], "result")


def _numbers(values: np.ndarray) -> str:
    return np.array2string(np.asarray(values), precision=8, separator=", ").replace("\n", "")
