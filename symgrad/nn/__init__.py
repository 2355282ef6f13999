"""Networks: ``Cell``, layers and the Jvp/Vjp cells."""

from symgrad.nn import loss, optim
from symgrad.nn.cell import Cell
from symgrad.nn.layers import (
    ELU,
    GELU,
    Conv2d,
    Dense,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    SequentialCell,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
    set_seed,
)
from symgrad.nn.loss import L1Loss, MSELoss, SoftmaxCrossEntropyWithLogits
from symgrad.nn.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from symgrad.nn.optim import SGD, Momentum
from symgrad.nn.transforms import Jvp, Vjp
from symgrad.nn.wrap import ForwardValueAndGrad, TrainOneStepCell, WithLossCell

__all__ = [
    "ELU",
    "SGD",
    "BatchNorm1d",
    "BatchNorm2d",
    "LayerNorm",
    "SoftmaxCrossEntropyWithLogits",
    "ForwardValueAndGrad",
    "L1Loss",
    "MSELoss",
    "Momentum",
    "TrainOneStepCell",
    "WithLossCell",
    "loss",
    "optim",
    "GELU",
    "Cell",
    "Conv2d",
    "Dense",
    "Jvp",
    "LeakyReLU",
    "LogSoftmax",
    "ReLU",
    "SequentialCell",
    "SiLU",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "Tanh",
    "Vjp",
    "set_seed",
]
