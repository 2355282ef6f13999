"""Loss scaling as MindSpore 2.10 does it: ``TrainOneStepWithLossScaleCell`` and the update cells
``DynamicLossScaleUpdateCell`` and ``FixedLossScaleUpdateCell``.

The gradient of the loss is taken with the sens ``scale`` and divided by it again; where any
gradient is not finite (an overflow) the step is skipped and a dynamic scale is divided by its
factor, and after ``scale_window`` steps without one it is multiplied by it. symgrad computes in
the network's dtypes, so in float32 the scale changes nothing but the overflow check; it is
here so that MindSpore scripts written for mixed precision run unchanged.
"""

from __future__ import annotations

import warnings

import numpy as np

from symgrad.autodiff.differentiate import reverse
from symgrad.nn.cell import Cell
from symgrad.nn.wrap import TrainOneStepCell
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor


def _scale_value(value, who: str, name: str) -> float:
    if isinstance(value, Tensor):
        value = value.asnumpy()
    array = np.asarray(value, dtype=np.float64)
    if array.size != 1 or not np.isfinite(array).all():
        raise ValueError(f"For '{who}', '{name}' must be one finite number, got {value!r}")
    return float(array.ravel()[0])


class DynamicLossScaleUpdateCell(Cell):
    """Divide the scale by ``scale_factor`` (not below 1) on an overflow; multiply it after
    ``scale_window`` steps since the last overflow or increase. Called as ``cell(scale, overflow)``
    with ``scale`` a Parameter, updated in place; returns ``overflow``."""

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        who = "DynamicLossScaleUpdateCell"
        self.loss_scale_value = _scale_value(loss_scale_value, who, "loss_scale_value")
        self.scale_factor = _scale_value(scale_factor, who, "scale_factor")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"For '{who}', 'scale_window' must be a positive int, got {scale_window!r}")
        self.scale_window = scale_window
        self.cur_iter = Parameter(Tensor(np.array(1, np.int32)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.array(0, np.int32)), name="last_overflow_iterator_step")

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        overflowed = bool(np.asarray(overflow.asnumpy() if isinstance(overflow, Tensor) else overflow))
        scale = float(loss_scale.asnumpy().ravel()[0])
        current, last = int(self.cur_iter.asnumpy()), int(self.last_overflow_iter.asnumpy())
        if overflowed:
            scale = max(scale / self.scale_factor, 1.0)
        should_increase = current - last >= self.scale_window
        if overflowed or should_increase:
            self.last_overflow_iter.set_data(Tensor(np.array(current, np.int32)))
        if should_increase and not overflowed:
            scale *= self.scale_factor
        loss_scale.set_data(Tensor(np.full(loss_scale.shape, scale, loss_scale.dtype.np)))
        self.cur_iter.set_data(Tensor(np.array(current + 1, np.int32)))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A scale that never changes; the step is still skipped on an overflow."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = _scale_value(loss_scale_value, "FixedLossScaleUpdateCell", "loss_scale_value")

    def get_loss_scale(self) -> float:
        return self.loss_scale_value

    def construct(self, _loss_scale, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """One optimizer step with loss scaling: returns ``(loss, overflow, scale)``. ``scale_sense``
    is an update cell (the scale starts at its value and follows it) or a Tensor of shape () or
    (1,) (a fixed scale, changed with ``set_sense_scale``). The optimizer does not run on a step
    whose gradients are not all finite."""

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer)
        who = "TrainOneStepWithLossScaleCell"
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            get_loss_scale = getattr(scale_sense, "get_loss_scale", None)
            if get_loss_scale is None:
                raise TypeError(f"For '{who}', an update cell given as 'scale_sense' needs get_loss_scale()")
            self.loss_scaling_manager = scale_sense
            value = _scale_value(get_loss_scale(), who, "scale_sense")
            self.scale_sense = Parameter(Tensor(np.array(value, np.float32)), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(
                    f"For '{who}', the shape of 'scale_sense' must be (1,) or (), but got {scale_sense.shape}."
                )
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(
                f"For '{who}', the 'scale_sense' must be Cell or Tensor, but got 'scale_sense' type: "
                f"{type(scale_sense).__name__}."
            )

    def set_sense_scale(self, sens) -> None:
        if not isinstance(sens, Tensor):
            raise TypeError(
                f"For 'TrainOneStepWithLossScaleCell', the type of 'sens' must be Tensor, but got {type(sens)}"
            )
        self.scale_sense.set_data(sens)

    def process_loss_scale(self, overflow):
        """The update cell's answer to ``overflow`` (it updates the scale), or ``overflow``."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow

    def construct(self, *inputs):
        scale = float(self.scale_sense.asnumpy().ravel()[0])
        result = reverse(
            self.network, inputs, [], self.weights, who="TrainOneStepWithLossScaleCell", pullback=True
        )
        assert result.pull is not None  # reverse(pullback=True) returns its pullback
        loss = result.outputs[0]
        sens = Tensor(np.full(loss.shape, scale, loss._node.dtype or loss.dtype.np))
        with warnings.catch_warnings():  # an overflow is what this step looks for: no warning
            warnings.simplefilter("ignore", RuntimeWarning)
            grads = [g / scale for g in result.pull(sens)[1]]
            finite = all(np.isfinite(g.asnumpy()).all() for g in grads)
        cond = Tensor(np.array(not finite))
        overflow = self.process_loss_scale(cond)
        if not bool(np.asarray(overflow.asnumpy())):
            self.optimizer(grads)
        return result.value, cond, Tensor(np.array(self.scale_sense.asnumpy()))


__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]
