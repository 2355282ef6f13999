"""``mindspore.common`` names: Tensor, Parameter, ParameterTuple, dtype."""

from symgrad import dtype
from symgrad.parameter import Parameter, ParameterTuple
from symgrad.tensor import Tensor

__all__ = ["Parameter", "ParameterTuple", "Tensor", "dtype"]
