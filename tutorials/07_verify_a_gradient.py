# %% [markdown]
# # 7. Verifying a hand-written gradient / 验证手写梯度
#
# **English.** Not in the guide, but the everyday use of closed forms: you wrote a backward pass
# by hand and want to know if it is right. `symgrad.verify` compares it with the exact closed form
# (50 digits), the compiled kernel, finite differences and PyTorch when installed, and says where
# they disagree.
#
# **中文。** 指南之外的常见用途:手写了反向传播,想确认是否正确。`symgrad.verify` 将其与
# 精确的闭式解(50 位精度)、编译后的核、有限差分(以及已安装的 PyTorch)比较,并指出不一致之处。

# %%
import numpy as np

import symgrad
from symgrad import Tensor, ops


def layer(x, w):
    return ops.tanh(ops.matmul(w, x)).sum()


def my_backward(x, w):
    x, w = x.asnumpy(), w.asnumpy()
    h = np.tanh(w @ x)
    return (1 - h**2) @ w, np.outer(1 - h**2, x)


x = Tensor(np.array([0.5, -1.0, 2.0]))
w = Tensor(np.array([[0.1, 0.2, -0.3], [0.4, -0.5, 0.6]]))
report = symgrad.verify(layer, x, w, expected=my_backward)
print(report)
assert report.ok


# %% [markdown]
# A planted bug: a transposed weight gradient is caught, and the report names the element.
# 故意引入的错误:权重梯度转置后,报告会指出出错的元素。


# %%
def buggy_backward(x, w):
    dx, dw = my_backward(x, w)
    dw = dw.copy()
    dw[0, 1], dw[1, 0] = dw[1, 0], dw[0, 1]
    return dx, dw


bad = symgrad.verify(layer, x, w, expected=buggy_backward)
print(bad)
assert not bad.ok and bad.failures[0].derivative == "d out / d w"
