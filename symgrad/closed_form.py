"""Closed forms: a graph interpreted over SymPy, in the guide's notation.

An input ``x`` of shape (2, 3) becomes the symbols ``x1..x6`` (row-major, 1-based),
a scalar or a one-element Parameter keeps its plain name (``z``), and constants
become exact numbers where they are short decimals (0.1 -> 1/10).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import sympy
from sympy.printing.conventions import split_super_sub

from symgrad.core.graph import Const, Node, Var, count_ops, topo_order
from symgrad.core.registry import CONTRACTION, ELEMENTWISE, MAP, NONDIFF, REDUCTION, lookup

DEFAULT_MAX_OPS = 20000  # operations in the flattened formula


def number(value) -> sympy.Expr:
    """A SymPy number: integers exact, short decimals rational, others Float."""
    if isinstance(value, (bool, np.bool_)):
        return sympy.Integer(int(value))
    if isinstance(value, (int, np.integer)):
        return sympy.Integer(int(value))
    value = np.float64(value) if isinstance(value, float) else value
    text = np.format_float_positional(value, unique=True, trim="-")
    return sympy.Rational(text) if len(text.replace("-", "")) <= 10 else sympy.Float(float(value))


def symbol_names(name: str, shape: tuple, plain_if_single: bool) -> list[str]:
    """``x`` (2, 3) -> x1..x6; scalars and (optionally) one-element tensors keep ``x``."""
    size = math.prod(shape)
    if shape == () or (plain_if_single and size == 1):
        return [name]
    base = f"{name}_" if name[-1:].isdigit() else name
    return [f"{base}{i + 1}" for i in range(size)]


def short_parameter_names(variables: Sequence[Var]) -> dict[Var, str]:
    """Parameters' names without the cell path they all share: MindSpore names a wrapped network's
    ``z`` ``net.z``; a derivation shows ``z`` (and ``0.weight``, ``1.weight`` for ``net.0.weight``...)."""
    params = [v for v in variables if v.param is not None]
    paths = [v.display_name.split(".") for v in params]
    if not paths:
        return {}
    shared = 0
    while all(len(p) > shared + 1 and p[shared] == paths[0][shared] for p in paths):
        shared += 1
    names = {v: ".".join(p[shared:]) for v, p in zip(params, paths)}
    return names if len(set(names.values())) == len(set(v.display_name for v in params)) else {}


def variable_labels(variables: Sequence[Var]) -> dict[Var, tuple[str, list[str]]]:
    """Each variable's label and its elements' symbol names, every name used once.

    Two variables with the same name get primes (``x``, ``x'``). A name another
    variable's elements already use (a scalar ``x1`` beside ``x`` of shape (2,), whose
    elements are ``x1, x2``), as text or as LaTeX prints it (``x_1`` is ``x_{1}`` like
    ``x1``), gets a numbered suffix: ``x1_1``.
    """
    used: dict[str, int] = {}
    bases = {}
    short = short_parameter_names(variables)
    for var in variables:
        name = short.get(var, var.display_name)
        primes = used.get(name, 0)
        used[name] = primes + 1
        bases[var] = name + "'" * primes
    taken: set = set()
    labels = {}
    plain = [v for v in variables if len(symbol_names("v", v.shape, v.param is not None)) == 1]
    for var in [v for v in variables if v not in plain] + plain:  # element names (x1, x2) come first
        base = bases[var]
        names = symbol_names(base, var.shape, var.param is not None)
        suffix = 0
        while taken.intersection(_printed(names)) or _printed([base]) & taken:
            suffix += 1
            base = f"{bases[var]}_{suffix}"
            names = symbol_names(base, var.shape, var.param is not None)
        taken.update(_printed(names))
        labels[var] = (base, names)
    return labels


def _printed(names: Sequence[str]) -> set:
    """How ``names`` print: as text, and as LaTeX sees them (x1 and x_1 are both x_{1} there)."""
    return set(names) | {_latex_key(n) for n in names}


def _latex_key(name: str) -> tuple:
    base, supers, subs = split_super_sub(name)
    return (base, tuple(supers), tuple(subs))


def variable_symbols(variables: Sequence[Var]) -> dict[Var, np.ndarray]:
    """Object arrays of real symbols for each variable, named by :func:`variable_labels`."""
    table = {}
    for var, (_, names) in variable_labels(variables).items():
        arr = np.empty(len(names), dtype=object)
        arr[:] = [sympy.Symbol(n, real=True) for n in names]
        table[var] = arr.reshape(var.shape)
    return table


def _const_array(node: Const, constant=number) -> np.ndarray:
    values = np.asarray(node.value)
    out = np.empty(values.shape, dtype=object)
    for idx in np.ndindex(values.shape):
        out[idx] = constant(values[idx])
    return out


def _elementwise(fn, arrays, params, shape) -> np.ndarray:
    arrays = np.broadcast_arrays(*arrays) if len(arrays) > 1 else arrays
    args = [sympy.nsimplify(p) if isinstance(p, float) else p for p in params]
    out = np.empty(shape, dtype=object)
    for idx in np.ndindex(shape):
        out[idx] = fn(*(a[idx] for a in arrays), *args)
    return out


def _object_array(value, shape) -> np.ndarray:
    """An object array of ``shape`` (indexing one element gives a bare SymPy scalar)."""
    if isinstance(value, np.ndarray):
        return value.reshape(shape)
    out = np.empty((), dtype=object)
    out[()] = value
    return out.reshape(shape)


class stop_gradient(sympy.Function):  # noqa: N801 - printed under the name a person wrote
    """A value kept in a formula whose derivative is cut (zero)."""

    nargs = 1

    def fdiff(self, argindex: int = 1):
        return sympy.S.Zero

    def _latex(self, printer) -> str:
        return rf"\operatorname{{stop\_gradient}}\left({printer._print(self.args[0])}\right)"


STOPPED = stop_gradient


class sigmoid(sympy.Function):  # noqa: N801 - printed under the name a person writes
    """The logistic function σ(u) = 1/(1 + exp(-u)), kept whole so derivatives read σ·(1 - σ)."""

    nargs = 1

    def fdiff(self, argindex: int = 1):
        return self * (1 - self)

    def _eval_rewrite_as_exp(self, u, **kwargs):
        return 1 / (1 + sympy.exp(-u))

    def _eval_evalf(self, prec):
        return self.rewrite(sympy.exp)._eval_evalf(prec)

    def _latex(self, printer) -> str:
        return rf"\sigma\left({printer._print(self.args[0])}\right)"

    def _sympystr(self, printer) -> str:
        return f"σ({printer._print(self.args[0])})"


FAMILIAR = {"sigmoid": sigmoid}  # ops shown as the function people know, not its definition


def to_sympy(
    nodes: Sequence[Node],
    symbols: dict[Var, np.ndarray] | None = None,
    constant=number,
    marked: bool = False,
    familiar: bool = False,
) -> list[np.ndarray]:
    """Object arrays of SymPy expressions for ``nodes`` (flattens the graph).

    ``constant`` turns each constant's value into a SymPy number (default: exact where
    it is a short decimal, see :func:`number`). With ``marked``, what ``stop_gradient`` passes on
    stays visible as ``stop_gradient(...)`` (for a person: its value counts, its derivative does
    not), where it is otherwise its argument. With ``familiar``, ops people know by name stay whole
    (σ(x), whose derivative reads σ(x)·(1 - σ(x)), not 1/(4·cosh(x/2)^2)).
    """
    order = topo_order(nodes)
    values: dict[Node, np.ndarray] = {}
    if symbols is None:
        symbols = variable_symbols([n for n in order if isinstance(n, Var)])
    for node in order:
        if isinstance(node, Var):
            values[node] = symbols[node]
        elif isinstance(node, Const):
            values[node] = _const_array(node, constant)
        else:
            op = lookup(node.op)
            arrays = [values[a] for a in node.args]
            if marked and op.passes_value:
                values[node] = _elementwise(STOPPED, arrays, (), node.shape)
            elif familiar and node.op in FAMILIAR:
                values[node] = _elementwise(FAMILIAR[node.op], arrays, (), node.shape)
            elif op.kind in (ELEMENTWISE, NONDIFF):
                values[node] = _elementwise(op.sympy, arrays, node.params, node.shape)
            else:
                values[node] = _object_array(op.sympy(arrays, node), node.shape)
    return [values[n] for n in nodes]


def as_sympy(array: np.ndarray):
    """A scalar expression for shape (), else an immutable ``sympy.Array``."""
    if array.shape == ():
        return array[()]
    return sympy.ImmutableDenseNDimArray(array.ravel().tolist(), array.shape)


def expanded_size(nodes: Sequence[Node]) -> float:
    """About how many operations the flattened formulas of ``nodes`` hold (shared parts counted
    each time they are used), computed over the shared graph without flattening it."""
    per_element: dict[Node, float] = {}
    for node in topo_order(nodes):
        if not node.args:
            per_element[node] = 1.0
            continue
        args = [per_element[a] for a in node.args]
        pattern = lookup(node.op).pattern
        if pattern == MAP:
            size = 1.0 + sum(args)
        elif pattern == CONTRACTION:  # k products and k - 1 sums per element; k² = |a| |b| / |out|
            a, b = node.args
            k = math.isqrt(math.prod(a.shape) * math.prod(b.shape) // max(math.prod(node.shape), 1))
            size = k * (sum(args) + 2.0)
        elif pattern == REDUCTION:
            count = math.prod(node.args[0].shape) / max(math.prod(node.shape), 1)
            size = count * (args[0] + 1.0)
        else:  # GATHER: each element is one element of an argument
            size = max(args)
        per_element[node] = size
    return sum(per_element[n] * max(math.prod(n.shape), 1) for n in nodes)


def _call_inputs(tensor) -> list[Var]:
    """The variables of every input of the call that made ``tensor`` (named apart together)."""
    from symgrad.evaluate import Deferred

    found: list[Var] = []
    for var, bound in tensor._env.items():
        inner = (
            [n for n in topo_order([bound.tensor._node]) if isinstance(n, Var)]
            if isinstance(bound, Deferred)
            else []
        )
        found += inner or [var]  # a symbolic input stands for its own variables
    return found


def closed_form(tensor, max_ops: int | None = DEFAULT_MAX_OPS):
    """The SymPy formula of ``tensor`` in terms of its named inputs and parameters.

    Flattening repeats every shared intermediate wherever it is used, so a formula
    estimated at more than ``max_ops`` operations (see :func:`expanded_size`) is
    refused, with the numbers, unless ``max_ops=None`` is passed.
    """
    node = tensor._node
    if max_ops is not None:
        size = expanded_size([node])
        if size > max_ops:
            raise ValueError(
                f"closed_form: the flattened formula would hold about {size:.3g} operations (limit "
                f"{max_ops}) although the shared graph has only {count_ops([node])}; it would be slow to "
                "build and unreadable. symgrad.explain(...) shows it as named intermediates; pass "
                "max_ops=None to flatten anyway."
            )
    variables = list(
        dict.fromkeys(_call_inputs(tensor) + [n for n in topo_order([node]) if isinstance(n, Var)])
    )
    return as_sympy(to_sympy([node], variable_symbols(variables))[0])
