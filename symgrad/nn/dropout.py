"""``Dropout``: MindSpore 2.10's layer; in training a random mask scaled by 1 / (1 - p).

symgrad's graph needs the mask as a constant, so each call in training draws a new one from
symgrad's own seeded generator (``set_seed``): the same distribution as MindSpore's (each element
kept with probability 1 - p, independently), not the same bits. Forward values and gradients of one
call share its mask, and ``jit`` runs such a call in full each time, so every call gets a new mask.
"""

from __future__ import annotations

from symgrad import dtype as mstype
from symgrad.nn.cell import Cell
from symgrad.ops.random import kept


class Dropout(Cell):
    """Zero each element with probability ``p`` and scale the rest by 1 / (1 - p) in training
    (``set_train()``); the identity otherwise. ``keep_prob`` is MindSpore's deprecated form (the
    probability of keeping), used when ``p`` is None."""

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype=mstype.float32):
        super().__init__()
        if p is None:
            if not isinstance(keep_prob, float):
                raise TypeError(
                    f"For 'Dropout', the type of 'keep_prob' should be 'float', but got type '{type(keep_prob).__name__}'."
                )
            if not 0 < keep_prob <= 1:
                raise ValueError(
                    f"For 'Dropout', the 'keep_prob' must be a number in range (0, 1], but got {keep_prob}."
                )
        else:
            if isinstance(p, bool) or not isinstance(p, float | int):
                raise TypeError(
                    f"For 'Dropout', the type of 'p' should be one of '['float', 'int']', but got type '{type(p).__name__}'."
                )
            if not 0 <= p < 1:
                raise ValueError(f"For 'Dropout', the 'p' must be a number in range [0, 1), but got {p}.")
        self.p, self.keep_prob = p, keep_prob

    def construct(self, x):
        if not self.training or self.keep_prob == 1 or self.p == 0:
            return x
        keep = 1.0 - self.p if self.p is not None else self.keep_prob
        return x * kept(x, keep, None, "Dropout")


__all__ = ["Dropout"]
