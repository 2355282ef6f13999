# %% [markdown]
# # 2. Weighting the output with sens / 用 sens 给输出加权
#
# **English.** With `sens_param=True` the output is not summed plainly: each element is first
# multiplied by the matching element of `sens` (`s1..s6`). Setting one sens element to 1 and the
# rest to 0 gives the derivative of a single output element; so does returning `out[0][0]`.
#
# **中文。** `sens_param=True` 时,输出的每个元素先乘以 `sens` 的对应元素(`s1..s6`)再求和。
# 把某一个缩放值设为 1、其余为 0,就得到单个输出元素的导数;直接返回 `out[0][0]` 也一样。

# %%
import numpy as np

import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad import dtype as mstype
from symgrad.explain import show


class Net(nn.Cell):
    def __init__(self, single=False):
        super().__init__()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name="z")
        self.single = single

    def construct(self, x, y):
        out = ops.matmul(x * self.z, y)
        return out[0][0] if self.single else out


x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)
sens = Tensor([[0.1, 0.6, 0.2], [0.8, 1.3, 1.1]], dtype=mstype.float32)

# %%
weighted = ops.GradOperation(sens_param=True)(Net())
show(symgrad.explain(weighted, x, y, sens))
assert np.allclose(weighted(x, y, sens).asnumpy(), [[2.211, 0.51, 1.49], [5.588, 2.68, 4.07]], rtol=1e-5)

# %% [markdown]
# ## One output element / 单个输出元素

# %%
one_hot = Tensor(np.array([[1, 0, 0], [0, 0, 0]], np.float32))
by_sens = weighted(x, y, one_hot).asnumpy()
by_index = ops.GradOperation()(Net(single=True))(x, y).asnumpy()
print(by_index)
assert np.allclose(by_sens, by_index) and np.allclose(by_index, [[0.11, 1.1, 1.1], [0, 0, 0]], rtol=1e-6)
