"""Networks: ``Cell``, layers and the Jvp/Vjp cells."""

from symgrad.nn import dynamic_lr, loss, optim
from symgrad.nn import learning_rate as learning_rate_schedule  # MindSpore's module name
from symgrad.nn.cell import Cell
from symgrad.nn.containers import CellList
from symgrad.nn.dropout import Dropout
from symgrad.nn.dynamic_lr import (
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from symgrad.nn.embedding import Embedding
from symgrad.nn.layers import (
    ELU,
    GELU,
    Conv2d,
    Dense,
    Flatten,
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
from symgrad.nn.learning_rate import (
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
)
from symgrad.nn.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    MSELoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)
from symgrad.nn.normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from symgrad.nn.optim import SGD, Adam, AdamWeightDecay, Momentum, Optimizer
from symgrad.nn.pooling import AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from symgrad.nn.recurrent import GRU, LSTM
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
    # layers, containers
    "AvgPool1d",
    "AvgPool2d",
    "CellList",
    "Dropout",
    "Embedding",
    "Flatten",
    "GRU",
    "LSTM",
    "MaxPool1d",
    "MaxPool2d",
    # training: optimizers, learning rates, losses
    "Adam",
    "AdamWeightDecay",
    "BCELoss",
    "BCEWithLogitsLoss",
    "CosineDecayLR",
    "CrossEntropyLoss",
    "ExponentialDecayLR",
    "HuberLoss",
    "InverseDecayLR",
    "LearningRateSchedule",
    "NaturalExpDecayLR",
    "Optimizer",
    "PolynomialDecayLR",
    "SmoothL1Loss",
    "WarmUpLR",
    "cosine_decay_lr",
    "dynamic_lr",
    "exponential_decay_lr",
    "inverse_decay_lr",
    "learning_rate_schedule",
    "natural_exp_decay_lr",
    "piecewise_constant_lr",
    "polynomial_decay_lr",
    "warmup_lr",
]
