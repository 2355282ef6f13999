"""Training wrappers: ``ForwardValueAndGrad``, ``WithLossCell``, ``TrainOneStepCell`` (as in MindSpore)."""

from __future__ import annotations

from symgrad.autodiff.api import GradOperation
from symgrad.nn.cell import Cell


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
        self.grad = GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)
        self.get_by_list = get_by_list

    def construct(self, *inputs):
        value = self.network(*(inputs[:-1] if self.sens_param else inputs))
        fn = self.grad(self.network, self.weights) if self.get_by_list else self.grad(self.network)
        return value, fn(*inputs)


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self.backbone, self.loss_fn = backbone, loss_fn

    def construct(self, data, label):
        return self.loss_fn(self.backbone(data), label)


class TrainOneStepCell(Cell):
    """One optimizer step per call: the loss, its gradient for ``optimizer.parameters`` (scaled by
    ``sens``), the update; returns the loss."""

    def __init__(self, network, optimizer, sens: float = 1.0):
        super().__init__(auto_prefix=False)
        self.network, self.optimizer, self.sens = network, optimizer, sens
        self.weights = list(optimizer.parameters)
        self.grad = GradOperation(get_by_list=True)

    def construct(self, *inputs):
        loss = self.network(*inputs)
        grads = self.grad(lambda *a: self.network(*a) * self.sens, self.weights)(*inputs)
        self.optimizer(grads)
        return loss


__all__ = ["ForwardValueAndGrad", "TrainOneStepCell", "WithLossCell"]
