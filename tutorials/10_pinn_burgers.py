# %% [markdown]
# # 10. Burgers' equation (Raissi et al.) / Burgers 方程
#
# **English.** `u_t + u·u_x - (0.01/π)·u_xx = 0` on x ∈ [-1, 1], t ∈ [0, 1], with
# `u(x, 0) = -sin(πx)` and `u(±1, t) = 0`. Three residual terms (equation, initial and boundary
# conditions) are compiled once and trained with Adam. Raissi et al. finish with L-BFGS; with Adam
# alone a few minutes give the shape of the shock, and the loss history shows the progress.
#
# **中文。** 在 x ∈ [-1, 1]、t ∈ [0, 1] 上求解 `u_t + u·u_x - (0.01/π)·u_xx = 0`,
# 初值 `u(x, 0) = -sin(πx)`,边界 `u(±1, t) = 0`。三个残差项(方程、初值、边界)各编译一次,
# 用 Adam 训练。Raissi 等人最后使用 L-BFGS;仅用 Adam 训练几分钟即可得到激波的形状。

# %%
import os
from pathlib import Path

import numpy as np

import symgrad
from symgrad import ops
from symgrad.explain import show
from symgrad.models import PointMLP
from symgrad.pinn import Adam, ResidualLoss, plot_solution, train

QUICK = os.environ.get("SYMGRAD_QUICK") == "1"
OUT = Path(os.environ.get("SYMGRAD_OUT", "tutorial_output"))
OUT.mkdir(exist_ok=True)
NU = 0.01 / np.pi
net = PointMLP([2, 20, 20, 20, 1], seed=0)
u = net
u_x, u_t = ops.grad(u, 0), ops.grad(u, 1)
u_xx = ops.grad(u_x, 0)


def equation(x, t):
    return u_t(x, t) + u(x, t) * u_x(x, t) - NU * u_xx(x, t)


def initial(x, t):
    return u(x, t) + ops.sin(np.pi * x)


terms_def = [
    ResidualLoss(equation, ("x", "t"), net.params),
    ResidualLoss(initial, ("x", "t"), net.params),
    ResidualLoss(u, ("x", "t"), net.params),
]
# u_x, layer by layer (the network is too large for one flat formula)
show(symgrad.explain(u_x, symgrad.Tensor(np.array(0.1)), symgrad.Tensor(np.array(0.2))))

# %%
rng = np.random.default_rng(0)
collocation = np.stack([rng.uniform(-1, 1, 4000), rng.uniform(0, 1, 4000)])
x0 = rng.uniform(-1, 1, 200)
start = np.stack([x0, np.zeros_like(x0)])
tb = rng.uniform(0, 1, 200)
walls = np.stack([np.where(rng.random(200) < 0.5, -1.0, 1.0), tb])
opt = Adam(net.params, lr=2e-3)
history = train(list(zip(terms_def, (collocation, start, walls))), opt, steps=100 if QUICK else 2000)
print(f"loss {history[0]:.3e} -> {history[-1]:.3e}")
assert history[-1] < 0.5 * history[0]

# %%
x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
field = symgrad.kernel(u(x, t), [x, t, *net.params])
T, X = np.meshgrid(np.linspace(0, 1, 101), np.linspace(-1, 1, 201))
(predicted,) = field(X, T, *(p.asnumpy() for p in net.params))
plot_solution(OUT / "burgers.png", T, X, predicted, labels=("t", "x"))
