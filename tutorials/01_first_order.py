# %% [markdown]
# # 1. First-order derivatives of a MatMul network / MatMul 网络的一阶导数
#
# **English.** A network computes `output = (x * z) @ y`. Reverse-mode differentiation sums the
# output and differentiates that single number, so each element of `dx` collects every place where
# that element of `x` was used. symgrad writes this out with the inputs named element by element:
# `x1..x6`, `y1..y9` and the weight `z`.
#
# **中文。** 网络计算 `output = (x * z) @ y`。反向模式求导先把输出求和,再对这个标量求导,
# 因此 `dx` 的每个元素汇总了 `x` 对应元素参与的所有乘积。symgrad 按元素命名输入
# (`x1..x6`、`y1..y9`,权重 `z`)并写出每一步。

# %%
import numpy as np

import symgrad
from symgrad import Parameter, ParameterTuple, Tensor, nn, ops
from symgrad import dtype as mstype
from symgrad.explain import show


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name="z")

    def construct(self, x, y):
        return self.matmul(x * self.z, y)


x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)

# %% [markdown]
# ## With respect to the input x / 对输入 x 求导

# %%
grad_x = ops.GradOperation()(Net())
show(symgrad.explain(grad_x, x, y))
dx = grad_x(x, y)
assert np.allclose(dx.asnumpy(), [[4.51, 2.7, 3.6], [4.51, 2.7, 3.6]], rtol=1e-6)

# %% [markdown]
# Every row of `dx` is the same: row i of `x` meets the same columns of `y`.
# `dx` 的每一行都相同:`x` 的每一行都与 `y` 的同样几列相乘。

# %%
dx_all, dy_all = ops.GradOperation(get_all=True)(Net())(x, y)
assert np.allclose(dy_all.asnumpy(), x.asnumpy().sum(axis=0)[:, None] * np.ones((1, 3)))

# %% [markdown]
# ## With respect to the weight z / 对权重 z 求导

# %%
net = Net()
grad_w = ops.GradOperation(get_by_list=True)(net, ParameterTuple(net.trainable_params()))
show(symgrad.explain(grad_w, x, y, lang="zh"))
(dz,) = grad_w(x, y)
assert np.allclose(dz.asnumpy(), [21.536], rtol=1e-6)
