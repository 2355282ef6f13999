# %% [markdown]
# # 3. stop_gradient / 停止计算梯度
#
# **English.** `stop_gradient(t)` has the value of `t` and a zero derivative. A branch behind it
# still changes the output, but drops out of every derivative formula.
#
# **中文。** `stop_gradient(t)` 的值等于 `t`,导数为零。被截断的分支仍影响输出值,
# 但从所有求导公式中消失。

# %%
import numpy as np

import symgrad
from symgrad import Tensor, ops
from symgrad import dtype as mstype
from symgrad.explain import show

x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)


def with_stop(x, y):
    return ops.matmul(x, y) + ops.stop_gradient(ops.matmul(x, y))


def without_stop(x, y):
    return ops.matmul(x, y) + ops.matmul(x, y)


# %%
show(symgrad.explain(ops.grad(with_stop), x, y))
stopped = ops.grad(with_stop)(x, y).asnumpy()
doubled = ops.grad(without_stop)(x, y).asnumpy()
print(stopped, doubled, sep="\n")
assert np.allclose(doubled, 2 * stopped) and np.allclose(stopped[0], [4.51, 2.7, 3.6], rtol=1e-6)

# %% [markdown]
# The picture of the graph marks the cut (render it with Graphviz if `dot` is installed).
# 计算图中被截断的边用红色虚线标出(安装 Graphviz 的 `dot` 后可渲染成图片)。

# %%
xs, ys = symgrad.placeholder("x", (2, 3)), symgrad.placeholder("y", (3, 3))
dot = symgrad.graph_dot(with_stop(xs, ys))
assert "no gradient" in dot
