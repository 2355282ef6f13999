"""``Tensor``: a node of the expression graph together with the values it is bound to.

Arithmetic on tensors builds graph nodes; numbers are computed when asked for
(``asnumpy``, printing) by a lowered kernel, and a tensor also carries its
closed form (``expr``).
"""

from __future__ import annotations

import math
import re
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from symgrad import dtype as mstype
from symgrad import observed
from symgrad.core.families.conversion import cast
from symgrad.core.families.linalg import matmul
from symgrad.core.families.structural import (
    broadcast_to,
    getitem,
    index_to_python,
    normalize_index,
    reduce_sum,
    reshape,
    transpose,
)
from symgrad.core.families.structural.builders import _indexed_shape
from symgrad.core.graph import Const, Node, const, free_vars
from symgrad.core.registry import OPS, make_node
from symgrad.errors import OpError
from symgrad.evaluate import Deferred, evaluate

_PY_FLOAT = np.float32  # MindSpore's default for Python floats
_PY_INT = np.int64


def _to_array(data, dtype) -> np.ndarray:
    if isinstance(data, Tensor):
        arr = data.asnumpy()
    elif isinstance(data, np.ndarray | np.generic):
        arr = np.array(data)  # a copy: later edits of the caller's array do not leak in
    else:
        arr = np.asarray(data)
        if dtype is not None and arr.dtype.kind in "biuf":
            pass  # the requested dtype is applied below, without a float32 round trip
        elif arr.dtype == np.float64:
            arr = arr.astype(_PY_FLOAT)
        elif arr.dtype.kind in "iu":
            arr = arr.astype(_PY_INT)
        elif arr.dtype.kind not in "fb":
            raise TypeError(f"Tensor: cannot make a tensor from {type(data).__name__} data {data!r}")
    if arr.dtype.kind not in "biuf":
        what = "complex" if arr.dtype.kind == "c" else "non-numeric"
        raise TypeError(
            f"Tensor: {what} data of dtype {arr.dtype} and shape {arr.shape} is not supported; {mstype.REAL_ONLY}"
        )
    if dtype is not None:
        arr = arr.astype(mstype.to_dtype(dtype).np)
    return arr


def merge_env(*tensors: Any) -> dict:
    env: dict = {}
    for t in tensors:
        if isinstance(t, Tensor):
            env.update(t._env)
    return env


def as_operand(value) -> Node:
    """The node of a tensor, or a constant for Python and NumPy numbers."""
    if isinstance(value, Tensor):
        return value._node
    if isinstance(value, bool | int | float):
        return const(value)
    if isinstance(value, np.ndarray | np.generic | list | tuple):
        return const(_to_array(value, None))
    raise TypeError(f"unsupported operand of type {type(value).__name__}: {value!r}")


def _ints_for_tensors(index):
    """``index`` with integer Tensors read as their values (``x[i]`` with ``i`` a Tensor)."""
    parts = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(p, Tensor) for p in parts):
        return index
    parts = tuple(p.__index__() if isinstance(p, Tensor) else p for p in parts)
    return parts if isinstance(index, tuple) else parts[0]


def _without_new_axes(index, ndim: int) -> tuple[tuple, list[int]]:
    """``index`` with ``...`` written out and ``None`` taken out, and where the result gains its new
    axes (``x[None, :, 0]`` is ``x[:, 0]`` with an axis of size 1 put first)."""
    items = list(index) if isinstance(index, tuple) else [index]
    ellipses = [k for k, item in enumerate(items) if item is Ellipsis]
    if len(ellipses) > 1:
        raise OpError(f"getitem: an index can have only one '...', got {len(ellipses)}")
    if ellipses:
        real = sum(1 for item in items if item is not None and item is not Ellipsis)
        items[ellipses[0] : ellipses[0] + 1] = [slice(None)] * max(ndim - real, 0)
    new_axes, position = [], 0
    for item in items:
        if item is None:
            new_axes.append(position)
            position += 1
        elif isinstance(item, slice):
            position += 1
    return tuple(item for item in items if item is not None), new_axes


def _bool_mask(index, shape) -> np.ndarray | None:
    """A bool Tensor or array index as a NumPy mask of ``shape``; None for any other index."""
    if isinstance(index, Tensor) and index.dtype.np.kind == "b":
        index = index.asnumpy()
    if not (isinstance(index, np.ndarray) and index.dtype.kind == "b"):
        return None
    if index.shape != tuple(shape):
        raise OpError(
            f"Tensor.__setitem__: a bool mask of shape {index.shape} for a tensor of shape {tuple(shape)}"
        )
    return index


def _broadcast_value(update: Node, region, shape, index) -> Node:
    try:
        return broadcast_to(update, region)
    except OpError:
        raise OpError(
            f"Tensor.__setitem__: value of shape {update.shape} cannot be broadcast to the indexed "
            f"region {region} (index {index!r} of a tensor of shape {tuple(shape)})"
        ) from None


class Tensor:
    """A MindSpore-style tensor whose value and derivatives are closed forms."""

    if TYPE_CHECKING:  # for type checkers: installed from the op table (see install_operators)

        def _binary(self, other: Any) -> Tensor: ...

        def _unary(self) -> Tensor: ...

        __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _binary
        __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = __pow__ = __rpow__ = _binary
        __lt__ = __le__ = __gt__ = __ge__ = _binary
        __neg__ = __abs__ = _unary

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """NumPy's ufuncs that are table ops (np.sin, np.exp, np.add from ``array + tensor``, ...)
        apply the op, so the result stays in the graph and is differentiated exactly; any other
        ufunc, method or keyword is refused with a pointer to ``symgrad.ops``."""
        tensors = [x for x in inputs if isinstance(x, Tensor)]
        if method == "__call__" and not kwargs:
            if ufunc is np.matmul and len(inputs) == 2:
                a, b = inputs
                return a.__matmul__(b) if isinstance(a, Tensor) else b.__rmatmul__(a)
            name = ufunc_ops().get(ufunc.__name__)
            if name is not None:
                node = make_node(name, tuple(as_operand(x) for x in inputs))
                return Tensor._wrap(node, merge_env(*tensors))
        called = f"np.{ufunc.__name__}" + (f".{method}" if method != "__call__" else "")
        given = f" with {', '.join(sorted(kwargs))}=" if kwargs else ""
        raise TypeError(
            f"{called}{given} cannot take a symgrad Tensor: symgrad would not see it, so nothing would "
            "be differentiated. Write it with symgrad.ops (ops.sin, ops.exp, ops.tanh, ...); NumPy's own "
            f"ufuncs that are symgrad ops are: {', '.join(sorted(ufunc_ops()))}"
        )

    def __init__(self, input_data=None, dtype=None, shape=None, init=None):
        if input_data is None:
            if shape is None:
                raise TypeError("Tensor: give input_data, or shape (and dtype) for zeros")
            # a shape with None (a dynamic-shape declaration for Cell.set_inputs) gets size 1 there
            shape = tuple(1 if d is None else d for d in np.atleast_1d(shape).tolist()) if shape != () else ()
            input_data = np.zeros(shape, dtype=mstype.to_dtype(dtype or mstype.float32).np)
        self._node: Node = const(_to_array(input_data, dtype))
        self._env: dict = {}
        self._cache: np.ndarray | None = None

    _group: list[Tensor] | None = None  # tensors evaluated together (one kernel)

    @classmethod
    def _wrap(cls, node: Node, env: dict) -> Tensor:
        t = cls.__new__(cls)
        t._node, t._env, t._cache = node, env, None
        return t

    @staticmethod
    def _evaluate_together(tensors: list[Tensor]) -> None:
        """Later evaluation of any of ``tensors`` computes all of them in one kernel."""
        for t in tensors:
            t._group = tensors

    # ----- values -----
    def _value(self) -> np.ndarray:
        if self._cache is None and isinstance(self._node, Const) and not self._node.is_weak:
            self._cache = self._node.value  # plain data: nothing to compute
        if self._cache is None:
            group = self._group or [self]
            env = merge_env(*group)
            for t, value in zip(group, evaluate([t._node for t in group], env)):
                t._cache = value
        assert self._cache is not None  # evaluate gives every node of the group a value
        return self._cache

    def asnumpy(self) -> np.ndarray:
        """The value as a NumPy array (a copy)."""
        return np.array(self._value())

    def __array__(self, dtype=None, copy=None):
        return np.array(self._value(), dtype=dtype)  # a copy: the cache may be a constant's own data

    def item(self):
        return self._value().item()

    def __float__(self) -> float:
        self._warn_if_traced("float() of a traced value makes it a constant")
        return float(self.item())

    def __int__(self) -> int:
        self._warn_if_traced("int() of a traced value makes it a constant")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                f"the truth value of a Tensor of shape {self.shape} is ambiguous: use a 1-element "
                "Tensor in `if`, or reduce it (.all(), .any(), a comparison of a sum)"
            )
        value = bool(self.item())
        self._warn_if_traced(
            f"Python control flow on a traced value (`if`, `while`, bool()) took the {value} branch "
            "for this call's values"
        )
        return value

    def _warn_if_traced(self, what: str) -> None:
        """Warn when a value inside a differentiated function is turned into a Python number."""
        if any(isinstance(self._env.get(v), Deferred) for v in free_vars([self._node])):
            warnings.warn(
                f"{what}: derivatives do not flow through that; they are those of the code that ran, "
                "and a call with other values may run other code (keep computing with Tensors, or "
                "stop_gradient to say it is meant)",
                UserWarning,
                stacklevel=3,
            )

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d Tensor")
        return self.shape[0]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    @property
    def expr(self):
        """The closed form: a SymPy expression (shape ()) or ``sympy.Array``."""
        from symgrad.closed_form import closed_form

        return closed_form(self)

    # ----- metadata -----
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._node.shape)

    @property
    def dtype(self) -> mstype.DType:
        d = self._node.dtype
        return mstype.to_dtype(d if d is not None else self._value().dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def __repr__(self) -> str:
        value = self._value()
        if value.dtype.kind == "f":
            body = np.array2string(value, separator=", ", formatter={"float_kind": lambda v: f"{v: .8e}"})
        else:
            body = np.array2string(value, separator=", ")
        lead = "\n" if value.ndim > 1 else " "
        shape = list(self.shape)
        return f"Tensor(shape={shape}, dtype={self.dtype}, value={lead}{body})"

    def __str__(self) -> str:
        return str(self._value())

    # ----- graph building -----
    def _op(self, name: str, *others, params: tuple = ()) -> Tensor:
        node = make_node(name, (self._node, *(as_operand(o) for o in others)), params)
        return Tensor._wrap(node, merge_env(self, *others))

    def _rop(self, name: str, other) -> Tensor:
        node = make_node(name, (as_operand(other), self._node))
        return Tensor._wrap(node, merge_env(self, other))

    def __matmul__(self, o):
        return Tensor._wrap(matmul(self._node, as_operand(o)), merge_env(self, o))

    def __rmatmul__(self, o):
        return Tensor._wrap(matmul(as_operand(o), self._node), merge_env(self, o))

    def __pos__(self):
        return self

    def __getitem__(self, index) -> Tensor:
        """Ints, slices and integer Tensors, with ``...`` and ``None`` (a new axis of size 1) as in NumPy."""
        index, new_axes = _without_new_axes(_ints_for_tensors(index), self.ndim)
        picked = Tensor._wrap(getitem(self._node, index), self._env)
        if not new_axes:
            return picked
        shape = list(picked.shape)
        for axis in new_axes:
            shape.insert(axis, 1)
        return picked.reshape(tuple(shape))

    def __setitem__(self, index, value) -> None:
        """``x[index] = value`` for ints, slices and integer Tensors, or a bool mask of x's shape.

        x becomes a new node: ``value`` (cast to x's dtype, broadcast) where indexed, the old x
        elsewhere, as MindSpore's graph mode rebinds it. The gradient goes to ``value`` where it
        was written and to the old x elsewhere.
        """
        update = cast(as_operand(value), self._node.dtype or np.float64)
        mask = _bool_mask(index, self.shape)
        if mask is None:
            key = normalize_index(self.shape, _ints_for_tensors(index))
            mask = np.zeros(self.shape, bool)
            mask[index_to_python(key)] = True
            region = _indexed_shape(self.shape, key)
            placed = make_node(
                "scatter", (_broadcast_value(update, region, self.shape, index),), (key, self.shape)
            )
        elif math.prod(update.shape) == 1:
            placed = broadcast_to(reshape(update, ()), self.shape)
        else:
            raise OpError(
                f"Tensor.__setitem__: with a bool mask the value must be one number, got shape {update.shape} "
                f"for a tensor of shape {self.shape}"
            )
        self._node = make_node("select", (const(mask), placed, self._node))
        self._env, self._cache = merge_env(self, value), None
        observed.note_state_change()  # a write: a jitted call doing it is not pure

    def __index__(self) -> int:
        """A one-element integer Tensor as a Python int (``x[i]``, ``items[i]``, ``range(n)``)."""
        if self.dtype.np.kind not in "iub" or self.size != 1:
            raise TypeError(
                f"only a one-element integer Tensor can be an index, got dtype {self.dtype} and shape {self.shape}"
            )
        return int(self.item())

    def reshape(self, *shape) -> Tensor:
        dims = shape[0] if len(shape) == 1 and isinstance(shape[0], tuple | list) else shape
        return Tensor._wrap(reshape(self._node, dims), self._env)

    def transpose(self, *perm) -> Tensor:
        axes = perm[0] if len(perm) == 1 and isinstance(perm[0], tuple | list) else perm
        return Tensor._wrap(transpose(self._node, axes or None), self._env)

    @property
    def T(self) -> Tensor:
        return self.transpose()

    def sum(self, axis=None, keepdims: bool = False) -> Tensor:
        return Tensor._wrap(reduce_sum(self._node, axis, keepdims), self._env)

    def mean(self, axis=None, keep_dims: bool = False) -> Tensor:
        total = self.sum(axis, keep_dims)
        return total / (self.size // max(total.size, 1))

    def squeeze(self, axis=None) -> Tensor:
        axes = range(self.ndim) if axis is None else [int(a) % self.ndim for a in np.atleast_1d(axis)]
        shape = [d for i, d in enumerate(self.shape) if not (i in axes and d == 1)]
        return self.reshape(tuple(shape))

    def all(self, axis=None, keep_dims: bool = False) -> Tensor:
        """Whether every element is nonzero (a constant Bool tensor: it has no derivative)."""
        return Tensor(np.all(self._value(), axis=axis, keepdims=keep_dims))

    def any(self, axis=None, keep_dims: bool = False) -> Tensor:
        """Whether some element is nonzero (a constant Bool tensor)."""
        return Tensor(np.any(self._value(), axis=axis, keepdims=keep_dims))

    def astype(self, dtype, copy: bool = True) -> Tensor:
        """The tensor converted to ``dtype`` (floats to integers truncate toward zero)."""
        return Tensor._wrap(cast(self._node, mstype.to_dtype(dtype).np), self._env)

    def register_hook(self, hook):
        """``hook(grad)`` sees this tensor's gradient and may return a replacement; returns a handle
        with ``remove()`` (MindSpore's and PyTorch's ``register_hook``)."""
        from symgrad.autodiff.tensor_hooks import register_hook  # autodiff builds on Tensor

        return register_hook(self, hook)

    def expand_dims(self, axis: int) -> Tensor:
        shape = list(self.shape)
        shape.insert(axis % (self.ndim + 1), 1)
        return self.reshape(tuple(shape))

    __hash__ = object.__hash__


_ufuncs: tuple[tuple, dict[str, str]] = ((), {})


def ufunc_ops() -> dict[str, str]:
    """NumPy ufunc name -> op name, read off the table's NumPy spellings (``np.sin({0})`` -> sin);
    read again when the table changes (``symgrad.extend``)."""
    global _ufuncs
    if _ufuncs[0] == tuple(OPS.values()):
        return _ufuncs[1]
    found = {}
    for op in OPS.values():
        match = re.fullmatch(r"np\.(\w+)\(\{0\}(?:, \{1\})?\)", op.spellings.get("numpy", ""))
        fn = getattr(np, match.group(1), None) if match and not op.api.internal else None
        if isinstance(fn, np.ufunc):
            found[fn.__name__] = op.name
    _ufuncs = (tuple(OPS.values()), found)
    return found


def _operator(name: str, reflected: bool):
    """A Tensor method applying op ``name`` (``reflected``: the other operand comes first)."""

    def method(self, *other):
        return self._rop(name, *other) if reflected else self._op(name, *other)

    return method


def install_operators(op) -> None:
    """Tensor methods for ``op``'s ``Api.operators`` and ``Api.reflected`` (generated ops only)."""
    if op.api.generated:
        for dunder in op.api.operators:
            setattr(Tensor, dunder, _operator(op.name, reflected=False))
        for dunder in op.api.reflected:
            setattr(Tensor, dunder, _operator(op.name, reflected=True))


for _op in OPS.values():  # Tensor operators from the op table
    install_operators(_op)


def bind_input(tensor: Tensor, var) -> tuple[Tensor, dict]:
    """A leaf tensor for ``var`` standing for ``tensor`` inside a trace."""
    return Tensor._wrap(var, {var: Deferred(tensor)}), tensor._env
