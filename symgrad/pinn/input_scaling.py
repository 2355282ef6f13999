"""A network's first layer trained on its inputs centred and scaled to [-1, 1], the same function.

A first layer ``x @ W + b`` fed raw coordinates far outside [-1, 1] (a price S in [0, 150], a time
in [0, 10]) is badly scaled for every optimizer: Glorot weights saturate its units within a few
units of x, and a unit's step sits where ``b`` is near ``-x W``, which Adam moves by about its
rate per step. Written as ``((x - c) / s) @ V + a`` with ``V = diag(s) W`` and ``a = b + c @ W``
(``c`` the inputs' centre, ``s`` their half-range), the layer computes the same values; trained
over ``(V, a)`` instead of ``(W, b)``, every optimizer sees the inputs in [-1, 1] (DeepXDE's
Black-Scholes example, S in [0, 150]: error 5.1e-3-6.3e-3 on (W, b), 4.0e-5-5.4e-5 on (V, a), 150 s).

``scaled_first_layers`` finds such layers in the terms' graphs: an affine map whose input is the
stack of a term's own raw inputs in every term that uses it (a network fed ``sin t`` or ``S / 150``
is left alone: its inputs are not the points' coordinates). An input is scaled where it reaches
far enough to saturate: the root mean square of its row of ``W`` times its largest ``|x|`` past
``SATURATED``. On DeepXDE's gallery, 150 s, two seeds, scaled and raw in turn: Klein-Gordon (t in
[0, 10], 2.2 by that measure) 1.3x-2.9x lower errors; the ODE system and the inverse reaction
system (2.0, 3.0) 0.9x-3x; Lorenz (t in [0, 3], 0.7) 6x higher, so a mild reach is left raw.
``Rescaled`` is a loss term over ``(V, a)``: before each evaluation it writes ``W, b`` from them,
and it maps the gradients and the Jacobian's columns back by the chain rule. The network's own
Parameters hold ``W, b`` throughout.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.core.graph import Node, Var, topo_order
from symgrad.parameter import Parameter
from symgrad.pinn.alignment import term_parameters, wrapped_term
from symgrad.pinn.time_windows import input_values

SATURATED = 1.5  # an input is centred and scaled where it moves a typical unit this far (tanh 0.9)


class FirstLayer:
    """``x @ W + b`` trained as ``((x - centre) / half) @ V + a``: ``V``, ``a`` are new Parameters
    (named as ``W``, ``b``) that the optimizers move; :meth:`sync` writes ``W``, ``b`` from them."""

    def __init__(self, W: Parameter, b: Parameter, centre: np.ndarray, half: np.ndarray):
        self.W, self.b = W, b
        self.centre, self.half = np.asarray(centre, np.float64), np.asarray(half, np.float64)
        weights = W._value().astype(np.float64)
        self.V = Parameter((weights * self.half[:, None]).astype(W._value().dtype), name=W.name)
        self.a = Parameter((b._value() + self.centre @ weights).astype(b._value().dtype), name=b.name)
        self._synced: tuple = ()

    def sync(self) -> None:
        """``W = diag(1 / half) V`` and ``b = a - centre @ W`` from the current ``V``, ``a``."""
        V, a = self.V._value(), self.a._value()
        if len(self._synced) == 2 and self._synced[0] is V and self._synced[1] is a:
            return  # the optimizers replace a Parameter's array at each move, never write into it
        weights = V.astype(np.float64) / self.half[:, None]
        self.W.assign(weights.astype(V.dtype))
        self.b.assign((a - self.centre @ weights).astype(a.dtype))
        self._synced = (V, a)

    def gradients(self, gW: np.ndarray, gb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The loss's gradients by ``V``, ``a`` from those by ``W``, ``b`` (chain rule)."""
        gV = (gW - self.centre[:, None] * gb[None, :]) / self.half[:, None]
        return gV.astype(np.asarray(gW).dtype), gb

    def columns(self, jW: np.ndarray, jb: np.ndarray) -> np.ndarray:
        """A Jacobian's columns for ``V`` (flat, row-major) from those for ``W`` and ``b``."""
        k, n = self.W.shape
        blocks = jW.reshape(-1, k, n) - self.centre[None, :, None] * jb[:, None, :]
        return (blocks / self.half[None, :, None]).reshape(jW.shape)

    def describe(self, names: Sequence[str]) -> str:
        """``W``, ``b`` and the inputs scaled, with their ranges (``names``: the inputs in ``W``'s
        row order)."""
        moved = [
            f"{name} in [{c - s:.3g}, {c + s:.3g}]"
            for name, c, s in zip(names, self.centre, self.half)
            if (c, s) != (0.0, 1.0)
        ]
        return f"{self.W.name}, {self.b.name} ({', '.join(moved)})"


@dataclass
class _Match:
    """One term's use of a first layer: the rows of its points that feed ``W``'s rows."""

    W: Parameter
    b: Parameter
    rows: tuple[int, ...]


def _graph_term(term):
    """The term with a traced graph (``ResidualLoss``) under the wrappers a user or solve may put
    around it (a weighted or causal term); None where there is none."""
    return wrapped_term(term, lambda t: hasattr(t, "_parts") and hasattr(t, "inputs"))


def _parameter(node: Node) -> Parameter | None:
    return node.param if isinstance(node, Var) and isinstance(node.param, Parameter) else None


def _matches(term) -> tuple[list[_Match], set[int]]:
    """The affine maps ``stack(inputs) @ W + b`` in ``term``'s graph whose stacked values are the
    term's own inputs, and the ids of the ``W`` that some ``stack(...) @ W`` feeds anything else."""
    inner = _graph_term(term)
    if inner is None:
        return [], set()
    inputs = {t._node: i for i, t in enumerate(inner.inputs)}
    found: list[_Match] = []
    other: set[int] = set()
    for node in topo_order([part._node for part in inner._parts]):
        if node.op == "matmul" and node.args[0].op == "stack" and (W := _parameter(node.args[1])) is not None:
            if not all(a in inputs for a in node.args[0].args):
                other.add(id(W))
        if node.op != "add" or len(node.args) != 2:
            continue
        for product, bias in (node.args, node.args[::-1]):
            W, b = _parameter(product.args[1]) if product.op == "matmul" else None, _parameter(bias)
            stacked = product.args[0] if W is not None else None
            if W is None or b is None or stacked is None or stacked.op != "stack":
                continue
            if len(W.shape) == 2 and b.shape == (W.shape[1],) and len(stacked.args) == W.shape[0]:
                if all(a in inputs for a in stacked.args):
                    found.append(_Match(W, b, tuple(inputs[a] for a in stacked.args)))
    return found, other


def scaled_first_layers(
    losses: Sequence[tuple], params: Sequence[Parameter]
) -> tuple[list[FirstLayer], list[str]]:
    """The first layers of ``params`` to train on scaled inputs (see the module), and a line for
    each saying which inputs it scales. A layer qualifies where every term that differentiates its
    ``W`` or ``b`` feeds it its own raw inputs (in one order per term), every term lists its
    Parameters (one that does not may read ``W`` unseen), and some input moves a
    typical unit past ``SATURATED`` (the root mean square of its row of ``W`` times its largest
    ``|x|`` over the terms' points)."""
    if any(term_parameters(term) is None for term, _ in losses):
        return [], []  # a term that does not list its Parameters may read W, b unseen: leave them
    held = {id(p) for p in params}
    uses: dict[int, list[tuple[_Match, object, list[str]]]] = {}
    refused: set[int] = set()
    for term, points in losses:
        own = {id(p) for p in term_parameters(term) or []}
        matches, other = _matches(term)
        refused |= other
        by_weight: dict[int, set[tuple[int, ...]]] = {}
        for m in matches:
            by_weight.setdefault(id(m.W), set()).add(m.rows)
        names = list(getattr(_graph_term(term), "names", []))
        for m in matches:
            if len(by_weight[id(m.W)]) > 1 or id(m.b) not in own or id(m.W) not in own:
                refused.add(id(m.W))
            uses.setdefault(id(m.W), []).append((m, points, names))
        for p in term_parameters(term) or []:  # a term that uses a layer without the raw stack
            if p.ndim == 2 and id(p) not in by_weight:
                refused.add(id(p))
    layers, said = [], []
    for key, found in uses.items():
        W, b = found[0][0].W, found[0][0].b
        if key in refused or id(W) not in held or id(b) not in held or any(m.b is not b for m, _, _ in found):
            continue
        span = _span(found, W.shape[0])
        if span is None:
            continue
        lows, highs = span
        reach = np.maximum(np.abs(lows), np.abs(highs))
        typical = np.sqrt(np.mean(W._value().astype(np.float64) ** 2, axis=1))  # of each input's row
        scale = (typical * reach > SATURATED) & (highs > lows)
        if not scale.any():
            continue
        centre = np.where(scale, (lows + highs) / 2, 0.0)
        half = np.where(scale, (highs - lows) / 2, 1.0)
        layer = FirstLayer(W, b, centre, half)
        layers.append(layer)
        match, _, names = found[0]
        said.append(layer.describe([names[i] if i < len(names) else f"input {i}" for i in match.rows]))
    return layers, said


def _span(found, rows: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The least and greatest value of each of a layer's ``rows`` inputs over every term's points;
    None where some term's points are of a form that cannot be read."""
    lows, highs = np.full(rows, np.inf), np.full(rows, -np.inf)
    for m, points, _ in found:
        for i, row in enumerate(m.rows):
            values = input_values(points, row)
            if values is None or not values.size or not np.isfinite(values).all():
                return None
            lows[i], highs[i] = min(lows[i], values.min()), max(highs[i], values.max())
    return lows, highs


class Rescaled:
    """A loss term over the scaled first layers' ``(V, a)`` in place of their ``(W, b)``: it writes
    ``W, b`` before each evaluation and maps gradients and Jacobian columns back (chain rule); every
    other attribute is the wrapped ``term``'s."""

    def __init__(self, term: Callable, layers: Sequence[FirstLayer]):
        own = {id(p) for p in term_parameters(term) or []}
        self.term = term
        self.layers = [layer for layer in layers if id(layer.W) in own]
        self._swap = {id(layer.W): layer.V for layer in self.layers}
        self._swap.update({id(layer.b): layer.a for layer in self.layers})
        self._back = {id(layer.V): layer.W for layer in self.layers}
        self._back.update({id(layer.a): layer.b for layer in self.layers})
        self._index = {id(p): k for k, p in enumerate(term_parameters(term) or [])}  # in its gradients

    def __getattr__(self, name: str):
        if name == "term":  # not set yet (a copy being made): no wrapped term to ask
            raise AttributeError(name)
        return getattr(self.term, name)

    def _sync(self) -> None:
        for layer in self.layers:
            layer.sync()

    @property
    def params(self) -> list[Parameter] | None:
        """The wrapped term's Parameters with each scaled layer's ``W, b`` replaced by ``V, a``."""
        own = term_parameters(self.term)
        return None if own is None else [self._swap.get(id(p), p) for p in own]

    def __call__(self, *points):
        self._sync()
        value, grads = self.term(*points)
        grads = list(grads)
        for layer in self.layers:
            w, b = self._index[id(layer.W)], self._index[id(layer.b)]
            grads[w], grads[b] = layer.gradients(np.asarray(grads[w]), np.asarray(grads[b]))
        return value, grads

    @property
    def residuals(self) -> Callable | None:
        inner = getattr(self.term, "residuals", None)
        if not callable(inner):
            return None

        def residuals(*points):
            self._sync()
            return inner(*points)

        return residuals

    @property
    def jacobian(self) -> Callable | None:
        """The wrapped term's residuals and Jacobian, its columns those of ``V, a`` where it has
        ``W, b``'s (with ``params=``, those Parameters' columns alone, in that order)."""
        inner = getattr(self.term, "jacobian", None)
        if not callable(inner):
            return None

        def jacobian(*points, params: Sequence[Parameter] | None = None):
            self._sync()
            if params is None:
                wanted, extra = list(term_parameters(self.term) or []), []
                r, jac = inner(*points)
            else:
                wanted = [self._back.get(id(p), p) for p in params]
                ids = {id(p) for p in wanted}
                extra = [layer.b for layer in self.layers if id(layer.W) in ids and id(layer.b) not in ids]
                r, jac = inner(*points, params=wanted + extra)
            columns, start = {}, 0
            for p in wanted + extra:
                columns[id(p)] = jac[:, start : start + p.size]
                start += p.size
            for layer in self.layers:
                if id(layer.W) in columns:
                    columns[id(layer.W)] = layer.columns(columns[id(layer.W)], columns[id(layer.b)])
            return r, np.concatenate([columns[id(p)] for p in wanted], axis=1)

        return jacobian


def rescaled(losses: Sequence[tuple], params: Sequence[Parameter], layers: Sequence[FirstLayer]):
    """The terms that use a scaled layer as :class:`Rescaled` terms (the rest as given), and
    ``params`` with each layer's ``W, b`` replaced by its ``V, a``."""
    swap = {id(layer.W): layer.V for layer in layers} | {id(layer.b): layer.a for layer in layers}
    uses = {id(layer.W) for layer in layers}
    terms = [
        (Rescaled(term, layers), *rest)
        if uses & {id(p) for p in term_parameters(term) or []}
        else (term, *rest)
        for term, *rest in losses
    ]
    return terms, [swap.get(id(p), p) for p in params]
