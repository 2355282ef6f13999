"""The op table: one record per op with its meaning, derivative rule, spellings and traits.

Op families (``symgrad/core/families/*.py``) call :func:`register` once per op.
The differentiation engine, the closed-form printer, the explanations, the public
``symgrad.ops`` namespace and every lowering backend read this table and nothing
else, so adding an op touches one family file (see ``symgrad/core/README.md``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from symgrad.core.graph import Const, Node, SomeNode, const, intern, scalar_value, topo_order
from symgrad.errors import OpError

# How the engine differentiates an op (OpDef.kind)
ELEMENTWISE = "elementwise"  # derivative from per-argument partials
LINEAR = "linear"  # derivative is the op itself; reverse mode needs a transpose rule
CUSTOM = "custom"  # hand-written jvp and vjp (bilinear ops such as MatMul)
NONDIFF = "nondiff"  # zero derivative (sign, comparisons, stop_gradient)
KINDS = (ELEMENTWISE, LINEAR, CUSTOM, NONDIFF)

# How an op's output elements read its inputs (OpDef.pattern): what a backend lowers by
MAP = "map"  # element i of the output from element i of each (broadcast) argument
CONTRACTION = "contraction"  # op(a) @ op(b), params (transpose_a, transpose_b) (matmul)
REDUCTION = "reduction"  # a sum over axes of one argument, params (axes, keepdims) (reduce_sum)
GATHER = "gather"  # every output element is one argument element, or zero (reshape, getitem, ...)
PATTERNS = (MAP, CONTRACTION, REDUCTION, GATHER)


@dataclass(frozen=True)
class Api:
    """The public names of an op.

    Attributes:
        classes: MindSpore op classes in ``symgrad.ops`` (``("Div", "RealDiv")``).
        functions: functional forms in ``symgrad.ops`` (``("asin", "arcsin")``).
        operators: Tensor methods calling the op as ``op(self, other)`` (``("__add__",)``).
        reflected: Tensor methods calling it as ``op(other, self)`` (``("__radd__",)``).
        generated: True: ``symgrad.ops`` builds the classes and functions from the record
            (ops called on tensors alone); False: they are written by hand (ops with
            MindSpore-specific arguments, such as ``ReduceSum(keep_dims)(x, axis)``).
        internal: why an op has no public name (it only appears inside derivatives).
    """

    classes: tuple[str, ...] = ()
    functions: tuple[str, ...] = ()
    operators: tuple[str, ...] = ()
    reflected: tuple[str, ...] = ()
    generated: bool = True
    internal: str = ""


@dataclass(frozen=True)
class Imported:
    """A framework's op that means this op, for the importers (``symgrad.importers``).

    Attributes:
        framework: ``"aten"`` (PyTorch's ATen ops, as ``torch.export`` records them) or
            ``"jax"`` (JAX's primitives, as a jaxpr records them).
        name: the op's name there: ``"tanh"`` for every overload, ``"add.Tensor"`` for one.
        build: ``build(*args, **kwargs) -> Node`` where the framework's arguments are not this
            op's (tensors arrive as nodes, dtypes as NumPy dtypes; a JAX primitive's params
            are the keyword arguments); default: the op applied to the positional arguments.
    """

    framework: str
    name: str
    build: Callable | None = None


def aten(name: str, build: Callable | None = None) -> Imported:
    """PyTorch's ATen op ``name`` (``"sum.dim_IntList"``, or a name for all its overloads)."""
    return Imported("aten", name, build)


def lax(name: str, build: Callable | None = None) -> Imported:
    """JAX's primitive ``name`` (``jax.lax``'s ``"logistic"``, ``"dot_general"``)."""
    return Imported("jax", name, build)


@dataclass(frozen=True)
class OpDef:
    """Everything symgrad knows about one op.

    Attributes:
        name: graph name (``"sin"``).
        display: the user-facing name used in errors (``"Sin"``).
        kind: ELEMENTWISE, LINEAR, CUSTOM or NONDIFF (how it is differentiated).
        arity: number of arguments, or None for variadic ops.
        pattern: MAP, CONTRACTION, REDUCTION or GATHER (how it is lowered).
        infer: ``(args, params) -> (shape, dtype)``; raises OpError on bad input.
        sympy: elementwise ops: ``f(*scalars, *params) -> sympy.Expr``;
            others: ``f(arrays, node) -> numpy object array``.
        partials: elementwise ops: one ``f(*args, ans, *params) -> Node`` per argument.
        transpose: linear ops: ``f(node, cotangent) -> tuple`` of argument cotangents.
        jvp, vjp: custom ops: ``jvp(node, tangents) -> Node | None`` and
            ``vjp(node, cotangent) -> tuple``.
        batched: linear and custom ops: ``f(node, tangents) -> Node | None``, the jvp of a
            batch of tangents stacked on a new leading axis (None for an argument without
            one), used by the forward Laplacian; returning None (or no rule) makes it fall
            back to one jvp per direction.
        simplify: ``(args, params) -> Node | None``, local algebraic identities.
        fold: a NumPy function that evaluates the op on Python scalar constants at
            build time (arithmetic only, so ``sin(1)`` stays symbolic).
        spellings: backend templates, ``str.format``-ed with the argument code then the
            params: ``numpy`` (``np.sin({0})``, also used by CuPy and PyTorch), ``c`` (C99,
            also used by CUDA unless a ``cuda`` spelling is given), ``mindspore``. Ops whose
            pattern is not MAP need no ``c`` spelling: the C printer lowers them by pattern.
        api: public names (:class:`Api`).
        imports: other frameworks' ops that mean this op (:class:`Imported`): PyTorch's
            (:func:`aten`) and JAX's (:func:`lax`).
        kink: the convention used where the op is not differentiable (``"ReLU'(0) = 0"``);
            ``verify`` explains finite-difference disagreements there instead of failing.
        simd: the libm function the C spelling calls, when glibc's libmvec has a SIMD
            version of it (``"exp"``).
        c_function: C source of the function the ``c`` spelling calls, where symgrad writes
            its own (``sg_tanh``); the C printer puts it into each program that uses it.
        notation: how an explanation writes the op: a template (``"{0} + {1}"``) or a
            function ``(node, argument_names) -> str``; default ``name(args)``.
        signs: the op is ``sum(sign_k * arg_k)`` (add, sub, neg), so a sum over points
            passes through it.
        keeps_order: the op keeps its argument's elements in flat order (reshape).
        passes_value: the op's value is its argument and its derivative is zero
            (stop_gradient): explanations show where it cuts the derivative.
    """

    name: str
    display: str
    kind: str
    arity: int | None
    infer: Callable
    sympy: Callable
    partials: tuple[Callable, ...] = ()
    transpose: Callable | None = None
    jvp: Callable | None = None
    vjp: Callable | None = None
    batched: Callable | None = None
    simplify: Callable | None = None
    fold: Callable | None = None
    spellings: dict[str, str] = field(default_factory=dict)
    pattern: str = MAP
    api: Api = Api()
    imports: tuple[Imported, ...] = ()
    kink: str | None = None
    simd: str | None = None
    c_function: str | None = None
    notation: str | Callable | None = None
    signs: tuple[int, ...] | None = None
    keeps_order: bool = False
    passes_value: bool = False

    def tangent(self, node: Node, tangents: Sequence[Node | None]) -> Node | None:
        """The jvp rule of a custom op (the table's checks at import make sure it has one)."""
        assert self.jvp is not None, f"op {self.name} has no jvp rule"
        return self.jvp(node, tangents)

    def spelling(self, *keys: str) -> str:
        """The first of ``keys`` this op has a spelling for, or NotImplementedError."""
        for key in keys:
            if self.spellings.get(key):
                return self.spellings[key]
        raise NotImplementedError(f"op {self.display} has no {' or '.join(map(repr, keys))} lowering")

    def describe(self, node: Node, args: list[str]) -> str:
        """The op applied to ``args`` as an explanation writes it.

        >>> from symgrad.core.graph import Var
        >>> x, y = Var("x", (), "float64"), Var("y", (), "float64")
        >>> lookup("add").describe(apply("add", x, y), ["x", "y"])
        'x + y'
        >>> lookup("tanh").describe(apply("tanh", x), ["x"])
        'tanh(x)'
        """
        if callable(self.notation):
            return self.notation(node, args)
        if self.notation:
            return self.notation.format(*args)
        return f"{self.name}({', '.join(args)})"


OPS: dict[str, OpDef] = {}


def register(op: OpDef) -> OpDef:
    """Add an op to the table (each name once)."""
    if op.name in OPS:
        raise ValueError(f"op {op.name!r} registered twice")
    if op.kind not in KINDS or op.pattern not in PATTERNS:
        raise ValueError(f"op {op.name!r}: kind must be one of {KINDS} and pattern one of {PATTERNS}")
    if op.kind == ELEMENTWISE and op.arity is not None and len(op.partials) != op.arity:
        raise ValueError(f"op {op.name!r}: one partial per argument is required")
    if op.kind == LINEAR and op.transpose is None or op.kind == CUSTOM and not (op.jvp and op.vjp):
        raise ValueError(f"op {op.name!r}: a {op.kind} op needs its derivative rule")
    OPS[op.name] = op
    return op


def imports_of(framework: str) -> dict[str, tuple[OpDef, Imported]]:
    """Every op ``framework`` can name, by its name there (an error if two ops claim one name)."""
    table: dict[str, tuple[OpDef, Imported]] = {}
    for op in OPS.values():
        for entry in op.imports:
            if entry.framework != framework:
                continue
            if entry.name in table:
                raise ValueError(
                    f"{framework} op {entry.name!r} is claimed by {table[entry.name][0].name!r} and {op.name!r}"
                )
            table[entry.name] = (op, entry)
    return table


def lookup(name: str) -> OpDef:
    """The record for ``name``, or an error listing the supported ops."""
    try:
        return OPS[name]
    except KeyError:
        supported = ", ".join(sorted(OPS))
        raise OpError(f"unknown op {name!r}; supported ops: {supported}") from None


def as_node(value) -> Node:
    """Python scalars and arrays become constants; nodes pass through."""
    return value if isinstance(value, Node) else const(value)


def make_node(name: str, args: tuple[Node, ...], params: tuple = ()) -> Node:
    """Build (or find) the node ``name(*args)``, simplified and shape-checked."""
    op = lookup(name)
    if op.arity is not None and len(args) != op.arity:
        raise OpError(f"{op.display}: expected {op.arity} arguments, got {len(args)}")
    if op.simplify is not None:
        simpler = op.simplify(args, params)
        if simpler is not None:
            return simpler
    if op.fold and all(isinstance(a, Const) and a.is_weak for a in args):
        return const(_fold(op, args, params))
    key = (name, tuple(id(a) for a in args), params)

    def build() -> Node:
        shape, dtype = op.infer(args, params)
        return Node(name, tuple(args), params, tuple(shape), dtype)

    return intern(key, build)


def apply(name: str, *args, params: tuple = ()) -> Node:
    """``make_node`` with Python scalars accepted as arguments."""
    return make_node(name, tuple(as_node(a) for a in args), params)


def _fold(op: OpDef, args, params):
    assert op.fold is not None
    with np.errstate(all="ignore"):
        value = op.fold(*(a.value for a in args), *params)
    return value.item() if isinstance(value, np.generic) else value


# ---- shared inference helpers -------------------------------------------------


def broadcast_shapes(display: str, *shapes) -> tuple[int, ...]:
    """NumPy broadcasting with an error that names the op."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        listed = " and ".join(str(tuple(s)) for s in shapes)
        raise OpError(f"{display}: shapes {listed} cannot be broadcast together") from None


def promote(args, float_result: bool):
    """Result dtype with Python scalars weak (NEP 50); None if every argument is weak."""
    strong = [a.dtype for a in args if a.dtype is not None]
    if not strong:
        return None
    weak = [a.value if isinstance(a, Const) else 0.0 for a in args if a.dtype is None]
    dtype = np.result_type(*strong, *weak)
    if float_result and dtype.kind in "biu":
        return np.dtype(np.float32)
    return dtype


def elementwise_infer(display: str, float_result: bool = True):
    """Shape by broadcasting, dtype by promotion."""

    def infer(args, params):
        return broadcast_shapes(display, *(a.shape for a in args)), promote(args, float_result)

    return infer


def is_value(node: Node, value) -> bool:
    """True if ``node`` is a constant (possibly broadcast) equal to ``value``."""
    v = scalar_value(node)
    return v is not None and v == value


def substitute(roots: Sequence[Node], mapping: Mapping[SomeNode, Node]) -> list[Node]:
    """Rebuild ``roots`` with the nodes of ``mapping`` replaced (re-simplifying)."""
    new: dict[Node, Node] = dict(mapping.items())
    for node in topo_order(roots):
        if node in new:
            continue
        if not node.args:
            new[node] = node
            continue
        args = tuple(new[a] for a in node.args)
        changed = any(a is not b for a, b in zip(args, node.args))
        new[node] = make_node(node.op, args, node.params) if changed else node
    return [new[r] for r in roots]
