"""Networks: ``Cell``, layers and the Jvp/Vjp cells."""

from symgrad.nn.cell import Cell
from symgrad.nn.layers import Dense, ReLU, SequentialCell, Sigmoid, Tanh, set_seed
from symgrad.nn.transforms import Jvp, Vjp

__all__ = ["Cell", "Dense", "Jvp", "ReLU", "SequentialCell", "Sigmoid", "Tanh", "Vjp", "set_seed"]
