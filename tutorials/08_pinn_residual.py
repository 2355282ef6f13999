# %% [markdown]
# # 8. A PINN residual / PINN 残差
#
# **English.** Physics-informed networks need derivatives of the network with respect to its
# inputs inside the loss. For Burgers' equation the residual is `r = u_t + u·u_x - ν·u_xx`. On a
# tiny network symgrad prints `u_x` in closed form; on a real one it names the intermediates and
# compiles one kernel that evaluates everything on many points at once.
#
# **中文。** 物理信息神经网络的损失函数中需要网络对输入的导数。Burgers 方程的残差为
# `r = u_t + u·u_x - ν·u_xx`。对很小的网络,symgrad 给出 `u_x` 的闭式解;对实际网络,
# 它给出命名中间量,并编译一个核在大量点上同时求值。

# %%
import numpy as np

import symgrad
from symgrad.models import PointMLP, burgers_terms

tiny = PointMLP([2, 2, 1], seed=1)
x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
terms = burgers_terms(tiny, x, t)
print("u_x =", terms["ux"].expr)

# %%
net = PointMLP([2, 32, 32, 32, 1], seed=0)
terms = burgers_terms(net, x, t)
kernel = symgrad.kernel([terms[k] for k in ("u", "ux", "ut", "uxx", "r")], [x, t, *net.params])
points = np.random.default_rng(0).uniform(-1, 1, (2, 10_000))
u, ux, ut, uxx, r = kernel(points[0], points[1], *(p.asnumpy() for p in net.params))
print("mean r^2 on 10,000 points:", np.mean(r**2))

# %% [markdown]
# Check u_x against finite differences of u on the same points.
# 用同一批点上 u 的有限差分检验 u_x。

# %%
h = 1e-6
u_plus = kernel(points[0] + h, points[1], *(p.asnumpy() for p in net.params))[0]
u_minus = kernel(points[0] - h, points[1], *(p.asnumpy() for p in net.params))[0]
assert np.allclose((u_plus - u_minus) / (2 * h), ux, rtol=1e-5, atol=1e-8)
assert np.allclose(r, ut + u * ux - 0.01 / np.pi * uxx)
