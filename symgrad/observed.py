"""What a call did besides building its graph: the variables whose values it read into Python, and
whether it changed state (a Parameter's data, a Cell's attribute, a Tensor's elements).

``jit`` watches a traced call through :func:`watching`: a call that did neither is a pure function
of its inputs' shapes and dtypes, so its graph can be reused for the next call of that signature.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from symgrad.core.graph import Var


@dataclass
class Watch:
    """What happened inside one :func:`watching` block."""

    read: set[Var] = field(default_factory=set)  # variables whose values were computed or read
    changed_state: bool = False


_watches: list[Watch] = []


@contextlib.contextmanager
def watching() -> Iterator[Watch]:
    """Record the reads and state changes of everything run inside (nested blocks see theirs too)."""
    watch = Watch()
    _watches.append(watch)
    try:
        yield watch
    finally:
        _watches.remove(watch)


def note_read(variables: Iterable[Var]) -> None:
    """Values depending on ``variables`` were computed for Python to see."""
    if _watches:
        variables = list(variables)
        for watch in _watches:
            watch.read.update(variables)


def note_state_change() -> None:
    """A Parameter's data, a Cell's attribute or a Tensor's elements (``x[i] = v``) were set."""
    for watch in _watches:
        watch.changed_state = True
