"""The guide's Jacobian products: nn.Jvp, nn.Vjp, and the functional grad, jvp and vjp."""

from __future__ import annotations

from symgrad.tour.example import Example
from symgrad.tour.snippets import (
    _CUBE_NET,
    _HEADER,
    _JV_INPUTS,
    _SIN_COS_NET,
    _XYZ,
)

JVP_VJP: list[Example] = [
    Example(
        "Jvp",
        "nn.Jvp (forward mode)",
        _HEADER.replace("from symgrad import ParameterTuple, Parameter\n", "") + _SIN_COS_NET + """
class GradNet(nn.Cell):
    def __init__(self, net):
        super(GradNet, self).__init__()
        self.net = net
        self.grad_op = nn.Jvp(net)

    def construct(self, x, y, v):
        output = self.grad_op(x, y, (v, v))
        return output

""" + _JV_INPUTS,
        {"output[0]": [1.48219836, 1.48570347, 1.15400589],
         "output[1]": [5.24890423e-02, 4.35917288e-01, 6.84546351e-01]},
        "Jv = cos(x)*v - sin(y)*v",
    ),
    Example(
        "Vjp",
        "nn.Vjp (reverse mode)",
        _HEADER.replace("from symgrad import ParameterTuple, Parameter\n", "") + _SIN_COS_NET + """
class GradNet(nn.Cell):
    def __init__(self, net):
        super(GradNet, self).__init__()
        self.net = net
        self.grad_op = nn.Vjp(net)

    def construct(self, x, y, v):
        output = self.grad_op(x, y, v)
        return output

""" + _JV_INPUTS,
        {"output[0]": [1.48219836, 1.48570347, 1.15400589],
         "output[1][0]": [6.96706712e-01, 8.25335622e-01, 9.80066597e-01],
         "output[1][1]": [-6.44217670e-01, -3.89418334e-01, -2.95520216e-01]},
        "v^T J = (v*cos(x), -v*sin(y))",
    ),
    Example(
        "grad",
        "Functional grad with grad_position",
        """\
import numpy as np
import symgrad.nn as nn
import symgrad.context as context
from symgrad import Tensor
from symgrad.ops import grad
context.set_context(mode=context.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x, y, z):
        return x*y*z

""" + _XYZ + """\
net = Net()
output = grad(net, grad_position=(1, 2))(x, y, z)
print(output)
""",
        {"output[0]": [[0, 6], [15, -4]], "output[1]": [[-2, 6], [-3, 8]]},
        "d(xyz)/dy = xz, d(xyz)/dz = xy",
    ),
    Example(
        "grad_sens",
        "Functional grad with sens_param",
        """\
import numpy as np
import symgrad.nn as nn
import symgrad.context as context
from symgrad import Tensor
from symgrad.ops import grad
context.set_context(mode=context.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x, y, z):
        return x**2 + y**2 + z**2, x*y*z

""" + _XYZ + """\
v = Tensor(np.array([[-1, 3], [2, 1]]).astype(np.float32))
net = Net()
output = grad(net, grad_position=(1, 2), sens_param=True)(x, y, z, (v, v))
print(output)
""",
        {"output[0]": [[4, 36], [26, 0]], "output[1]": [[2, 36], [14, 6]]},
        "both outputs weighted by v, then summed",
    ),
    Example(
        "jvp",
        "Functional jvp",
        _CUBE_NET.format(fn="jvp") + "output = jvp(Net(), (x, y), (v, v))\nprint(output)\n",
        {"output[0]": [[2, 10], [30, 68]], "output[1]": [[4, 13], [28, 49]]},
        "J v = 3x^2 v + v",
    ),
    Example(
        "vjp",
        "Functional vjp",
        _CUBE_NET.format(fn="vjp") + "output = vjp(Net(), (x, y), v)\nprint(output)\n",
        {"output[0]": [[2, 10], [30, 68]], "output[1][0]": [[3, 12], [27, 48]],
         "output[1][1]": [[1, 1], [1, 1]]},
        "v^T J = (3x^2 v, v)",
    ),
]  # fmt: skip
