"""The guide's examples, verbatim with ``mindspore`` renamed ``symgrad``, and its printed numbers.

Each example's ``code`` runs on its own; ``expected`` maps a variable of the
executed namespace to the values the guide prints for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

_HEADER = """\
import numpy as np
import symgrad.context as context
import symgrad.nn as nn
import symgrad.ops as ops
from symgrad import Tensor
from symgrad import ParameterTuple, Parameter
from symgrad import dtype as mstype
context.set_context(mode=context.GRAPH_MODE, device_target="GPU")
"""

_NET = """\
class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name='z')
    def construct(self, x, y):
        x = x * self.z
        out = self.matmul(x, y)
        return out
"""

_GRAD_WRT_X = """\
class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation()
    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)
"""

_INPUTS = """\
x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)
"""

_SIN_COS_NET = """\
class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.sin = ops.Sin()
        self.cos = ops.Cos()

    def construct(self, x, y):
        a = self.sin(x)
        b = self.cos(y)
        out = a + b
        return out
"""

_JV_INPUTS = """\
x = Tensor([0.8, 0.6, 0.2], dtype=mstype.float32)
y = Tensor([0.7, 0.4, 0.3], dtype=mstype.float32)
v = Tensor([1, 1, 1], dtype=mstype.float32)
output = GradNet(Net())(x, y, v)
print(output)
"""

_XYZ = """\
x = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
y = Tensor(np.array([[-2, 3], [-1, 2]]).astype(np.float32))
z = Tensor(np.array([[0, 3], [5, -1]]).astype(np.float32))
"""

_CUBE_NET = """\
import numpy as np
import symgrad.nn as nn
import symgrad.context as context
from symgrad.ops import {fn}
from symgrad import Tensor
context.set_context(mode=context.GRAPH_MODE)
class Net(nn.Cell):
    def construct(self, x, y):
        return x**3 + y

x = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
y = Tensor(np.array([[1, 2], [3, 4]]).astype(np.float32))
v = Tensor(np.array([[1, 1], [1, 1]]).astype(np.float32))
"""


@dataclass(frozen=True)
class Example:
    """One runnable example of the guide."""

    key: str
    title: str
    code: str
    expected: dict = field(default_factory=dict)
    note: str = ""
    atol: float = 1e-5  # the guide's printing precision

    def heading(self, lang: str = "en") -> str:
        """The section's title in ``lang`` ("en" or "zh")."""
        return TITLES_ZH[self.key] if lang == "zh" else self.title


TITLES_ZH = {
    "input": "输入求导",
    "get_all": "对所有输入求导（get_all=True）",
    "weight": "权重求导（get_by_list=True）",
    "sens": "梯度值缩放（sens_param=True）",
    "single": "单个输出元素的导数（out[0][0]）",
    "stop_gradient": "停止计算梯度",
    "sin2": "单输入单输出高阶导数（Sin 的二阶导数）",
    "mul2": "单输入多输出高阶导数（Mul 的二阶导数）",
    "cross": "多输入多输出高阶导数：dxdx、dxdy、dydx、dydy",
    "Jvp": "nn.Jvp（前向模式）",
    "Vjp": "nn.Vjp（反向模式）",
    "grad": "函数式 grad 与 grad_position",
    "grad_sens": "函数式 grad 与 sens_param",
    "jvp": "函数式 jvp",
    "vjp": "函数式 vjp",
}


EXAMPLES: list[Example] = [
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
    Example(
        "sin2",
        "Second order of Sin (single input, single output)",
        """\
import numpy as np
import symgrad.context as context
import symgrad.nn as nn
import symgrad.ops as ops
from symgrad import Tensor
context.set_context(mode=context.GRAPH_MODE, device_target="GPU")

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.sin = ops.Sin()
    def construct(self, x):
        out = self.sin(x)
        return out

class Grad(nn.Cell):
    def __init__(self, network):
        super(Grad, self).__init__()
        self.grad = ops.GradOperation()
        self.network = network
    def construct(self, x):
        gout= self.grad(self.network)(x)
        return gout
class GradSec(nn.Cell):
    def __init__(self, network):
        super(GradSec, self).__init__()
        self.grad = ops.GradOperation()
        self.network = network
    def construct(self, x):
        gout= self.grad(self.network)(x)
        return gout

net=Net()
firstgrad = Grad(net) # first order
secondgrad = GradSec(firstgrad) # second order
x_train = Tensor(np.array([1.0], dtype=np.float32))
output = secondgrad(x_train)
print(output)
""",
        {"output": [-0.841471]},
        "d2 sin(x)/dx2 = -sin(x)",
    ),
    Example(
        "mul2",
        "Second order of Mul (single input, multiple outputs)",
        """\
import symgrad.context as context
import symgrad.nn as nn
import symgrad.ops as ops
from symgrad import Tensor
from symgrad import dtype as mstype
context.set_context(mode=context.GRAPH_MODE, device_target="GPU")

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.mul = ops.Mul()
    def construct(self, x):
        out = self.mul(x, x)
        return out

class Grad(nn.Cell):
    def __init__(self, network):
        super(Grad, self).__init__()
        self.grad = ops.GradOperation(sens_param=False)
        self.network = network
    def construct(self, x):
        gout = self.grad(self.network)(x)
        return gout
class GradSec(nn.Cell):
    def __init__(self, network):
        super(GradSec, self).__init__()
        self.grad = ops.GradOperation(sens_param=False)
        self.network = network
    def construct(self, x):
        gout = self.grad(self.network)(x)
        return gout

net=Net()
firstgrad = Grad(net) # first order
secondgrad = GradSec(firstgrad) # second order
x = Tensor([0.1, 0.2, 0.3], dtype=mstype.float32)
output = secondgrad(x)
print(output)
""",
        {"output": [2.0, 2.0, 2.0]},
        "d2 (x*x)/dx2 = 2 for every element",
    ),
    Example(
        "cross",
        "Cross second-order terms dxdx, dxdy, dydx, dydy (multiple inputs)",
        """\
import numpy as np
import symgrad.context as context
import symgrad.nn as nn
import symgrad.ops as ops
from symgrad import Tensor
context.set_context(mode=context.GRAPH_MODE, device_target="GPU")

class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.mul = ops.Mul()

    def construct(self, x, y):
        x_square = self.mul(x, x)
        x_square_y = self.mul(x_square, y)
        return x_square_y

class Grad(nn.Cell):
    def __init__(self, network):
        super(Grad, self).__init__()
        self.grad = ops.GradOperation(get_all=True, sens_param=False)
        self.network = network
    def construct(self, x, y):
        gout = self.grad(self.network)(x, y) # return dx, dy
        return gout

class GradSec(nn.Cell):
    def __init__(self, network):
        super(GradSec, self).__init__()
        self.grad = ops.GradOperation(get_all=True, sens_param=True)
        self.network = network
        self.sens1 = Tensor(np.array([1]).astype('float32'))
        self.sens2 = Tensor(np.array([0]).astype('float32'))
    def construct(self, x, y):
        dxdx, dxdy = self.grad(self.network)(x, y, (self.sens1,self.sens2))
        dydx, dydy = self.grad(self.network)(x, y, (self.sens2,self.sens1))
        return dxdx, dxdy, dydx, dydy

net = Net()
firstgrad = Grad(net) # first order
secondgrad = GradSec(firstgrad) # second order
x_train = Tensor(np.array([4],dtype=np.float32))
y_train = Tensor(np.array([5],dtype=np.float32))
dxdx, dxdy, dydx, dydy = secondgrad(x_train, y_train)
print(dxdx, dxdy, dydx, dydy)
""",
        {"dxdx": [10.0], "dxdy": [8.0], "dydx": [8.0], "dydy": [0.0]},
        "sens (1, 0) keeps dx = 2xy, sens (0, 1) keeps dy = x^2",
    ),
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

BY_KEY = {e.key: e for e in EXAMPLES}
