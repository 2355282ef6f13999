"""Step-by-step derivations in the guide's notation: ``symgrad.explain(grad_cell, x, y)``."""

from symgrad.explain.build import explain
from symgrad.explain.derivation import Derivation, Entry, Explanation, Step, show
from symgrad.explain.diagram import graph_dot, render_graph
from symgrad.explain.intermediates import intermediates

__all__ = [
    "Derivation",
    "Entry",
    "Explanation",
    "Step",
    "explain",
    "graph_dot",
    "intermediates",
    "render_graph",
    "show",
]
