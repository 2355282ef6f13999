"""``nn.DistributedGradReducer`` on one device, as MindSpore 2.10 builds it without ``communication.init()``.

MindSpore sums each gradient over the devices of the group (``AllReduce``) and, with ``mean``,
multiplies by ``1 / degree``; on one device the sum is the gradient itself. So the reducer returns
each gradient (computed in float32 and cast back, as MindSpore does) times ``1 / degree`` when
``mean`` is set. ``degree`` defaults to the group's size (1) and ``mean`` to
``get_auto_parallel_context("gradients_mean")``. Nothing is communicated or run in parallel.
"""

from __future__ import annotations

from symgrad import dtype as mstype
from symgrad import runtime
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


class DistributedGradReducer(Cell):
    """``DistributedGradReducer(parameters, mean=None, degree=None, fusion_type=1, group=...)(grads)``."""

    def __init__(
        self, parameters, mean=None, degree=None, fusion_type: int = 1, group: str = "hccl_world_group"
    ):
        super().__init__()
        self.mean = runtime.get_auto_parallel_context("gradients_mean") if mean is None else mean
        if degree is None:
            degree = 1  # the size of the group: one device
        elif isinstance(degree, bool) or not isinstance(degree, int) or degree <= 0:
            raise ValueError(
                "For 'DistributedGradReducer', parameter 'degree' in DistributedGradReducer should large "
                f"than 0 and be int, degree: {degree}."
            )
        self.degree = degree
        self.parameter_count = len(list(parameters))
        self.fusion_type, self.group = fusion_type, group

    def construct(self, grads):
        single = isinstance(grads, Tensor)
        items = (grads,) if single else tuple(grads)
        out = []
        for g in items:
            if not isinstance(g, Tensor):
                raise TypeError(f"DistributedGradReducer: grads must be Tensors, got {type(g).__name__}")
            g32 = g.astype(mstype.float32)
            if self.mean:
                g32 = g32 * Tensor(1.0 / self.degree, mstype.float32)
            out.append(g32.astype(g.dtype))
        return out[0] if single else tuple(out)


__all__ = ["DistributedGradReducer"]
