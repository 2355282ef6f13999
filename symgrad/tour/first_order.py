"""The guide's first-order examples: input, get_all, weight, sens, single output element, stop_gradient."""

from __future__ import annotations

from symgrad.tour.example import Example
from symgrad.tour.snippets import (
    _GRAD_WRT_X,
    _HEADER,
    _INPUTS,
    _NET,
)

FIRST_ORDER: list[Example] = [
    Example(
        "input",
        "First-order derivation with respect to the input x",
        _HEADER + _NET + "\n" + _GRAD_WRT_X + "\n" + _INPUTS
        + "output = GradNetWrtX(Net())(x, y)\nprint(output)\n",
        {"output": [[4.5099998, 2.7, 3.6000001], [4.5099998, 2.7, 3.6000001]]},
        "d(sum output)/dx[i][j] = (y_j1 + y_j2 + y_j3) * z",
    ),
    Example(
        "get_all",
        "Gradients of every input (get_all=True)",
        _HEADER + _NET + "\n" + _GRAD_WRT_X.replace("ops.GradOperation()", "ops.GradOperation(get_all=True)")
        + "\n" + _INPUTS + "output = GradNetWrtX(Net())(x, y)\nprint(output)\n",
        {"output[0]": [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]],
         "output[1]": [[2.6, 2.6, 2.6], [1.9, 1.9, 1.9], [1.3, 1.3, 1.3]]},
        "the guide names this variant without printing it; dy = x^T @ ones * z",
    ),
    Example(
        "weight",
        "Weight derivation (get_by_list=True)",
        _HEADER + _NET + "\n" + _INPUTS + """\
class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.params = ParameterTuple(net.trainable_params())
        self.grad_op = ops.GradOperation(get_by_list=True)
    def construct(self, x, y):
        gradient_function = self.grad_op(self.net, self.params)
        return gradient_function(x, y)
output = GradNetWrtX(Net())(x, y)
print(output)
""",
        {"output[0]": [21.536]},
        "d(sum output)/dz is the sum of the six products",
    ),
    Example(
        "sens",
        "Gradient value scaling (sens_param=True)",
        _HEADER + _NET + "\n" + _INPUTS + """\
class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation(sens_param=True)
        self.grad_wrt_output = Tensor([[0.1, 0.6, 0.2], [0.8, 1.3, 1.1]], dtype=mstype.float32)
    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y, self.grad_wrt_output)
output = GradNetWrtX(Net())(x, y)
print(output)
""",
        {"output": [[2.211, 0.51, 1.49], [5.588, 2.68, 4.07]]},
        "each output element is weighted by s1..s6 before summing",
    ),
    Example(
        "single",
        "Derivative of a single output element (out[0][0])",
        _HEADER + _GRAD_WRT_X + "\n" + _INPUTS + """\
class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name='z')
    def construct(self, x, y):
        x = x * self.z
        out = self.matmul(x, y)
        return out[0][0]
output = GradNetWrtX(Net())(x, y)
print(output)
""",
        {"output": [[0.11, 1.1, 1.1], [0.0, 0.0, 0.0]]},
        "only x1, x2, x3 appear in out[0][0]",
    ),
    Example(
        "stop_gradient",
        "Stop gradient",
        """\
import numpy as np
import symgrad.nn as nn
import symgrad.ops as ops
from symgrad import Tensor
from symgrad import ParameterTuple, Parameter
from symgrad import dtype as mstype
from symgrad.ops import stop_gradient

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        out1 = self.matmul(x, y)
        out2 = self.matmul(x, y)
        out2 = stop_gradient(out2)
        out = out1 + out2
        return out

class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation()

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)

x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)
output = GradNetWrtX(Net())(x, y)
print(output)

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        out1 = self.matmul(x, y)
        out2 = self.matmul(x, y)
        out = out1 + out2
        return out

doubled = GradNetWrtX(Net())(x, y)
print(doubled)
""",
        {"output": [[4.5, 2.7, 3.6], [4.5, 2.7, 3.6]], "doubled": [[9.0, 5.4, 7.2], [9.0, 5.4, 7.2]]},
        "without stop_gradient the second branch doubles the gradient "
        "(the guide prints one decimal: the exact values are 4.51 and 9.02)",
        atol=0.05,
    ),
]  # fmt: skip
