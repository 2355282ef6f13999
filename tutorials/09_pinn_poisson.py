# %% [markdown]
# # 9. Training a PINN: 2-D Poisson / 训练 PINN:二维 Poisson 方程
#
# **English.** Solve `-Δu = 2π² sin(πx) sin(πy)` on the unit square with `u = 0` on the boundary;
# the exact solution is `u = sin(πx) sin(πy)` (`symgrad.pinn.Poisson2D`). The residual uses
# `laplacian` (only the two diagonal second derivatives are built); `ResidualLoss` compiles
# mean(residual²) and its gradient for every weight into one kernel (C, compiled in the background
# while NumPy already runs); Adam starts and SciPy's L-BFGS-B finishes, to a relative L2 error
# below 1e-3. `SYMGRAD_QUICK=1` runs a short version.
#
# **中文。** 在单位正方形上求解 `-Δu = 2π² sin(πx) sin(πy)`,边界上 `u = 0`,精确解为
# `u = sin(πx) sin(πy)`(`symgrad.pinn.Poisson2D`)。残差用 `laplacian`(只构造两个对角二阶导数);
# `ResidualLoss` 把 mean(残差²) 及其对所有权重的梯度编译成一个核(C 核在后台编译,同时先用 NumPy
# 计算);先用 Adam,再用 SciPy 的 L-BFGS-B,相对 L2 误差低于 1e-3。设置 `SYMGRAD_QUICK=1`
# 运行简短版本。

# %%
import os
import time
from pathlib import Path

import numpy as np

import symgrad
from symgrad.pinn import (
    MLP,
    Adam,
    Poisson2D,
    ResidualLoss,
    lbfgs,
    load_checkpoint,
    plot_solution,
    save_checkpoint,
    train,
)

QUICK = os.environ.get("SYMGRAD_QUICK") == "1"
OUT = Path(os.environ.get("SYMGRAD_OUT", "tutorial_output"))
OUT.mkdir(exist_ok=True)
started = time.perf_counter()
problem = Poisson2D()
net = MLP([2, 20, 20, 1], seed=0)  # tanh
(boundary,) = problem.conditions(net)
interior = ResidualLoss(problem.pde(net), problem.inputs, net.params)
edge = ResidualLoss(boundary.residual, problem.inputs, net.params, weight=10.0)  # a weight per term

# %%
inside = problem.geometry.interior(2048, "sobol")
walls = boundary.sample(400, "sobol")
terms = [(interior, inside), (edge, walls)]
opt = Adam(net.params, lr=3e-3)
history = train(terms, opt, steps=200 if QUICK else 1000)
result = lbfgs(terms, net.params, max_iterations=100 if QUICK else 4000)
history += result.history
print(f"loss {history[0]:.3e} -> {history[-1]:.3e}; L-BFGS: {result.iterations} iterations")
assert history[-1] < 0.1 * history[0]

# %% [markdown]
# Evaluate on a grid, compare with the exact solution, save a picture and a checkpoint.
# 在网格上求值并与精确解比较,保存图片和检查点。

# %%
x, y = symgrad.placeholder("x"), symgrad.placeholder("y")
field = symgrad.kernel(net(x, y), [x, y, *net.params])
X, Y = problem.grid()
(predicted,) = field(X, Y, *(p.asnumpy() for p in net.params))
error = problem.relative_l2(predicted)
print(f"relative L2 error: {error:.2e} after {time.perf_counter() - started:.0f} s")
plot_solution(OUT / "poisson.png", X, Y, predicted, problem.exact(X, Y))
checkpoint = save_checkpoint(OUT / "poisson.npz", net.params, opt)
load_checkpoint(checkpoint, net.params, opt)
assert np.array_equal(field(X, Y, *(p.asnumpy() for p in net.params))[0], predicted)
if not QUICK:
    assert error < 1e-3
