"""A record of the differentiations a call performs, for ``symgrad.explain``.

Every ``reverse``/``forward`` call appends an :class:`Episode` while recording is on;
``depth`` tells nested differentiations (a first-order gradient inside a second-order
one) from the outermost ones.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field

from symgrad.core.graph import Node


@dataclass
class Episode:
    """One differentiation: what was differentiated, how, and what came out."""

    kind: str  # "grad" (reverse mode), "jvp" (forward mode), "taylor" or "laplacian"
    fn_name: str
    outputs: list[Node]  # in the episode's own variables
    seeds: list[Node] | None  # sens (grad), tangents (jvp) or the path (taylor); None means ones
    wrt: list[Node]
    wrt_names: list[str]
    results: list[Node]  # derivatives, in the episode's own variables
    finished: list[Node]  # the same after substituting symbolic inputs back
    env: dict
    depth: int
    children: list[Episode] = field(default_factory=list)
    seed_labels: list[tuple[str, str]] = field(default_factory=list)  # (text, LaTeX) per seed (taylor)
    result_labels: list[tuple[str, str]] = field(default_factory=list)  # per result (taylor, laplacian)


_episodes: list[Episode] | None = None
_depth = 0


@contextlib.contextmanager
def recording():
    """Collect the episodes of everything run inside (nested recordings restore the outer)."""
    global _episodes
    previous, _episodes = _episodes, []
    try:
        yield _episodes
    finally:
        _episodes = previous


def depth() -> int:
    """How many differentiated calls are running (0: none; values are plain numbers)."""
    return _depth


@contextlib.contextmanager
def inside_trace():
    """Mark a user function call made while differentiating (raises the depth)."""
    global _depth
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1


def record(episode_fields: dict) -> None:
    """Append an episode if recording is on."""
    if _episodes is not None:
        _episodes.append(Episode(depth=_depth, **episode_fields))
