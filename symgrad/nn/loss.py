"""``nn.loss``: MindSpore's loss cells used in training examples."""

from __future__ import annotations

from symgrad import ops
from symgrad.nn.cell import Cell


class _Loss(Cell):
    def __init__(self, reduction: str = "mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(
                f"{type(self).__name__}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}"
            )
        self.reduction = reduction

    def reduce(self, values):
        if self.reduction == "mean":
            return values.mean()
        return values.sum() if self.reduction == "sum" else values


class MSELoss(_Loss):
    """Mean (or sum) of ``(logits - labels)^2``."""

    def construct(self, logits, labels):
        return self.reduce(ops.square(logits - labels))


class L1Loss(_Loss):
    """Mean (or sum) of ``|logits - labels|``."""

    def construct(self, logits, labels):
        return self.reduce(ops.abs(logits - labels))


__all__ = ["L1Loss", "MSELoss"]
