# %% [markdown]
# # 5. Jvp and Vjp / 前向与反向模式
#
# **English.** `Jvp` pushes a tangent `v` forward: `J·v`, one pass per input direction. `Vjp`
# pulls a cotangent back: `vᵀJ`, one pass per output direction. For `sin(x) + cos(y)` the
# Jacobian is diagonal, so both read off `cos(x)` and `-sin(y)`.
#
# **中文。** `Jvp` 把切向量 `v` 向前传播得到 `J·v`;`Vjp` 把余切向量向后传播得到 `vᵀJ`。
# 对 `sin(x) + cos(y)`,雅可比矩阵是对角的,两者都给出 `cos(x)` 和 `-sin(y)`。

# %%
import numpy as np

import symgrad
from symgrad import Tensor, nn, ops
from symgrad import dtype as mstype
from symgrad.explain import show


class Net(nn.Cell):
    def construct(self, x, y):
        return ops.sin(x) + ops.cos(y)


x = Tensor([0.8, 0.6, 0.2], dtype=mstype.float32)
y = Tensor([0.7, 0.4, 0.3], dtype=mstype.float32)
v = Tensor([1, 1, 1], dtype=mstype.float32)

# %%
jvp = nn.Jvp(Net())
show(symgrad.explain(jvp, x, y, (v, v)))
out, jv = jvp(x, y, (v, v))
assert np.allclose(jv.asnumpy(), np.cos(x.asnumpy()) - np.sin(y.asnumpy()), rtol=1e-6)

# %%
vjp = nn.Vjp(Net())
show(symgrad.explain(vjp, x, y, v, lang="zh"))
out, (gx, gy) = vjp(x, y, v)
assert np.allclose(gx.asnumpy(), np.cos(x.asnumpy()), rtol=1e-6)
assert np.allclose(gy.asnumpy(), -np.sin(y.asnumpy()), rtol=1e-6)
