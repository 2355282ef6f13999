# %% [markdown]
# # 6. Functional grad, jvp and vjp / 函数式接口
#
# **English.** The same derivatives without wrapper cells: `grad(fn, grad_position=...)` picks the
# inputs, `sens_param=True` weights the outputs (one sens per output), `jvp` and `vjp` return the
# value together with the derivative.
#
# **中文。** 不需要包装 Cell:`grad(fn, grad_position=...)` 选择求导的输入,`sens_param=True`
# 对每个输出加权,`jvp` 和 `vjp` 同时返回函数值与导数。

# %%
import numpy as np

import symgrad
from symgrad import Tensor
from symgrad.explain import show
from symgrad.ops import grad, jvp, vjp

x = Tensor(np.array([[1, 2], [3, 4]], np.float32))
y = Tensor(np.array([[-2, 3], [-1, 2]], np.float32))
z = Tensor(np.array([[0, 3], [5, -1]], np.float32))


def product(x, y, z):
    return x * y * z


# %%
show(symgrad.explain(grad(product, grad_position=(1, 2)), x, y, z))
gy, gz = grad(product, grad_position=(1, 2))(x, y, z)
assert np.allclose(gy.asnumpy(), x.asnumpy() * z.asnumpy()) and np.allclose(
    gz.asnumpy(), x.asnumpy() * y.asnumpy()
)


# %%
def two_outputs(x, y, z):
    return x**2 + y**2 + z**2, x * y * z


v = Tensor(np.array([[-1, 3], [2, 1]], np.float32))
gy, gz = grad(two_outputs, grad_position=(1, 2), sens_param=True)(x, y, z, (v, v))
assert np.allclose(gy.asnumpy(), [[4, 36], [26, 0]]) and np.allclose(gz.asnumpy(), [[2, 36], [14, 6]])


# %%
def cube(x, y):
    return x**3 + y


ones = Tensor(np.ones((2, 2), np.float32))
value, tangent = jvp(cube, (x, x), (ones, ones))
value, (cx, cy) = vjp(cube, (x, x), ones)
show(symgrad.explain(lambda a, b: vjp(cube, (a, b), ones), x, x, lang="zh"))
assert np.allclose(tangent.asnumpy(), [[4, 13], [28, 49]]) and np.allclose(cx.asnumpy(), [[3, 12], [27, 48]])
