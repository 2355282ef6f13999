# %% [markdown]
# # 12. An inverse problem: learn the diffusivity / 反问题:学习扩散系数
#
# **English.** `u_t = D u_xx` on x ∈ [0, 1], t ∈ [0, 1], with D unknown. We have 200 noisy-free
# observations of u inside the domain (from the exact `u = exp(-D π² t) sin(πx)` with D = 0.1) and
# the boundary values. D is a `Parameter` used in the residual: listed with the network's weights,
# it is trained with them, and its gradient is exact like theirs. The observations are a data term
# (`observations`: points and values); the PDE, the walls and the data are three terms with their
# own losses in the history. `SYMGRAD_QUICK=1` runs a short version.
#
# **中文。** 在 x ∈ [0, 1]、t ∈ [0, 1] 上 `u_t = D u_xx`,D 未知。已知区域内 200 个 u 的观测值
# (来自 D = 0.1 时的精确解 `u = exp(-D π² t) sin(πx)`)及边界值。D 是残差中用到的 `Parameter`:
# 与网络权重一起列出,就与它们一起训练,其梯度与权重的梯度一样精确。观测值是数据项
# (`observations`:点与值);方程、边界和数据是三个损失项,训练历史中各有自己的损失。设置
# `SYMGRAD_QUICK=1` 运行简短版本。

# %%
import os
import time

import numpy as np

from symgrad import Parameter, Tensor
from symgrad.pinn import MLP, Adam, Heat, ResidualLoss, dirichlet, grad, lbfgs, observations, predict, train

QUICK = os.environ.get("SYMGRAD_QUICK") == "1"
started = time.perf_counter()
problem = Heat(alpha=0.1)  # the truth: D = 0.1
net = MLP([2, 20, 20, 1] if QUICK else [2, 20, 20, 20, 1], seed=0)
D = Parameter(Tensor(np.array(0.5)), name="D")  # a first guess, five times too large


def heat(x, t):
    return grad(net, 1)(x, t) - D * grad(grad(net, 0), 0)(x, t)


rng = np.random.default_rng(0)
seen = rng.uniform([[0.0], [0.0]], [[1.0], [1.0]], (2, 200))
data = observations(net, seen, problem.exact(*seen), ("x", "t"))
walls = dirichlet(net, problem.geometry, value=0.0, name="walls")
unknowns = [*net.trainable_params(), D]
terms = [
    (
        ResidualLoss(heat, ("x", "t"), unknowns, name="pde"),
        problem.geometry.interior(1000 if QUICK else 2000, "sobol"),
    ),
    (walls.loss(unknowns), walls.sample(100, "sobol")),
    (data.loss(unknowns, weight=10.0), data.sample()),
]

# %% [markdown]
# Adam, then L-BFGS, both over the weights and D.
# 先 Adam,再 L-BFGS,同时优化权重和 D。

# %%
history = train(terms, Adam(unknowns, lr=3e-3), 300 if QUICK else 3000, progress=False)
result = lbfgs(terms, unknowns, max_iterations=200 if QUICK else 5000, progress=False)
learned = float(D.asnumpy())
print(f"D: 0.5 -> {learned:.6f} (true 0.1, error {abs(learned - 0.1):.1e}); L-BFGS: {result.message}")
for name in history.terms:
    print(f"  {name:<6} {history.terms[name][0]:.2e} -> {result.terms[name][-1]:.2e}")
X, T = problem.grid()
error = problem.relative_l2(predict(net, (X, T)))
print(f"relative L2 error of u: {error:.2e} ({time.perf_counter() - started:.0f} s)")
assert abs(learned - 0.1) < (0.1 if QUICK else 1e-4)
if not QUICK:
    assert error < 1e-3
