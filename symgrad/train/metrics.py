"""The metrics ``Model.eval`` computes: ``Accuracy``, ``Loss``, ``MAE``, ``MSE`` (MindSpore's
``mindspore.train`` classes and their names in a ``metrics={"accuracy", "loss"}`` set)."""

from __future__ import annotations

import numpy as np

from symgrad.tensor import Tensor


def _array(value) -> np.ndarray:
    return value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)


class Metric:
    """``clear()``, ``update(*inputs)`` once per batch, ``eval()`` at the end, as MindSpore's."""

    def clear(self) -> None:
        raise NotImplementedError

    def update(self, *inputs) -> None:
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError

    def _count(self, n: int) -> int:
        if n == 0:
            raise RuntimeError(f"{type(self).__name__}: eval() needs at least one update() before it")
        return n


class Accuracy(Metric):
    """The share of samples whose largest output is the label (a class index, or one-hot)."""

    def __init__(self, eval_type: str = "classification"):
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(
                f"Accuracy: eval_type must be 'classification' or 'multilabel', got {eval_type!r}"
            )
        self.eval_type = eval_type
        self.clear()

    def clear(self) -> None:
        self._correct, self._total = 0.0, 0

    def update(self, *inputs) -> None:
        if len(inputs) != 2:
            raise ValueError(f"Accuracy: update needs 2 inputs (outputs, labels), got {len(inputs)}")
        y_pred, y = _array(inputs[0]), _array(inputs[1])
        if self.eval_type == "multilabel":
            right = np.all((y_pred > 0.5) == (y > 0.5), axis=-1) if y_pred.ndim > 1 else (y_pred > 0.5) == y
        else:
            labels = y.argmax(-1) if y.ndim == y_pred.ndim else y
            right = y_pred.argmax(-1) == labels.reshape(y_pred.shape[:-1])
        self._correct += float(np.sum(right))
        self._total += right.size

    def eval(self) -> float:
        return self._correct / self._count(self._total)


class Loss(Metric):
    """The mean over batches of the loss each batch gave."""

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self._sum, self._batches = 0.0, 0

    def update(self, *inputs) -> None:
        if len(inputs) != 1:
            raise ValueError(f"Loss: update needs 1 input (the loss), got {len(inputs)}")
        loss = _array(inputs[0])
        if loss.ndim > 1:
            raise ValueError(f"Loss: the loss must be a number or 1-D, got shape {loss.shape}")
        self._sum += float(loss.mean())
        self._batches += 1

    def eval(self) -> float:
        return self._sum / self._count(self._batches)


class _Error(Metric):
    @staticmethod
    def _error(d: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __init__(self):
        self.clear()

    def clear(self) -> None:
        self._sum, self._samples = 0.0, 0

    def update(self, *inputs) -> None:
        if len(inputs) != 2:
            raise ValueError(
                f"{type(self).__name__}: update needs 2 inputs (outputs, labels), got {len(inputs)}"
            )
        y_pred, y = _array(inputs[0]).astype(np.float64), _array(inputs[1]).astype(np.float64)
        err = self._error(y_pred - y.reshape(y_pred.shape))
        self._sum += float(err.reshape(y_pred.shape[0], -1).sum(1).sum()) if y_pred.ndim else float(err)
        self._samples += y_pred.shape[0] if y_pred.ndim else 1

    def eval(self) -> float:
        return self._sum / self._count(self._samples)


class MAE(_Error):
    """The mean over samples of the summed absolute error of each sample."""

    @staticmethod
    def _error(d: np.ndarray) -> np.ndarray:
        return np.abs(d)


class MSE(_Error):
    """The mean over samples of the summed squared error of each sample."""

    @staticmethod
    def _error(d: np.ndarray) -> np.ndarray:
        return d * d


NAMES = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE}


def metrics_from(value) -> dict[str, Metric]:
    """``metrics=`` as MindSpore reads it: a set or list of names, or a dict of name -> Metric."""
    if value is None:
        return {}
    if isinstance(value, dict):
        bad = [k for k, m in value.items() if not isinstance(m, Metric)]
        if bad:
            raise TypeError(f"Model: metrics {bad} must be Metric instances")
        return dict(value)
    if not isinstance(value, set | list | tuple):
        raise TypeError(
            f"Model: metrics must be a set of names or a dict of Metrics, got {type(value).__name__}"
        )
    unknown = [n for n in value if n not in NAMES]
    if unknown:
        raise KeyError(f"Model: unknown metric names {unknown}; known: {sorted(NAMES)}")
    return {name: NAMES[name]() for name in value}


__all__ = ["MAE", "MSE", "Accuracy", "Loss", "Metric", "metrics_from"]
