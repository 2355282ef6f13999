"""Reference problems with exact solutions: what a PINN's error is measured against.

Each problem gives its domain, its PDE residual and boundary/initial conditions as functions
of a network ``u`` (written with symgrad ops, so derivatives are closed form), its exact
solution as NumPy, the standard evaluation grid and ``relative_l2(prediction)`` on it.

- :class:`Burgers`: u_t + u u_x = nu u_xx on [-1, 1] x [0, 1], u(x, 0) = -sin(pi x),
  u(+-1, t) = 0, nu = 0.01/pi (Raissi et al. 2019); exact by the Cole-Hopf transform,
  integrated by the trapezoidal rule on 2001 nodes (spectrally accurate here: 16001 nodes change
  nothing to 1e-12), and it reproduces Basdevant et al.'s steepest slope -152.00516 at t = 1.6037/pi.
- :class:`Poisson2D`: -lap u = 2 pi^2 sin(pi x) sin(pi y) on [0, 1]^2, u = 0 on the boundary.
- :class:`PoissonND`: -lap u = (pi^2 / 4) sum sin(pi x_i / 2) on [0, 1]^d, u = its exact value
  sum sin(pi x_i / 2) on the boundary.
- :class:`Heat`: u_t = alpha u_xx on [0, 1] x [0, 1], u = exp(-alpha pi^2 t) sin(pi x).
- :class:`KdV`: u_t + 6 u u_x + u_xxx = 0 (third derivative), the soliton
  u = (c/2) sech^2(sqrt(c)/2 (x - c t - x0)) on [-10, 10] x [0, 1], its values as conditions.
- :class:`Kovasznay`: steady Navier-Stokes at Re = 20 on [-0.5, 1] x [-0.5, 1.5], a system of three
  equations for (u, v, p) from one network of three outputs; Kovasznay's exact solution (1948).
- :class:`AllenCahn`: u_t - 1e-4 u_xx + 5 u^3 - 5 u = 0 on [-1, 1] x [0, 1], periodic in x,
  u(x, 0) = x^2 cos(pi x) (Raissi et al. 2019; Wang et al. 2023's hard benchmark); the reference
  is a Fourier pseudo-spectral solution by ETDRK4 (Kassam & Trefethen 2005), 2048 modes, step 2e-4.
- :class:`Beam`: the Euler-Bernoulli cantilever u_xxxx = -1 on [0, 1] (fourth derivative),
  u(0) = u_x(0) = 0, u_xx(1) = u_xxx(1) = 0; exact u = -x^4/24 + x^3/6 - x^2/4.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from symgrad import ops
from symgrad.autodiff.api import grad, laplacian
from symgrad.autodiff.taylor import derivatives
from symgrad.pinn.conditions import Condition, dirichlet, periodic
from symgrad.pinn.geometry import Box, Interval, SpaceTime


class Problem:
    """Base class: ``inputs`` names, ``geometry``, ``pde(u)``, ``conditions(u)``, ``exact``, ``grid``."""

    inputs: tuple[str, ...] = ()
    geometry: Box | SpaceTime
    exact: Callable[..., np.ndarray]  # the exact solution, one array per input (a method of each problem)

    def pde(self, u: Callable) -> Callable:
        raise NotImplementedError

    def conditions(self, u: Callable) -> list[Condition]:
        raise NotImplementedError

    def grid(self) -> tuple[np.ndarray, ...]:
        """The standard evaluation grid, one array per input (from ``np.meshgrid(..., indexing="ij")``)."""
        raise NotImplementedError

    def relative_l2(self, prediction: np.ndarray) -> float:
        """||prediction - exact||_2 / ||exact||_2 on :meth:`grid`."""
        exact = self.exact(*self.grid())
        prediction = np.asarray(prediction, np.float64)
        if prediction.shape != exact.shape:
            raise ValueError(f"relative_l2: prediction has shape {prediction.shape}, the grid {exact.shape}")
        return float(np.linalg.norm(prediction - exact) / np.linalg.norm(exact))


class Burgers(Problem):
    """Viscous Burgers, Raissi's setup; ``grid()`` is x = linspace(-1, 1, 256), t = linspace(0, 0.99, 100)."""

    inputs = ("x", "t")
    geometry: SpaceTime

    def __init__(self, nu: float = 0.01 / np.pi, nodes: int = 2001):
        self.nu, self.nodes = nu, nodes
        self.geometry = SpaceTime(Interval(-1.0, 1.0), 0.0, 1.0)

    def pde(self, u):
        nu = self.nu

        def residual(x, t):
            u_x = grad(u, 0)
            return grad(u, 1)(x, t) + u(x, t) * u_x(x, t) - nu * grad(u_x, 0)(x, t)

        return residual

    def conditions(self, u):
        return [
            Condition(
                "initial", lambda x, t: u(x, t) + ops.sin(np.pi * x), self.geometry.initial, self.inputs
            ),
            Condition("boundary", lambda x, t: u(x, t), self.geometry.boundary, self.inputs),
        ]

    def exact(self, x, t):
        """Cole-Hopf: u = -int sin(pi(x - s)) f(x - s) G(s) ds / int f(x - s) G(s) ds, G the heat kernel."""
        x, t = np.broadcast_arrays(np.asarray(x, float), np.asarray(t, float))
        out = -np.sin(np.pi * x)  # t = 0
        z = np.linspace(-10.0, 10.0, self.nodes)  # s = sqrt(4 nu t) z; exp(-z^2) < 4e-44 beyond
        later = t > 0
        xs, ts = x[later].ravel(), t[later].ravel()
        values = np.empty_like(xs)
        for start in range(0, xs.size, 512):  # blocks of points keep the (points, nodes) arrays small
            xb, tb = xs[start : start + 512, None], ts[start : start + 512, None]
            y = xb - np.sqrt(4 * self.nu * tb) * z
            exponent = -np.cos(np.pi * y) / (2 * np.pi * self.nu) - z**2
            weight = np.exp(exponent - exponent.max(axis=1, keepdims=True))
            values[start : start + 512] = -np.sum(np.sin(np.pi * y) * weight, axis=1) / np.sum(weight, axis=1)
        out[later] = values
        return out

    def grid(self):
        return tuple(np.meshgrid(np.linspace(-1, 1, 256), np.linspace(0, 0.99, 100), indexing="ij"))


class Poisson2D(Problem):
    """-lap u = 2 pi^2 sin(pi x) sin(pi y) on the unit square, u = 0 on its boundary."""

    inputs = ("x", "y")

    def __init__(self):
        self.geometry = Box([0.0, 0.0], [1.0, 1.0])

    def pde(self, u):
        return lambda x, y: (
            -laplacian(u, (0, 1))(x, y) - 2 * np.pi**2 * ops.sin(np.pi * x) * ops.sin(np.pi * y)
        )

    def conditions(self, u):
        return [Condition("boundary", lambda x, y: u(x, y), self.geometry.boundary, self.inputs)]

    def exact(self, x, y):
        return np.sin(np.pi * x) * np.sin(np.pi * y)

    def grid(self):
        g = np.linspace(0, 1, 101)
        return tuple(np.meshgrid(g, g, indexing="ij"))


class PoissonND(Problem):
    """-lap u = (pi^2/4) sum_i sin(pi x_i / 2) on [0, 1]^d; exact u = sum_i sin(pi x_i / 2)."""

    def __init__(self, dim: int = 5, grid_points: int = 4096):
        self.dim, self.grid_points = dim, grid_points
        self.inputs = tuple(f"x{i}" for i in range(dim))
        self.geometry = Box([0.0] * dim, [1.0] * dim)

    def pde(self, u):
        def residual(*xs):
            source = sum(ops.sin(np.pi / 2 * x) for x in xs) * (np.pi**2 / 4)
            return -laplacian(u, tuple(range(self.dim)))(*xs) - source

        return residual

    def conditions(self, u):
        def boundary(*xs):
            return u(*xs) - sum(ops.sin(np.pi / 2 * x) for x in xs)

        return [Condition("boundary", boundary, self.geometry.boundary, self.inputs)]

    def exact(self, *xs):
        return sum(np.sin(np.pi / 2 * np.asarray(x)) for x in xs)

    def grid(self):
        """A fixed Sobol'-free random set of points (a full grid is too large in d dimensions)."""
        return tuple(self.geometry.interior(self.grid_points, "uniform", seed=12345))


class Heat(Problem):
    """u_t = alpha u_xx on [0, 1] x [0, 1], u(x, 0) = sin(pi x), u(0, t) = u(1, t) = 0."""

    inputs = ("x", "t")
    geometry: SpaceTime

    def __init__(self, alpha: float = 0.1):
        self.alpha = alpha
        self.geometry = SpaceTime(Interval(0.0, 1.0), 0.0, 1.0)

    def pde(self, u):
        return lambda x, t: grad(u, 1)(x, t) - self.alpha * grad(grad(u, 0), 0)(x, t)

    def conditions(self, u):
        return [
            Condition(
                "initial", lambda x, t: u(x, t) - ops.sin(np.pi * x), self.geometry.initial, self.inputs
            ),
            Condition("boundary", lambda x, t: u(x, t), self.geometry.boundary, self.inputs),
        ]

    def exact(self, x, t):
        return np.exp(-self.alpha * np.pi**2 * np.asarray(t)) * np.sin(np.pi * np.asarray(x))

    def grid(self):
        return tuple(np.meshgrid(np.linspace(0, 1, 101), np.linspace(0, 1, 101), indexing="ij"))


@functools.lru_cache(maxsize=4)
def allen_cahn_reference(
    modes: int = 2048, step: float = 2e-4, every: int = 25, epsilon: float = 1e-4
) -> np.ndarray:
    """u(x_j, t_k) of u_t = epsilon u_xx + 5 u - 5 u^3, periodic on [-1, 1), u(x, 0) = x^2 cos(pi x):
    x_j = -1 + 2 j / modes, t_k = k * step * every up to 1 (rows: x, columns: t).

    ETDRK4 (Kassam & Trefethen 2005): the stiff linear part exactly, the cubic by a fourth-order
    exponential Runge-Kutta step, its phi-function coefficients by contour integrals (32 points).
    The initial state's slope jumps at x = +-1, so the modes converge algebraically there: 2048
    modes are within 9e-7 (relative L2 on the grid) of 8192, and halving the step changes 1e-11.
    """
    x = -1 + 2 * np.arange(modes) / modes
    k = np.pi * np.fft.fftfreq(modes, d=1.0 / modes)  # wavenumbers of period 2
    linear = -epsilon * k**2
    e, e2 = np.exp(step * linear), np.exp(step * linear / 2)
    roots = np.exp(1j * np.pi * (np.arange(1, 33) - 0.5) / 32)
    lr = step * linear[:, None] + roots[None, :]
    q = step * np.real(np.mean((np.exp(lr / 2) - 1) / lr, axis=1))
    f1 = step * np.real(np.mean((-4 - lr + np.exp(lr) * (4 - 3 * lr + lr**2)) / lr**3, axis=1))
    f2 = step * np.real(np.mean((2 + lr + np.exp(lr) * (-2 + lr)) / lr**3, axis=1))
    f3 = step * np.real(np.mean((-4 - 3 * lr - lr**2 + np.exp(lr) * (4 - lr)) / lr**3, axis=1))

    def cubic(v):
        u = np.real(np.fft.ifft(v))
        return np.fft.fft(5 * u - 5 * u**3)

    v = np.fft.fft(x**2 * np.cos(np.pi * x))
    steps = int(round(1.0 / step))
    columns = [np.real(np.fft.ifft(v))]
    for n in range(1, steps + 1):
        nv = cubic(v)
        a = e2 * v + q * nv
        na = cubic(a)
        b = e2 * v + q * na
        nb = cubic(b)
        c = e2 * a + q * (2 * nb - nv)
        v = e * v + nv * f1 + 2 * (na + nb) * f2 + cubic(c) * f3
        if n % every == 0:
            columns.append(np.real(np.fft.ifft(v)))
    return np.stack(columns, axis=1)


class AllenCahn(Problem):
    """The Allen-Cahn equation in Raissi's (and jaxpi's) setup; ``grid()`` is x = -1 + 2 j / 512,
    t = 0, 0.005, ..., 1 (the reference's own points: 512 x 201)."""

    inputs = ("x", "t")
    geometry: SpaceTime

    def __init__(self, epsilon: float = 1e-4):
        self.epsilon = epsilon
        self.geometry = SpaceTime(Interval(-1.0, 1.0), 0.0, 1.0)

    def pde(self, u):
        eps = self.epsilon

        def residual(x, t):
            value = u(x, t)
            return grad(u, 1)(x, t) - eps * grad(grad(u, 0), 0)(x, t) + 5 * value**3 - 5 * value

        return residual

    def conditions(self, u):
        return [
            Condition(
                "initial",
                lambda x, t: u(x, t) - x * x * ops.cos(np.pi * x),
                self.geometry.initial,
                self.inputs,
            ),
            periodic(u, self.geometry, axis=0, derivatives=1, inputs=self.inputs),
        ]

    def exact(self, x, t):
        """The reference at points of the reference grid (x = -1 + 2 j / 512, t a multiple of 0.005)."""
        table = allen_cahn_reference(epsilon=self.epsilon)[::4]  # every 4th of 2048 points: x = -1 + j/256
        x, t = np.broadcast_arrays(np.asarray(x, float), np.asarray(t, float))
        j, k = np.rint((x + 1) * 256).astype(int), np.rint(t * 200).astype(int)
        on_grid = np.allclose(x, -1 + j / 256, atol=1e-12) and np.allclose(t, k / 200, atol=1e-12)
        if not on_grid or j.min() < 0 or j.max() > 512 or k.min() < 0 or k.max() > 200:
            raise ValueError(
                "AllenCahn.exact: points must lie on the reference grid (x = -1 + j/256, t = k/200)"
            )
        return table[j % 512, k]  # x = 1 is x = -1 (periodic)

    def grid(self):
        return tuple(np.meshgrid(-1 + np.arange(512) / 256, np.arange(201) / 200, indexing="ij"))


class KdV(Problem):
    """The Korteweg-de Vries soliton of speed ``c`` starting at ``x0``."""

    inputs = ("x", "t")
    geometry: SpaceTime

    def __init__(self, c: float = 1.0, x0: float = -3.0):
        self.c, self.x0 = c, x0
        self.geometry = SpaceTime(Interval(-10.0, 10.0), 0.0, 1.0)

    def pde(self, u):
        along_x = derivatives(u, 0, order=3)  # u_x, u_xx, u_xxx by one Taylor sweep

        def residual(x, t):
            u_x, _, u_xxx = along_x(x, t)
            return grad(u, 1)(x, t) + 6 * u(x, t) * u_x + u_xxx

        return residual

    def exact_tensor(self, x, t):
        """The exact solution written with symgrad ops (for conditions and checks)."""
        s = np.sqrt(self.c) / 2 * (x - self.c * t - self.x0)
        return self.c / 2 / ops.square(ops.cosh(s))

    def conditions(self, u):
        exact = self.exact_tensor
        return [
            Condition("initial", lambda x, t: u(x, t) - exact(x, t), self.geometry.initial, self.inputs),
            Condition("boundary", lambda x, t: u(x, t) - exact(x, t), self.geometry.boundary, self.inputs),
        ]

    def exact(self, x, t):
        s = np.sqrt(self.c) / 2 * (np.asarray(x) - self.c * np.asarray(t) - self.x0)
        return self.c / 2 / np.cosh(s) ** 2

    def grid(self):
        return tuple(np.meshgrid(np.linspace(-10, 10, 201), np.linspace(0, 1, 51), indexing="ij"))


class Kovasznay(Problem):
    """Kovasznay flow: u u_x + v u_y + p_x - nu lap u = 0, u v_x + v v_y + p_y - nu lap v = 0,
    u_x + v_y = 0, nu = 1/Re; ``pde(net)`` takes a network of three outputs (u, v, p)."""

    inputs = ("x", "y")
    geometry: Box
    fields = ("u", "v", "p")

    def __init__(self, reynolds: float = 20.0):
        self.nu = 1 / reynolds
        self.lam = 1 / (2 * self.nu) - np.sqrt(1 / (4 * self.nu**2) + 4 * np.pi**2)
        self.geometry = Box([-0.5, -0.5], [1.0, 1.5])

    def pde(self, net):
        u, v, p = (net.output(k) for k in range(3))
        nu = self.nu

        def residual(x, y):
            u_x, u_y, v_x, v_y = grad(u, 0)(x, y), grad(u, 1)(x, y), grad(v, 0)(x, y), grad(v, 1)(x, y)
            U, V = u(x, y), v(x, y)
            return (
                U * u_x + V * u_y + grad(p, 0)(x, y) - nu * laplacian(u, (0, 1))(x, y),
                U * v_x + V * v_y + grad(p, 1)(x, y) - nu * laplacian(v, (0, 1))(x, y),
                u_x + v_y,
            )

        return residual

    def exact_tensor(self, k: int) -> Callable:
        """Field k (0: u, 1: v, 2: p) of the exact solution, written with symgrad ops."""
        lam = self.lam
        return [
            lambda x, y: 1 - ops.exp(lam * x) * ops.cos(2 * np.pi * y),
            lambda x, y: lam / (2 * np.pi) * ops.exp(lam * x) * ops.sin(2 * np.pi * y),
            lambda x, y: 0.5 * (1 - ops.exp(2 * lam * x)),
        ][k]

    def conditions(self, net):
        """u and v on the whole boundary, p on the outflow (x = 1), where the pressure is fixed."""
        return [
            dirichlet(net.output(0), self.geometry, self.exact_tensor(0), name="u wall"),
            dirichlet(net.output(1), self.geometry, self.exact_tensor(1), name="v wall"),
            dirichlet(
                net.output(2),
                self.geometry,
                self.exact_tensor(2),
                on=self.geometry.face(0, "high"),
                name="p outflow",
            ),
        ]

    def exact(self, x, y):
        """u, v and p stacked: shape (3, *x.shape)."""
        e = np.exp(self.lam * np.asarray(x))
        y = np.asarray(y)
        return np.stack(
            [
                1 - e * np.cos(2 * np.pi * y),
                self.lam / (2 * np.pi) * e * np.sin(2 * np.pi * y),
                0.5 * (1 - e * e),
            ]
        )

    def relative_l2(self, prediction) -> float:
        """The largest of the three fields' relative L2 errors (see :meth:`field_errors`)."""
        return max(self.field_errors(prediction).values())

    def field_errors(self, prediction) -> dict[str, float]:
        """Each field's relative L2 error on :meth:`grid` (prediction: the three fields, as ``predict`` gives)."""
        exact = self.exact(*self.grid())
        prediction = np.asarray(prediction, np.float64)
        if prediction.shape != exact.shape:
            raise ValueError(
                f"field_errors: prediction has shape {prediction.shape}, the grid's fields {exact.shape}"
            )
        return {
            f: float(np.linalg.norm(a - b) / np.linalg.norm(b))
            for f, a, b in zip(self.fields, prediction, exact)
        }

    def grid(self):
        return tuple(np.meshgrid(np.linspace(-0.5, 1.0, 101), np.linspace(-0.5, 1.5, 101), indexing="ij"))


class Beam(Problem):
    """The Euler-Bernoulli cantilever under a uniform load (DeepXDE's example)."""

    inputs = ("x",)

    def __init__(self):
        self.geometry = Interval(0.0, 1.0)

    def pde(self, u):
        along_x = derivatives(u, 0, order=4)
        return lambda x: along_x(x)[3] + 1

    def conditions(self, u):
        d1 = grad(u)
        d2 = grad(d1)
        d3 = grad(d2)

        def at(value):
            return lambda n, method="uniform", seed=0: np.full((1, n), value)

        return [
            Condition("clamped value", lambda x: u(x), at(0.0), self.inputs),
            Condition("clamped slope", lambda x: d1(x), at(0.0), self.inputs),
            Condition("free moment", lambda x: d2(x), at(1.0), self.inputs),
            Condition("free shear", lambda x: d3(x), at(1.0), self.inputs),
        ]

    def exact(self, x):
        x = np.asarray(x)
        return -(x**4) / 24 + x**3 / 6 - x**2 / 4

    def grid(self):
        return (np.linspace(0, 1, 101),)


__all__ = ["Beam", "Burgers", "Condition", "Heat", "KdV", "Kovasznay", "Poisson2D", "PoissonND", "Problem"]
