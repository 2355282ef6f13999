"""Boundary, initial and data conditions as loss terms: Dirichlet, Neumann, Robin, periodic, initial,
observations.

Each builder returns a :class:`Condition`: a residual of named inputs, a sampler of its points,
and ``loss(params)`` to make it a :class:`ResidualLoss`. Normal derivatives use the geometry's outward
normals, passed to the residual as extra per-point inputs (``n_x``, ``n_y``, ...). ``u`` is the
solution as a function of the coordinates (``net``, or ``net.output(k)`` for one field of a system);
``value`` is a number or a function of the coordinates written with ``symgrad.ops``.

    wall = neumann(net, square, value=0.0, on=square.face(0, "high"))
    terms = [(pde_loss, inside), (wall.loss(net, weight=10.0), wall.sample(400))]
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from symgrad.autodiff.api import grad

DEFAULT_NAMES = {1: ("x",), 2: ("x", "y"), 3: ("x", "y", "z")}


@dataclass
class Condition:
    """One loss term: its residual as a function of the inputs, where its points come from, and the
    inputs' names (coordinates, then any per-point data such as normals or observed values)."""

    name: str
    residual: Callable
    sample: Callable[..., np.ndarray]  # (n, method, seed) -> points (len(inputs), n)
    inputs: tuple[str, ...] = ()
    observes: bool = False  # observed values (``observations``), which ``solve`` fits first

    def loss(self, params, weight: float | Sequence[float] = 1.0, backend: str = "auto"):
        """This condition as a :class:`ResidualLoss` over ``params`` (Parameters or a network)."""
        from symgrad.pinn.residual_loss import ResidualLoss

        names = self.inputs or _parameter_names(self.residual)
        if not names:
            raise ValueError(f"condition {self.name!r} has no input names; build it with inputs=(...)")
        loss = ResidualLoss(self.residual, names, params, weight=weight, backend=backend, name=self.name)
        loss.observes = self.observes
        return loss


def _parameter_names(fn: Callable) -> tuple[str, ...]:
    """The positional parameter names of ``fn`` (none when it takes ``*args`` or has no signature)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return ()
    if any(p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
        return ()
    return tuple(p.name for p in params)


def coordinate_names(geometry, inputs: Sequence[str] | None) -> tuple[str, ...]:
    """The coordinates' names: as given, or x, y, z (then t on a space-time domain)."""
    dim = getattr(geometry, "dim", None)
    if not isinstance(dim, int) or not hasattr(geometry, "boundary"):
        raise TypeError(
            f"expected a geometry (Interval, Rectangle, Box, Disk, SpaceTime, or one with dim and boundary()), "
            f"got {type(geometry).__name__}"
        )
    if inputs is not None:
        names = tuple(inputs)
        if len(names) != dim:
            raise ValueError(f"inputs names {dim} coordinates for a {dim}-D geometry, got {names}")
        return names
    if hasattr(geometry, "t0") and dim == 1:  # a TimeDomain: an ODE's one coordinate
        return ("t",)
    space = getattr(geometry, "space", None)
    if space is not None and space.dim in DEFAULT_NAMES:
        return (*DEFAULT_NAMES[space.dim], "t")
    if dim not in DEFAULT_NAMES:
        raise ValueError(f"a {dim}-D geometry: name its coordinates with inputs=(...)")
    return DEFAULT_NAMES[dim]


def _value(value, xs) -> object:
    return value(*xs) if callable(value) else value


def boundary_points(geometry, n: int, method: str, seed: int | None, on: Callable | None) -> np.ndarray:
    """``n`` points on the boundary, only where ``on(*coords)`` is true when given (drawn in rounds;
    ``n`` of the points kept are chosen at random, not the first ``n``: a geometry may list its
    boundary's pieces one after another, and the first points then miss the last pieces)."""
    if on is None:
        return geometry.boundary(n, method, seed)
    kept: list[np.ndarray] = []
    count, draw = 0, max(4 * n, 64)
    for round_ in range(12):
        candidates = geometry.boundary(draw, method, None if seed is None else seed + 7919 * round_)
        chosen = candidates[:, np.asarray(on(*candidates), bool)]
        kept.append(chosen)
        count += chosen.shape[1]
        if count >= n:
            picked = np.random.default_rng(seed).choice(count, n, replace=False)
            return np.hstack(kept)[:, picked]
        draw *= 2
    raise ValueError(
        f"the boundary part selected by on= holds {count} of the points drawn; is it empty, or of zero "
        "measure (a corner)? Build such points yourself"
    )


def _normal_sampler(geometry, on) -> Callable[..., np.ndarray]:
    if not hasattr(geometry, "normals"):
        raise TypeError(
            f"{type(geometry).__name__} gives no outward normals (a normals(points) method), which Neumann and "
            "Robin conditions need"
        )

    def sample(n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        points = boundary_points(geometry, n, method, seed, on)
        return np.vstack([points, geometry.normals(points)])

    return sample


def _normal_derivative(u: Callable, dim: int) -> Callable:
    """(*coords, *normal) -> n . grad u."""
    partials = [grad(u, i) for i in range(dim)]

    def derivative(*args):
        xs, ns = args[:dim], args[dim:]
        terms = [n * d(*xs) for n, d in zip(ns, partials)]
        return sum(terms[1:], terms[0])

    return derivative


def dirichlet(
    u: Callable, geometry, value=0.0, on: Callable | None = None, inputs=None, name: str = "dirichlet"
) -> Condition:
    """u = value on the boundary (or on the part where ``on(*coords)`` is true)."""
    names = coordinate_names(geometry, inputs)
    return Condition(
        name,
        lambda *xs: u(*xs) - _value(value, xs),
        lambda n, method="uniform", seed=0: boundary_points(geometry, n, method, seed, on),
        names,
    )


def neumann(
    u: Callable, geometry, value=0.0, on: Callable | None = None, inputs=None, name: str = "neumann"
) -> Condition:
    """du/dn = value: the outward normal derivative. Inputs: the coordinates, then ``n_<name>`` for each."""
    names = coordinate_names(geometry, inputs)
    dim, derivative = len(names), _normal_derivative(u, len(names))
    return Condition(
        name,
        lambda *args: derivative(*args) - _value(value, args[:dim]),
        _normal_sampler(geometry, on),
        (*names, *(f"n_{c}" for c in names)),
    )


def robin(
    u: Callable,
    geometry,
    a: float | Callable,
    b: float | Callable,
    value=0.0,
    on: Callable | None = None,
    inputs=None,
    name: str = "robin",
) -> Condition:
    """a u + b du/dn = value (a and b numbers or functions of the coordinates)."""
    names = coordinate_names(geometry, inputs)
    dim, derivative = len(names), _normal_derivative(u, len(names))

    def residual(*args):
        xs = args[:dim]
        return _value(a, xs) * u(*xs) + _value(b, xs) * derivative(*args) - _value(value, xs)

    return Condition(name, residual, _normal_sampler(geometry, on), (*names, *(f"n_{c}" for c in names)))


def periodic(
    u: Callable, geometry, axis: int, derivatives: int = 1, inputs=None, name: str = "periodic"
) -> Condition:
    """u (and its first ``derivatives`` derivatives along ``axis``) equal on the two faces of a box
    normal to ``axis``. The points are pairs: the coordinates on the low face, then their twins
    (``<name>_p``) on the high face. With several components (u, u_axis, ...), each is a term."""
    box = getattr(geometry, "space", geometry)
    names = coordinate_names(geometry, inputs)
    dim = len(names)
    if not hasattr(box, "lows") or not 0 <= axis < box.dim:
        raise ValueError(
            f"periodic: needs a box (or space-time over a box) and an axis in 0..{getattr(box, 'dim', 1) - 1}"
        )
    if not isinstance(derivatives, int) or derivatives < 0:
        raise ValueError(f"periodic: derivatives must be a whole number >= 0, got {derivatives!r}")
    fields = [u]
    for _ in range(derivatives):
        fields.append(grad(fields[-1], axis))

    def residual(*args):
        a, b = args[:dim], args[dim:]
        parts = tuple(f(*a) - f(*b) for f in fields)
        return parts[0] if len(parts) == 1 else parts

    def sample(n: int, method: str = "uniform", seed: int | None = 0) -> np.ndarray:
        low = geometry.interior(n, method, seed)
        low[axis] = box.lows[axis]
        high = low.copy()
        high[axis] = box.highs[axis]
        return np.vstack([low, high])

    return Condition(name, residual, sample, (*names, *(f"{c}_p" for c in names)))


def initial(
    u: Callable, geometry, value=0.0, inputs=None, name: str = "initial", derivative: int = 0
) -> Condition:
    """u = value at t = t0 on a space-time domain or a :class:`TimeDomain` (an ODE), value a number
    or a function of the coordinates (t included). With ``derivative=k``, the k-th time derivative
    is set instead (u_t(x, t0) = value for a wave equation's initial velocity). Time is the last
    coordinate. For several fields of an ODE system, one condition per field (``net.output(k)``)."""
    if not hasattr(geometry, "initial"):
        raise TypeError(
            f"initial: needs a SpaceTime domain or a TimeDomain (an ODE's time), got {type(geometry).__name__}"
        )
    if isinstance(derivative, bool) or not isinstance(derivative, int) or derivative < 0:
        raise ValueError(f"initial: derivative must be a whole number >= 0, got {derivative!r}")
    names = coordinate_names(geometry, inputs)
    field = u
    for _ in range(derivative):
        field = grad(field, len(names) - 1)
    return Condition(name, lambda *xs: field(*xs) - _value(value, xs), geometry.initial, names)


def observations(
    u: Callable,
    points,
    values,
    inputs: Sequence[str],
    name: str = "data",
    outputs: Sequence[int] | None = None,
) -> Condition:
    """u = the observed ``values`` at ``points`` (dim, n): a data term (inverse problems, assimilation).

    ``values`` is (n,) for one output, or (k, n) for k outputs: then ``u`` returns a tuple (a
    network of several outputs) and ``outputs`` says which of them are observed (default: the first
    k); each observed output is a component of the term. The sampler returns the observations
    whatever count is asked; the last inputs are ``<name>_obs`` (one per observed output)."""
    points, values = np.asarray(points, float), np.asarray(values, float)
    names = tuple(inputs)
    if points.ndim == 1 and len(names) == 1:
        points = points[None, :]
    n = points.shape[1] if points.ndim == 2 else -1
    if (
        points.ndim != 2
        or points.shape[0] != len(names)
        or values.ndim not in (1, 2)
        or values.shape[-1] != n
    ):
        raise ValueError(
            f"observations {name!r}: points must be ({len(names)}, n) and values (n,) or (outputs, n), got "
            f"{points.shape} and {values.shape}"
        )
    if not (np.isfinite(points).all() and np.isfinite(values).all()):
        raise ValueError(f"observations {name!r}: points and values must be finite")
    dim, several = len(names), values.ndim == 2
    rows = values if several else values[None, :]
    picked = list(range(len(rows))) if outputs is None else list(outputs)
    if len(picked) != len(rows) or any(
        isinstance(k, bool) or not isinstance(k, int) or k < 0 for k in picked
    ):
        raise ValueError(
            f"observations {name!r}: outputs must name one output (a whole number >= 0) per row of values "
            f"({len(rows)}), got {outputs!r}"
        )
    data = np.vstack([points, rows])

    def residual(*args):
        if not several:
            return u(*args[:dim]) - args[dim]
        fields = u(*args[:dim])
        if not isinstance(fields, tuple | list) or max(picked) >= len(fields):
            count = len(fields) if isinstance(fields, tuple | list) else 1
            raise ValueError(
                f"observations {name!r}: {len(rows)} rows of values for outputs {picked}, but u gives {count} output(s)"
            )
        return tuple(fields[k] - args[dim + i] for i, k in enumerate(picked))

    observed = [f"{name}_obs"] if not several else [f"{name}_obs{k}" for k in picked]
    return Condition(
        name, residual, lambda n=0, method="uniform", seed=0: data, (*names, *observed), observes=True
    )


__all__ = ["Condition", "dirichlet", "initial", "neumann", "observations", "periodic", "robin"]
