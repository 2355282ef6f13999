"""``symgrad.amp``: MindSpore's loss scale managers, for ``Model(..., loss_scale_manager=...)``.

``FixedLossScaleManager`` keeps one scale; ``DynamicLossScaleManager`` halves it (by
``scale_factor``) on an overflow and doubles it after ``scale_window`` clean steps. Each gives
``Model`` the update cell of ``symgrad.nn.loss_scale``, which skips the optimizer on a step whose
gradients are not all finite.
"""

from __future__ import annotations

from symgrad.nn.loss_scale import DynamicLossScaleUpdateCell, FixedLossScaleUpdateCell


class LossScaleManager:
    """The interface: ``get_loss_scale``, ``update_loss_scale(overflow)``, ``get_update_cell``."""

    def get_loss_scale(self) -> float:
        raise NotImplementedError

    def update_loss_scale(self, overflow: bool) -> None:
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A fixed ``loss_scale`` (>= 1); with ``drop_overflow_update`` a step that overflows is skipped."""

    def __init__(self, loss_scale: float = 128.0, drop_overflow_update: bool = True):
        if isinstance(loss_scale, bool) or not isinstance(loss_scale, int | float) or loss_scale < 1:
            raise ValueError(f"The argument 'loss_scale' must be >= 1, but got {loss_scale!r}")
        self._loss_scale, self._drop_overflow_update = loss_scale, drop_overflow_update

    def get_loss_scale(self) -> float:
        return self._loss_scale

    def get_drop_overflow_update(self) -> bool:
        return self._drop_overflow_update

    def update_loss_scale(self, overflow: bool) -> None:
        """Nothing: the scale is fixed."""

    def get_update_cell(self):
        return FixedLossScaleUpdateCell(self._loss_scale) if self._drop_overflow_update else None


class DynamicLossScaleManager(LossScaleManager):
    """A scale that starts at ``init_loss_scale``, is divided by ``scale_factor`` (not below 1) on an
    overflow and multiplied by it after ``scale_window`` steps without one."""

    def __init__(self, init_loss_scale: float = 2**24, scale_factor: int = 2, scale_window: int = 2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"The argument 'init_loss_scale' must be > 1, but got {init_loss_scale}")
        if isinstance(scale_window, bool) or not isinstance(scale_window, int) or scale_window < 1:
            raise ValueError(f"The argument 'scale_window' must be a positive int, but got {scale_window!r}")
        if scale_factor <= 0:
            raise ValueError(f"The argument 'scale_factor' must be > 0, but got {scale_factor}")
        self.loss_scale, self.scale_factor, self.scale_window = init_loss_scale, scale_factor, scale_window
        self.cur_iter, self.last_overflow_iter, self.bad_step, self.bad_step_max = 1, 0, 0, 1000

    def get_loss_scale(self) -> float:
        return self.loss_scale

    def get_drop_overflow_update(self) -> bool:
        return True

    def update_loss_scale(self, overflow: bool) -> None:
        """MindSpore's rule, step by step (for loops that do not use the update cell)."""
        if overflow:
            self.loss_scale = max(self.loss_scale / self.scale_factor, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.scale_factor
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(
                f"Dynamic loss scale: {self.bad_step} overflows in a row, over the limit {self.bad_step_max}"
            )
        self.cur_iter += 1

    def get_update_cell(self):
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


__all__ = ["DynamicLossScaleManager", "FixedLossScaleManager", "LossScaleManager"]
