"""``nn.loss``: MindSpore's loss cells used in training examples."""

from __future__ import annotations

import numpy as np

from symgrad import ops
from symgrad.errors import OpError
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


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


class SoftmaxCrossEntropyWithLogits(_Loss):
    """``-sum(labels * log_softmax(logits))`` per example (the last axis holds the classes), then
    ``reduction`` ('none' by default, as MindSpore's). With ``sparse=True`` the labels are class
    indices (integers, read as data) instead of probabilities."""

    def __init__(self, sparse: bool = False, reduction: str = "none"):
        super().__init__(reduction)
        self.sparse = bool(sparse)

    def construct(self, logits, labels):
        if logits.ndim != 2:
            raise OpError(f"SoftmaxCrossEntropyWithLogits: logits must have shape (N, C), got {logits.shape}")
        if self.sparse:
            labels = Tensor(self._one_hot(labels, logits.shape).astype(logits.dtype.np))
        elif not isinstance(labels, Tensor) or labels.shape != logits.shape:
            shape = labels.shape if isinstance(labels, Tensor) else type(labels).__name__
            raise OpError(
                f"SoftmaxCrossEntropyWithLogits: labels must be a Tensor of the logits' shape {logits.shape}, "
                f"got {shape} (sparse=True takes class indices)"
            )
        return self.reduce(-(labels * ops.log_softmax(logits, -1)).sum(-1))

    @staticmethod
    def _one_hot(labels, shape: tuple) -> np.ndarray:
        index = labels.asnumpy() if isinstance(labels, Tensor) else np.asarray(labels)
        n, classes = shape
        if (
            index.dtype.kind not in "iu"
            or index.shape != (n,)
            or (index.size and not 0 <= index.min() <= index.max() < classes)
        ):
            raise OpError(
                f"SoftmaxCrossEntropyWithLogits: sparse labels must be {n} class indices in [0, {classes}), "
                f"got shape {index.shape} and dtype {index.dtype}"
            )
        return np.eye(classes)[index]


__all__ = ["L1Loss", "MSELoss", "SoftmaxCrossEntropyWithLogits"]
