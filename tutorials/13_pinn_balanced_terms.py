# %% [markdown]
# # 13. Terms that pull unequally: balancing by gradient norms / 不平衡的损失项:按梯度范数加权
#
# **English.** Helmholtz, `-Δu - k²u = k² sin(kx) sin(ky)` on the unit square with u = 0 on the
# walls (exact: `u = sin(kx) sin(ky)`). The equation's residual is multiplied by k² ≈ 40 here, so
# its gradient dwarfs the boundary term's: trained on the plain sum, the network learns the
# equation and lets the walls drift. A hand-picked boundary weight fixes that, if you pick it
# well; `train(balance_every=100)` picks it: every 100 steps each term's weight moves toward
# (sum of all terms' gradient norms) / (its own), as in Wang, Sankaran, Wang & Perdikaris (2023).
# `history.weights` records the weights, and `weighted_terms` keeps them for L-BFGS afterwards.
# `SYMGRAD_QUICK=1` runs a short version.
#
# **中文。** 单位正方形上的 Helmholtz 方程 `-Δu - k²u = k² sin(kx) sin(ky)`,边界上 u = 0
# (精确解 `u = sin(kx) sin(ky)`)。方程残差乘了 k² ≈ 40,其梯度远大于边界项的梯度:
# 直接对损失之和训练,网络学会方程却让边界值漂移。手工设定边界项权重可以解决,但要选得好;
# `train(balance_every=100)` 自动选择:每 100 步,每项的权重向
# (所有项梯度范数之和)/(本项梯度范数) 移动(Wang、Sankaran、Wang 与 Perdikaris,2023)。
# `history.weights` 记录权重,`weighted_terms` 在之后的 L-BFGS 中保留它们。设置
# `SYMGRAD_QUICK=1` 运行简短版本。

# %%
import math
import os
import time

import numpy as np

from symgrad import ops
from symgrad.pinn import (
    MLP,
    Adam,
    Rectangle,
    ResidualLoss,
    dirichlet,
    laplacian,
    lbfgs,
    predict,
    train,
    weighted_terms,
)

QUICK = os.environ.get("SYMGRAD_QUICK") == "1"
K = 2 * math.pi
SQUARE = Rectangle((0, 0), (1, 1))
ADAM, LBFGS = (300, 100) if QUICK else (3000, 2000)


def solve(balance_every):
    """Adam then L-BFGS on the equation and the walls (weight 1 each to start); returns the error
    and the training history."""
    net = MLP([2, 20, 20, 1] if QUICK else [2, 40, 40, 1], "sin", seed=0)

    def pde(x, y):
        return -laplacian(net, (0, 1))(x, y) - K**2 * net(x, y) - K**2 * ops.sin(K * x) * ops.sin(K * y)

    walls = dirichlet(net, SQUARE, value=0.0)
    terms = [
        (ResidualLoss(pde, ("x", "y"), net, name="pde"), SQUARE.interior(512 if QUICK else 2048, "sobol")),
        (walls.loss(net), walls.sample(128 if QUICK else 400, "sobol")),
    ]
    history = train(
        terms, Adam(net.trainable_params(), 1e-3), ADAM, progress=False, balance_every=balance_every
    )
    if history.weights:
        terms = weighted_terms(terms, history.weights[-1][1])
    lbfgs(terms, net.trainable_params(), max_iterations=LBFGS, progress=False)
    X, Y = np.meshgrid(np.linspace(0, 1, 101), np.linspace(0, 1, 101), indexing="ij")
    exact = np.sin(K * X) * np.sin(K * Y)
    return np.linalg.norm(predict(net, (X, Y)) - exact) / np.linalg.norm(exact), history


# %% [markdown]
# The plain sum, then the balanced one, from the same start.
# 先用直接求和,再用平衡后的加权和,初始网络相同。

# %%
started = time.perf_counter()
plain_error, _ = solve(None)
balanced_error, history = solve(100)
steps, (w_pde, w_walls) = history.weights[-1]
print(f"plain sum:    relative L2 {plain_error:.2e}")
print(
    f"balanced sum: relative L2 {balanced_error:.2e} (weights at step {steps}: pde {w_pde:.3g}, walls {w_walls:.3g})"
)
print(f"({time.perf_counter() - started:.0f} s)")
assert w_walls > 10 * w_pde  # the walls' term, whose gradient is the smaller, is raised
if not QUICK:
    assert balanced_error < plain_error / 3
