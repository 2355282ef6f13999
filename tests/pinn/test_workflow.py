"""The PINN workflow: loss kernels against PyTorch, the Laplacian, Adam, checkpoints, plots."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import symgrad
from symgrad import ops
from symgrad.models import PointMLP
from symgrad.pinn import Adam, ResidualLoss, laplacian, load_checkpoint, plot_solution, save_checkpoint, train

NU = 0.01 / np.pi


def burgers(net):
    u = net
    u_x, u_t = ops.grad(u, 0), ops.grad(u, 1)
    u_xx = ops.grad(u_x, 0)
    return lambda x, t: u_t(x, t) + u(x, t) * u_x(x, t) - NU * u_xx(x, t)


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="PyTorch is not installed")
def test_loss_and_weight_gradients_match_pytorch_autograd(rng):
    import torch

    net = PointMLP([2, 8, 8, 1], seed=3)
    loss_kernel = ResidualLoss(burgers(net), ("x", "t"), net.params)
    x, t = rng.uniform(-1, 1, 50), rng.uniform(0, 1, 50)
    loss, grads = loss_kernel(x, t)

    weights = [torch.tensor(p.asnumpy(), requires_grad=True) for p in net.params]
    xt, tt = torch.tensor(x, requires_grad=True), torch.tensor(t, requires_grad=True)
    a = torch.stack([xt, tt], dim=1)
    for k in range(0, len(weights) - 2, 2):
        a = torch.tanh(a @ weights[k] + weights[k + 1])
    u = (a @ weights[-2] + weights[-1])[:, 0]
    (u_x, u_t) = torch.autograd.grad(u.sum(), (xt, tt), create_graph=True)
    (u_xx,) = torch.autograd.grad(u_x.sum(), xt, create_graph=True)
    torch_loss = torch.mean((u_t + u * u_x - NU * u_xx) ** 2)
    torch_grads = torch.autograd.grad(torch_loss, weights)
    assert np.isclose(loss, torch_loss.item(), rtol=1e-12)
    for g, tg in zip(grads, torch_grads):
        np.testing.assert_allclose(g, tg.numpy(), rtol=1e-9, atol=1e-14)


def test_reduced_kernel_equals_the_mean_of_per_point_values(rng):
    net = PointMLP([2, 4, 1], seed=1)
    x, t = symgrad.placeholder("x"), symgrad.placeholder("t")
    residual = burgers(net)
    per_point = ops.grad(lambda x, t: residual(x, t) ** 2, None, weights=net.params)(x, t)
    pts = rng.uniform(-1, 1, (2, 7, 3))  # any batch shape
    weights = [p.asnumpy() for p in net.params]
    full = symgrad.kernel(list(per_point), [x, t, *net.params])(*pts, *weights)
    mean = symgrad.kernel(list(per_point), [x, t, *net.params], reduce="mean")(*pts, *weights)
    summed = symgrad.kernel(list(per_point), [x, t, *net.params], reduce="sum")(*pts, *weights)
    for f, m, s in zip(full, mean, summed):
        np.testing.assert_allclose(m, f.mean(axis=(0, 1)), rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(s, f.sum(axis=(0, 1)), rtol=1e-12, atol=1e-15)
    assert "rt.batch_outer" in symgrad.kernel(list(per_point), [x, t, *net.params], reduce="mean").source


def test_laplacian_is_the_trace_of_the_hessian():
    def f(x, y):
        return ops.sin(x * y) + x**3 * ops.exp(y)

    a, b = symgrad.Tensor(np.array(0.3)), symgrad.Tensor(np.array(-0.7))
    lap = laplacian(f, (0, 1))(a, b).asnumpy()
    x, y = 0.3, -0.7
    expected = -(y**2 + x**2) * np.sin(x * y) + 6 * x * np.exp(y) + x**3 * np.exp(y)
    assert np.isclose(lap, expected)

    def g(v):
        return (v**3).sum() * v[0]

    v = symgrad.Tensor(np.array([0.5, -1.0, 2.0]))
    hess = ops.hessian(g)(v).asnumpy()
    assert np.isclose(laplacian(g)(v).asnumpy(), np.trace(hess))


def test_adam_matches_the_reference_update():
    p = symgrad.Parameter(symgrad.Tensor(np.array([1.0, -2.0])), name="p")
    opt = Adam([p], lr=0.1)
    m = v = np.zeros(2)
    w = np.array([1.0, -2.0])
    for step in range(1, 4):
        g = 2 * w  # gradient of |w|^2
        opt.step([g])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - 0.1 * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        np.testing.assert_allclose(p.asnumpy(), w, rtol=1e-15)
    with pytest.raises(ValueError, match="gradient of 'p' has shape"):
        opt.step([np.zeros(3)])


def test_training_lowers_the_loss_and_checkpoints_resume_exactly(tmp_path, rng):
    net = PointMLP([2, 6, 1], seed=2)
    loss = ResidualLoss(lambda x, y: net(x, y) - ops.sin(3 * x) * y, ("x", "y"), net.params)
    # bit-exact resumption needs one kernel throughout: with backend="auto" the C kernel may take
    # over from NumPy at any step (they agree to ~1e-15, not bit for bit)
    loss.wait_until_compiled()
    points = list(rng.uniform(-1, 1, (2, 64)))
    opt = Adam(net.params, lr=1e-2)
    history = train([(loss, points)], opt, steps=80, progress=False)
    assert history[-1] < 0.5 * history[0]
    path = save_checkpoint(tmp_path / "ckpt.npz", net.params, opt)
    ahead = train([(loss, points)], opt, steps=5, progress=False)
    after = [p.asnumpy() for p in net.params]
    for p in net.params:
        p.set_data(np.zeros(p.shape))
    load_checkpoint(path, net.params, opt)
    again = train([(loss, points)], opt, steps=5, progress=False)
    assert again == ahead
    for p, a in zip(net.params, after):
        assert np.array_equal(p.asnumpy(), a)


def test_plot_is_written(tmp_path):
    pytest.importorskip("matplotlib", reason="matplotlib is not installed")
    g = np.linspace(0, 1, 11)
    X, Y = np.meshgrid(g, g)
    path = plot_solution(tmp_path / "u.png", X, Y, X * Y, X * Y + 0.01)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_dense_sequential_cell_trains_as_a_pinn(rng):
    """The MindSpore way of writing the network works in the PINN workflow too."""
    symgrad.nn.set_seed(0)
    net = symgrad.nn.SequentialCell(
        [
            symgrad.nn.Dense(2, 8, activation="tanh"),
            symgrad.nn.Dense(8, 8, activation="tanh"),
            symgrad.nn.Dense(8, 1),
        ]
    )

    def u(x, y):
        return net(ops.stack([x, y]))[0]

    def pde(x, y):
        return laplacian(u, (0, 1))(x, y) + 1.0

    loss = ResidualLoss(pde, ("x", "y"), net.trainable_params())
    history = train(
        [(loss, list(rng.uniform(0, 1, (2, 128))))],
        Adam(net.trainable_params(), lr=1e-2),
        steps=40,
        progress=False,
    )
    assert history[-1] < 0.5 * history[0]
