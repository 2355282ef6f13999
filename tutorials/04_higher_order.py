# %% [markdown]
# # 4. Higher-order derivatives / 高阶导数
#
# **English.** Differentiating a gradient again needs nothing new: the first derivative is itself
# a graph of ordinary ops. Three cases: sin twice gives -sin; x*x twice gives 2; and for x²y the
# cross terms come from weighting the first-order results (dx, dy) with sens (1, 0) or (0, 1).
#
# **中文。** 对梯度再次求导不需要任何新机制:一阶导数本身就是由普通算子构成的图。
# 三个例子:sin 两次求导得 -sin;x*x 两次求导得 2;对 x²y,用 sens (1, 0) 或 (0, 1)
# 选择保留一阶结果 dx 或 dy,得到交叉项。

# %%
import numpy as np

import symgrad
from symgrad import Tensor, nn, ops
from symgrad.explain import show


class Grad(nn.Cell):
    def __init__(self, network, **options):
        super().__init__()
        self.network = network
        self.grad = ops.GradOperation(**options)

    def construct(self, *args):
        return self.grad(self.network)(*args)


# %%
second_sin = Grad(Grad(ops.Sin()))
show(symgrad.explain(second_sin, Tensor(np.array([1.0], np.float32))))
assert np.allclose(second_sin(Tensor(np.array([1.0], np.float32))).asnumpy(), [-np.sin(1.0)], rtol=1e-6)

# %%
second_square = Grad(Grad(lambda x: x * x))
assert np.allclose(second_square(Tensor([0.1, 0.2, 0.3])).asnumpy(), [2, 2, 2])


# %% [markdown]
# ## Cross terms / 交叉项


# %%
def x2y(x, y):
    return x * x * y


first = Grad(x2y, get_all=True)
one, zero = Tensor(np.array([1.0], np.float32)), Tensor(np.array([0.0], np.float32))
second = ops.GradOperation(get_all=True, sens_param=True)(first)
x, y = Tensor(np.array([4.0], np.float32)), Tensor(np.array([5.0], np.float32))
show(symgrad.explain(lambda x, y: second(x, y, (one, zero)), x, y, lang="zh"))
dxdx, dxdy = second(x, y, (one, zero))
dydx, dydy = second(x, y, (zero, one))
assert [float(t.asnumpy()[0]) for t in (dxdx, dxdy, dydx, dydy)] == [10.0, 8.0, 8.0, 0.0]
