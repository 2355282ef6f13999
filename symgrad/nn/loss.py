"""``nn.loss``: MindSpore's loss cells and their functional forms (``cross_entropy``, ...).

Losses are built from symgrad ops, so their gradients (in logits, labels and weights) are closed
forms. Class-index labels are data: they are read when the loss is traced, as one-hot masks.
"""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops, train_step
from symgrad.errors import OpError
from symgrad.nn.cell import Cell
from symgrad.ops.losses import (
    _check_reduction,
    _floating,
    _optional_tensor,
    _same_shapes,
    _tensor,
    binary_cross_entropy_with_logits,
    cross_entropy,
)
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor


class LossBase(Cell):
    """MindSpore's base of loss cells: ``reduction`` ('mean', 'sum' or 'none'), ``get_loss`` and
    ``get_axis`` for a subclass's ``construct``. (MindSpore's ``self.reduce`` is a flag; here it is
    the method that applies ``reduction``.)"""

    def __init__(self, reduction: str = "mean"):
        super().__init__()
        if reduction not in ("mean", "sum", "none"):
            raise ValueError(
                f"{type(self).__name__}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}"
            )
        self.reduction = reduction
        self.average = reduction != "sum"

    def reduce(self, values):
        if self.reduction == "mean":
            return values.mean()
        return values.sum() if self.reduction == "sum" else values

    def get_axis(self, x) -> tuple[int, ...]:
        """Every axis of ``x``: the axes ``get_loss`` reduces over."""
        return tuple(range(len(x.shape)))

    def get_loss(self, x, weights=1.0):
        """``weights * x`` reduced by ``reduction``, computed in float32 and returned in x's dtype."""
        x = _tensor(x, type(self).__name__, "x")
        w = weights if isinstance(weights, Tensor) else Tensor(np.asarray(weights, np.float32))
        weighted = ops.cast(x, mstype.float32) * ops.cast(w, mstype.float32)
        return ops.cast(self.reduce(weighted), x.dtype)

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__} must define construct(logits, labels)")


_Loss = LossBase  # the loss cells below are LossBase subclasses, as MindSpore's are


class MSELoss(_Loss):
    """Mean (or sum) of ``(logits - labels)^2``."""

    def construct(self, logits, labels):
        return self.reduce(ops.square(logits - labels))


class L1Loss(_Loss):
    """Mean (or sum) of ``|logits - labels|``."""

    def construct(self, logits, labels):
        return self.reduce(ops.abs(logits - labels))


class MAELoss(_Loss):
    """Mean (or sum) of ``|logits - label|`` through ``get_loss``, as MindSpore's."""

    def construct(self, logits, label):
        return self.get_loss(ops.abs(logits - label))


class RMSELoss(_Loss):
    """``sqrt(mean((logits - label)^2))``."""

    def __init__(self):
        super().__init__()
        self.MSELoss = MSELoss()

    def construct(self, logits, label):
        return ops.sqrt(self.MSELoss(logits, label))


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
            labels = self._one_hot(labels, logits)
        elif not isinstance(labels, Tensor) or labels.shape != logits.shape:
            shape = labels.shape if isinstance(labels, Tensor) else type(labels).__name__
            raise OpError(
                f"SoftmaxCrossEntropyWithLogits: labels must be a Tensor of the logits' shape {logits.shape}, "
                f"got {shape} (sparse=True takes class indices)"
            )
        return self.reduce(-(labels * ops.log_softmax(logits, -1)).sum(-1))

    @staticmethod
    def _one_hot(labels, logits: Tensor) -> Tensor:
        """The class indices ``labels`` as one-hot rows, built in the graph so that a jitted step
        keeps the labels as data (their range is checked on every call, traced or not)."""
        n, classes = logits.shape
        labels = labels if isinstance(labels, Tensor) else Tensor(np.asarray(labels))

        def check(index: np.ndarray) -> None:
            if (
                index.dtype.kind not in "iu"
                or index.shape != (n,)
                or (index.size and not 0 <= index.min() <= index.max() < classes)
            ):
                raise OpError(
                    f"SoftmaxCrossEntropyWithLogits: sparse labels must be {n} class indices in [0, {classes}), "
                    f"got shape {index.shape} and dtype {index.dtype}"
                )

        if labels.dtype.np.kind not in "iu" or labels.shape != (n,):
            check(np.zeros(labels.shape, labels.dtype.np))
        train_step.check_data(labels, check)
        classes_row = Tensor(np.arange(classes, dtype=labels.dtype.np))
        return ops.cast(ops.equal(labels.reshape((n, 1)), classes_row), logits.dtype)


class SmoothL1Loss(_Loss):
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta``, for ``d = logits - labels``
    (same shapes), then ``reduction`` ('none' by default, as MindSpore's). ``beta`` is held in float32."""

    def __init__(self, beta: float = 1.0, reduction: str = "none"):
        super().__init__(reduction)
        if not isinstance(beta, bool | int | float):
            raise TypeError(f"SmoothL1Loss: beta must be a number, got {type(beta).__name__}")
        if not beta > 0:  # MindSpore's kernel refuses these when called, with a RuntimeError
            raise RuntimeError(f"SmoothL1Loss: beta must be > 0, got {beta}")
        self.beta = float(np.float32(beta))

    def construct(self, logits, labels):
        for name, t in (("logits", logits), ("labels", labels)):
            _floating(_tensor(t, "SmoothL1Loss", name), "SmoothL1Loss", name)
        _same_shapes(logits, labels, "SmoothL1Loss", ("logits", "labels"))
        d = logits - labels
        size = ops.abs(d)
        return self.reduce(ops.where(size < self.beta, 0.5 * d * d / self.beta, size - 0.5 * self.beta))


class HuberLoss(_Loss):
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``, for ``d = logits - labels``
    (broadcast), then ``reduction``. ``delta`` is checked when called, as MindSpore does."""

    def __init__(self, reduction: str = "mean", delta: float = 1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, logits, labels):
        for name, t in (("logits", logits), ("labels", labels)):
            _tensor(t, "HuberLoss", name)
        if isinstance(self.delta, bool) or not isinstance(self.delta, int | float):
            raise TypeError(f"HuberLoss: delta must be an int or a float, got {type(self.delta).__name__}")
        if not self.delta > 0:
            raise ValueError(f"HuberLoss: delta must be > 0, got {self.delta}")
        d = logits - labels
        size = ops.abs(d)
        return self.reduce(ops.where(size < self.delta, 0.5 * d * d, self.delta * (size - 0.5 * self.delta)))


class BCEWithLogitsLoss(_Loss):
    """``binary_cross_entropy_with_logits(logits, labels, weight, pos_weight, reduction)``; ``weight``
    and ``pos_weight`` are Tensors (not Parameters) that broadcast to the logits."""

    def __init__(self, reduction: str = "mean", weight=None, pos_weight=None):
        super().__init__(_check_reduction(reduction, "BCEWithLogitsLoss"))
        for name, t in (("weight", weight), ("pos_weight", pos_weight)):
            if isinstance(t, Parameter):
                raise TypeError(f"BCEWithLogitsLoss: {name} cannot be a Parameter")
            _optional_tensor(t, "BCEWithLogitsLoss", name)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, logits, labels):
        return binary_cross_entropy_with_logits(logits, labels, self.weight, self.pos_weight, self.reduction)


class BCELoss(_Loss):
    """``-weight * (y log(x + 1e-12) + (1 - y) log(1 - x + 1e-12))`` for probabilities ``x``, then
    ``reduction``: MindSpore's kernel, whose epsilon keeps the logarithms finite at 0 and 1. ``weight``
    has the logits' shape."""

    def __init__(self, weight=None, reduction: str = "mean"):
        super().__init__(reduction)
        self.weight = _optional_tensor(weight, "BCELoss", "weight")

    def construct(self, logits, labels):
        for name, t in (("logits", logits), ("labels", labels)):
            _floating(_tensor(t, "BCELoss", name), "BCELoss", name)
        _same_shapes(logits, labels, "BCELoss", ("logits", "labels"))
        if self.weight is not None:  # MindSpore's kernel reads it elementwise, past its end if it is smaller
            _same_shapes(logits, self.weight, "BCELoss", ("logits", "weight"))
        eps = 1e-12
        loss = -(labels * ops.log(logits + eps) + (1.0 - labels) * ops.log(1.0 - logits + eps))
        return self.reduce(loss if self.weight is None else loss * self.weight)


class CrossEntropyLoss(_Loss):
    """``cross_entropy(logits, labels, weight, ignore_index, reduction, label_smoothing)``, with the
    Cell's stricter checks: class indices are int32, probabilities float, ``label_smoothing`` in [0, 1]."""

    def __init__(
        self, weight=None, ignore_index: int = -100, reduction: str = "mean", label_smoothing: float = 0.0
    ):
        super().__init__(reduction)
        who = "CrossEntropyLoss"
        if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
            raise TypeError(f"{who}: ignore_index must be an int, got {type(ignore_index).__name__}")
        if not isinstance(label_smoothing, float):
            raise TypeError(f"{who}: label_smoothing must be a float, got {type(label_smoothing).__name__}")
        if not 0.0 <= label_smoothing <= 1.0:
            raise ValueError(f"{who}: label_smoothing must be in [0.0, 1.0], got {label_smoothing}")
        if weight is not None:
            _floating(_tensor(weight, who, "weight"), who, "weight")
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def construct(self, logits, labels):
        who = "CrossEntropyLoss"
        _floating(_tensor(logits, who, "logits"), who, "logits")
        _tensor(labels, who, "labels")
        if labels.ndim == logits.ndim:
            _floating(labels, who, "probability labels")
        elif labels.ndim == logits.ndim - 1:
            if labels.dtype != mstype.int32:
                raise TypeError(f"{who}: class-index labels must be int32, got {labels.dtype}")
        else:
            raise ValueError(
                f"{who}: labels must have the logits' rank {logits.ndim} (probabilities) or one less "
                f"(class indices), got shapes {logits.shape} and {labels.shape}"
            )
        return cross_entropy(
            logits, labels, self.weight, self.ignore_index, self.reduction, self.label_smoothing
        )


__all__ = [
    "LossBase",
    "MAELoss",
    "RMSELoss",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CrossEntropyLoss",
    "HuberLoss",
    "L1Loss",
    "MSELoss",
    "SmoothL1Loss",
    "SoftmaxCrossEntropyWithLogits",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
]
