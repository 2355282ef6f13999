# %% [markdown]
# # 11. A system of PDEs: Kovasznay flow / 方程组:Kovasznay 流
#
# **English.** The steady Navier-Stokes equations at Re = 20 on [-0.5, 1] x [-0.5, 1.5]:
# `u u_x + v u_y + p_x - ν Δu = 0`, `u v_x + v v_y + p_y - ν Δv = 0`, `u_x + v_y = 0`, ν = 1/Re,
# with Kovasznay's exact solution (1948) on the boundary. One network gives three fields,
# `u, v, p = net(x, y)` (`MLP([2, ..., 3])`); `net.output(k)` is the k-th field as a function to
# differentiate. The residual returns a tuple: each equation is a term of its own, with its own
# weight and its own loss in the training history. The pressure is fixed on the outflow (x = 1),
# where it is known (`symgrad.pinn.Kovasznay` holds the equations, the exact solution and the grid).
# `SYMGRAD_QUICK=1` runs a short version.
#
# **中文。** Re = 20 时 [-0.5, 1] x [-0.5, 1.5] 上的定常 Navier-Stokes 方程:
# `u u_x + v u_y + p_x - ν Δu = 0`,`u v_x + v v_y + p_y - ν Δv = 0`,`u_x + v_y = 0`,ν = 1/Re;
# 边界上取 Kovasznay(1948)的精确解。一个网络给出三个场 `u, v, p = net(x, y)`
# (`MLP([2, ..., 3])`);`net.output(k)` 是第 k 个场,可直接求导。残差返回元组:每个方程是单独的
# 损失项,有自己的权重,训练历史中有自己的损失。压力在出口(x = 1)处取已知值。设置
# `SYMGRAD_QUICK=1` 运行简短版本。

# %%
import os
import time

from symgrad.pinn import MLP, Adam, Kovasznay, ResidualLoss, lbfgs, predict, train

QUICK = os.environ.get("SYMGRAD_QUICK") == "1"
started = time.perf_counter()
problem = Kovasznay(reynolds=20)  # the equations, the exact solution, the grid
net = MLP([2, 20, 20, 3] if QUICK else [2, 40, 40, 40, 3], seed=0)
names = ["momentum x", "momentum y", "mass"]
equations = ResidualLoss(problem.pde(net), problem.inputs, net, name="ns", term_names=names)
walls = problem.conditions(net)  # u and v on the boundary, p on the outflow x = 1
terms = [(equations, problem.geometry.interior(1000 if QUICK else 2601, "sobol"))]
for condition, weight, count in zip(walls, (10.0, 10.0, 1.0), (400, 400, 100)):
    terms.append(
        (condition.loss(net, weight=weight), condition.sample(count // 2 if QUICK else count, "sobol"))
    )

# %% [markdown]
# Adam, then L-BFGS; the history keeps each equation's loss.
# 先 Adam,再 L-BFGS;训练历史记录每个方程的损失。

# %%
history = train(terms, Adam(net, lr=2e-3), 200 if QUICK else 3000, progress=False)
result = lbfgs(terms, net, max_iterations=100 if QUICK else 6000, progress=False)
print(f"Adam: {history.stopped}; L-BFGS: {result.iterations} iterations ({result.message})")
for name in ("momentum x", "momentum y", "mass"):
    print(f"  {name:<11} {history.terms[name][0]:.2e} -> {result.terms[name][-1]:.2e}")
print(f"total loss {history[0]:.3e} -> {result.history[-1]:.3e}")
assert result.history[-1] < (0.3 if QUICK else 1e-3) * history[0]

# %% [markdown]
# Each field's relative L2 error on a 101 x 101 grid, against the exact solution.
# 在 101 x 101 网格上,每个场相对精确解的相对 L2 误差。

# %%
errors = problem.field_errors(predict(net, problem.grid()))
print(
    "relative L2: " + ", ".join(f"{k} {e:.2e}" for k, e in errors.items()),
    f"({time.perf_counter() - started:.0f} s)",
)
if not QUICK:
    assert errors["u"] < 1e-3 and errors["v"] < 3e-3 and errors["p"] < 3e-3
