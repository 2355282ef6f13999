"""``MultitypeFuncGraph`` and ``HyperMap``: MindSpore's functions chosen by argument types,
mapped over (nested) tuples and lists."""

from __future__ import annotations

from collections.abc import Callable

from symgrad.tensor import Tensor

# MindSpore's type names for register(), and what each accepts
_TYPE_NAMES: dict[str, Callable[[object], bool]] = {
    "Tensor": lambda v: isinstance(v, Tensor),
    "Tuple": lambda v: isinstance(v, tuple),
    "List": lambda v: isinstance(v, list),
    "Dictionary": lambda v: isinstance(v, dict),
    "Number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "Int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "Float": lambda v: isinstance(v, float),
    "Bool": lambda v: isinstance(v, bool),
    "String": lambda v: isinstance(v, str),
    "None": lambda v: v is None,
    "Function": callable,
}


def _accepts(kind) -> Callable[[object], bool]:
    if isinstance(kind, str):
        if kind not in _TYPE_NAMES:
            raise TypeError(
                f"MultitypeFuncGraph.register: unknown type {kind!r}; known: {', '.join(_TYPE_NAMES)}"
            )
        return _TYPE_NAMES[kind]
    if isinstance(kind, type):
        return lambda v: isinstance(v, kind)
    raise TypeError(f"MultitypeFuncGraph.register: a type name or a Python type, got {kind!r}")


class MultitypeFuncGraph:
    """Call the function registered for the types of the arguments (the first that matches;
    ValueError when none does, as MindSpore raises)."""

    def __init__(self, name: str, read_value: bool = False, doc_url: str = ""):
        self.name = name
        self.entries: list[tuple[tuple, list[Callable[[object], bool]], Callable]] = []

    def register(self, *type_names) -> Callable[[Callable], Callable]:
        checks = [_accepts(k) for k in type_names]

        def add(fn: Callable) -> Callable:
            self.entries.append((type_names, checks, fn))
            return fn

        return add

    def __call__(self, *args):
        for _, checks, fn in self.entries:
            if len(checks) == len(args) and all(check(a) for check, a in zip(checks, args)):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        known = "; ".join(", ".join(map(str, names)) for names, _, _ in self.entries) or "none"
        raise ValueError(
            f"MultitypeFuncGraph {self.name!r}: no function registered for ({got}); registered: {known}"
        )


class HyperMap:
    """``HyperMap(fn)(*args)``: where every argument is a tuple (or every one a list) of one length,
    map over their elements, recursively, into a tuple; elsewhere call ``fn(*args)``. Without
    ``fn`` at construction, the first argument of the call is the function."""

    def __init__(self, ops: Callable | None = None, reverse: bool = False):
        self.ops, self.reverse = ops, reverse

    def __call__(self, *args):
        fn, args = (self.ops, args) if self.ops is not None else (args[0], args[1:])
        if not callable(fn):
            raise TypeError(f"HyperMap: the function must be callable, got {type(fn).__name__}")
        return self._map(fn, args)

    def _map(self, fn: Callable, args: tuple):
        for kind in (tuple, list):
            if args and all(isinstance(a, kind) for a in args):
                lengths = {len(a) for a in args}
                if len(lengths) != 1:
                    raise ValueError(
                        f"HyperMap: the {kind.__name__}s have different lengths {sorted(lengths)}"
                    )
                order = range(lengths.pop())
                results = {
                    i: self._map(fn, tuple(a[i] for a in args))
                    for i in (reversed(order) if self.reverse else order)
                }
                return tuple(results[i] for i in order)  # a tuple for lists too, as MindSpore returns
        return fn(*args)


__all__ = ["HyperMap", "MultitypeFuncGraph"]
