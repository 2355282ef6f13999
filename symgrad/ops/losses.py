"""Loss functions as MindSpore's ``ops`` has them (``ops.cross_entropy``,
``binary_cross_entropy_with_logits``), built from the op table's rows; ``symgrad.nn.loss``'s
Cells call these, so each loss's formula is in one place."""

from __future__ import annotations

import math

import numpy as np

from symgrad.ops import functional as F
from symgrad.ops.built_from_rows import log_softmax
from symgrad.tensor import Tensor


def _tensor(value, who: str, name: str) -> Tensor:
    """``value`` if it is a Tensor, else MindSpore's TypeError."""
    if isinstance(value, Tensor):
        return value
    raise TypeError(f"{who}: {name} must be a Tensor, got {type(value).__name__}")


def _optional_tensor(value, who: str, name: str) -> Tensor | None:
    return None if value is None else _tensor(value, who, name)


def _floating(t: Tensor, who: str, name: str) -> None:
    if t.dtype.np.kind != "f":
        raise TypeError(f"{who}: {name} must have a float dtype, got {t.dtype}")


def _reduced(values: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return values.mean()
    return values.sum() if reduction == "sum" else values


def _check_reduction(reduction, who: str) -> str:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{who}: reduction must be 'mean', 'sum' or 'none', got {reduction!r}")
    return reduction


def _same_shapes(a: Tensor, b: Tensor, who: str, names: tuple[str, str]) -> None:
    if a.shape != b.shape:
        raise ValueError(f"{who}: {names[0]} {a.shape} and {names[1]} {b.shape} must have the same shape")


def _broadcastable(weight: Tensor | None, shape: tuple, who: str, name: str) -> None:
    if weight is None:
        return
    try:
        fits = np.broadcast_shapes(weight.shape, shape) == shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(
            f"{who}: {name} of shape {weight.shape} cannot broadcast to the input's shape {shape}"
        )


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction="mean") -> Tensor:
    """``weight * ((1 - t) x + (1 + (pos_weight - 1) t) softplus(-x))``: the binary cross-entropy of
    ``sigmoid(x)`` against the target probabilities ``t``, without overflow; then ``reduction``."""
    who = "BCEWithLogitsLoss"
    for name, t in (("input", input), ("target", target)):
        _floating(_tensor(t, who, name), who, name)
    _same_shapes(input, target, who, ("input", "target"))
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        _broadcastable(_optional_tensor(t, who, name), input.shape, who, name)
    _check_reduction(reduction, who)
    scale = 1.0 if pos_weight is None else 1.0 + (pos_weight - 1.0) * target
    loss = (1.0 - target) * input + scale * F.softplus(-input)
    return _reduced(loss if weight is None else loss * weight, reduction)


def _class_shape(logits: Tensor, weight: Tensor | None, who: str) -> tuple[int, tuple[int, ...]]:
    """The class axis (0 for a 1-D input, else 1) and the shape ``weight`` broadcasts as along it."""
    axis = 0 if logits.ndim == 1 else 1
    classes = logits.shape[axis]
    if weight is not None and weight.shape != (classes,):
        raise ValueError(
            f"{who}: weight must have shape ({classes},), one value per class, got {weight.shape}"
        )
    return axis, tuple(classes if k == axis else 1 for k in range(logits.ndim))


def _class_indices(target: Tensor, logits: Tensor, axis: int, ignore_index: int, who: str) -> np.ndarray:
    """The one-hot mask of the labels along ``axis`` (all zeros where a label is ``ignore_index``)."""
    classes = logits.shape[axis]
    expected = logits.shape[:axis] + logits.shape[axis + 1 :]
    if target.shape != expected:
        raise ValueError(
            f"{who}: class-index labels for logits {logits.shape} must have shape {expected}, got {target.shape}"
        )
    index = target.asnumpy()
    keep = index != ignore_index
    bad = keep & ((index < -classes) | (index >= classes))
    if bad.any():
        raise RuntimeError(
            f"{who}: label {index[bad].ravel()[0]} is not a class index in [-{classes}, {classes})"
        )
    index = np.expand_dims(np.where(keep, index % classes, -1), axis)
    classes_along = np.arange(classes).reshape(tuple(classes if k == axis else 1 for k in range(logits.ndim)))
    return (index == classes_along).astype(logits.dtype.np)


def cross_entropy(
    input, target, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0
) -> Tensor:
    """Cross-entropy of ``softmax(input)`` along the class axis (1, or 0 for a 1-D input), as MindSpore's
    ``ops.cross_entropy``: ``target`` holds class indices (an integer Tensor without the class axis;
    ``ignore_index`` labels count nowhere) or class probabilities (a float Tensor of ``input``'s
    shape). ``weight`` weights each class; ``label_smoothing`` mixes the target with the uniform
    distribution. ``mean`` divides by the summed weights of the counted labels (indices) or by the
    number of examples (probabilities)."""
    who = "cross_entropy"
    _floating(_tensor(input, who, "input"), who, "input")
    _tensor(target, who, "target")
    _optional_tensor(weight, who, "weight")
    if isinstance(ignore_index, bool) or not isinstance(ignore_index, int):
        raise TypeError(f"{who}: ignore_index must be an int, got {type(ignore_index).__name__}")
    if not isinstance(label_smoothing, float):
        raise TypeError(f"{who}: label_smoothing must be a float, got {type(label_smoothing).__name__}")
    if not (math.isfinite(label_smoothing) and label_smoothing >= 0):
        raise ValueError(f"{who}: label_smoothing must be a finite float >= 0, got {label_smoothing}")
    _check_reduction(reduction, who)
    axis, along = _class_shape(input, weight, who)
    classes = input.shape[axis]
    log_p = log_softmax(input, axis)
    weighted = log_p if weight is None else log_p * weight.reshape(along)
    if target.dtype.np.kind == "f":  # probabilities
        _same_shapes(input, target, who, ("input", "probability target"))
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / classes
        total = weighted * target
        if reduction == "mean":
            return -total.sum() / (input.size / classes)
        return -total.sum() if reduction == "sum" else -total.sum(axis)
    if target.dtype.np.kind not in "iu":
        raise TypeError(
            f"{who}: target must hold class indices (integers) or probabilities (floats), got {target.dtype}"
        )
    one_hot = _class_indices(target, input, axis, ignore_index, who)
    counted = Tensor(one_hot.sum(axis))  # 1 where a label counts, 0 where it is ignore_index
    loss = -(weighted * Tensor(one_hot)).sum(axis)
    smooth = -weighted.sum(axis) * counted if label_smoothing > 0 else None
    if reduction != "none":
        loss = loss.sum()
        smooth = None if smooth is None else smooth.sum()
    if reduction == "mean":
        total_weight = counted.sum() if weight is None else (weight.reshape(along) * Tensor(one_hot)).sum()
        loss = loss / total_weight
        smooth = None if smooth is None else smooth / total_weight
    if smooth is None:
        return loss
    return (1.0 - label_smoothing) * loss + label_smoothing / classes * smooth


__all__ = ["binary_cross_entropy_with_logits", "cross_entropy"]
