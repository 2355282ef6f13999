"""Training wrappers: ``ForwardValueAndGrad``, ``WithLossCell``, ``TrainOneStepCell`` (as in MindSpore).

Each runs its network once per call: the value and the gradients come from the same evaluation,
so side effects of the forward pass (BatchNorm's moving statistics) happen once, as in MindSpore.
Under ``GRAPH_MODE`` a ``TrainOneStepCell`` step is jitted: traced once per input signature into
one kernel computing the loss and the updated weights and optimizer state (``symgrad/jit.py``).
"""

from __future__ import annotations

import numpy as np

from symgrad import context
from symgrad.autodiff.api import default_weights
from symgrad.autodiff.differentiate import reverse
from symgrad.errors import GradError
from symgrad.jit import jit
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


class ForwardValueAndGrad(Cell):
    """``(network(*inputs), gradients)``; the gradients as ``GradOperation`` with the same flags gives them."""

    def __init__(
        self,
        network,
        weights=None,
        get_all: bool = False,
        get_by_list: bool = False,
        sens_param: bool = False,
    ):
        super().__init__(auto_prefix=False)
        if get_by_list and weights is None:
            weights = network.trainable_params()
        self.network, self.weights, self.sens_param = network, weights, sens_param
        self.get_all, self.get_by_list = get_all, get_by_list
        if isinstance(network, Cell):
            network.set_grad()

    def construct(self, *inputs):
        if self.sens_param and not inputs:
            raise GradError("ForwardValueAndGrad(sens_param=True): the last input must be the sens value")
        args, sens = (inputs[:-1], inputs[-1]) if self.sens_param else (inputs, None)
        if self.get_all:
            positions = [p for p, a in enumerate(args) if isinstance(a, Tensor)]
        else:  # the first input, unless only the weights were asked for
            positions = [] if self.get_by_list or not args else [0]
        weights, single = (
            default_weights(self.network, self.weights, "ForwardValueAndGrad")
            if self.get_by_list
            else ([], False)
        )
        result = reverse(self.network, args, positions, weights, sens, who="ForwardValueAndGrad")
        gin = tuple(g for g in result.input_grads if g is not None)
        gw = result.weight_grads[0] if single else tuple(result.weight_grads)
        if self.get_all and self.get_by_list:
            grads: object = (gin, gw)
        elif self.get_by_list:
            grads = gw
        else:
            grads = gin if self.get_all or not gin else gin[0]
        return result.value, grads


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone, self._loss_fn = backbone, loss_fn

    @property
    def backbone_network(self):
        return self._backbone

    def construct(self, data, label):
        return self._loss_fn(self._backbone(data), label)


class TrainOneStepCell(Cell):
    """One optimizer step per call: the loss, its gradient for ``optimizer.parameters`` (scaled by
    ``sens``), the update; returns the loss. The network runs once per step."""

    def __init__(self, network, optimizer, sens: float | None = None):
        super().__init__(auto_prefix=False)
        if sens == 0:
            raise ValueError("TrainOneStepCell: sens cannot be 0")
        self.network, self.optimizer = network, optimizer
        self.sens = 1.0 if sens is None else sens
        self.weights = list(optimizer.parameters)
        network.set_grad()

    def construct(self, *inputs):
        if context.get_context("mode") == context.GRAPH_MODE:
            return _graph_step(self, *inputs)
        return self.step(*inputs)

    def step(self, *inputs):
        """One step as PyNative mode runs it."""
        if self.sens == 1.0:
            result = reverse(self.network, inputs, [], self.weights, who="TrainOneStepCell")
            grads = result.weight_grads
        else:  # the sens as MindSpore fills it: the loss's shape and dtype
            result = reverse(self.network, inputs, [], self.weights, who="TrainOneStepCell", pullback=True)
            assert result.pull is not None  # reverse(pullback=True) returns its pullback
            loss = result.outputs[0]  # its shape and dtype, not its value: the step stays a pure graph
            grads = result.pull(Tensor(np.full(loss.shape, self.sens, loss._node.dtype or loss.dtype.np)))[1]
        self.optimizer(grads)
        return result.value


@jit
def _graph_step(cell: TrainOneStepCell, *inputs):
    """``TrainOneStepCell`` under GRAPH_MODE: traced once per signature (per cell), then reused."""
    return cell.step(*inputs)


__all__ = ["ForwardValueAndGrad", "TrainOneStepCell", "WithLossCell"]
