"""Training loops' shared parts: summing loss terms, the non-finite guard, stops, callbacks, Adam ``train``.

Every loss term is a callable ``term(*points) -> (loss, gradients)`` (a :class:`ResidualLoss`) paired
with its points. A step whose loss or gradient is not finite stops training with a
:class:`NonFiniteLoss` that names the term, the step and (where they are to blame) the points or
the weight, after putting the weights back where the loss was last finite.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from symgrad.parameter import Parameter
from symgrad.pinn.adam import Adam
from symgrad.pinn.alignment import aligned, check_terms, optimized_parameters, term_parameters
from symgrad.pinn.threads import one_pool


class NonFiniteLoss(FloatingPointError):
    """A loss or gradient became NaN or infinite; the message names the term, the step and the cause."""


class History(list):
    """What every training loop returns: the loss per step (a list), each term's loss per step in
    ``terms``, why training stopped in ``stopped`` (also ``message``), the wall time in ``seconds``;
    with loss balancing each term's weight at each rebalance in ``weights``; the iterations (or
    steps) tried in ``iterations``, Levenberg-Marquardt's damping per step in ``damping`` and
    whether SciPy's L-BFGS-B converged in ``success``. ``history`` is the list itself."""

    def __init__(self, values=()):
        super().__init__(values)
        self.terms: dict[str, list[float]] = {}
        self.stopped = ""
        self.seconds = 0.0
        self.weights: list[tuple[int, list[float]]] = []  # (step, each term's weight) at each rebalance
        self.iterations = 0
        self.damping: list[float] = []
        self.success = False

    @property
    def history(self) -> History:
        """The loss per step (this list itself; the name :func:`lbfgs`'s result had)."""
        return self

    @property
    def message(self) -> str:
        """Why training stopped (``stopped``; the name the second-order loops' results had)."""
        return self.stopped

    @message.setter
    def message(self, text: str) -> None:
        self.stopped = text


class Clock:
    """One run's wall time against its ``max_seconds``, shared by a loop and its steps (a step
    that would not end in time is not begun)."""

    def __init__(self, max_seconds: float | None, now: Callable[[], float] = time.perf_counter):
        self.max_seconds, self.now = max_seconds, now
        self.started = now()

    def seconds(self) -> float:
        return self.now() - self.started

    def out_of_time(self, ahead: float = 0.0) -> bool:
        """Whether ``max_seconds`` has passed, or would have ``ahead`` seconds from now."""
        return self.max_seconds is not None and self.seconds() + ahead > self.max_seconds


@dataclass(frozen=True)
class Stop:
    """One stop rule for every training loop: after ``max_steps`` steps (iterations), after
    ``max_seconds`` of wall time (checked through a :class:`Clock` also inside an iteration), when
    the loss falls to ``loss_tol``, or when the largest gradient entry falls to ``grad_tol``."""

    max_steps: int | None = None
    max_seconds: float | None = None
    loss_tol: float | None = None
    grad_tol: float | None = None

    def checked(self, where: str, steps: str = "max_steps", least: int = 0) -> Stop:
        """This rule, after checking each limit (a ValueError names ``where`` and the argument,
        ``steps`` being the loop's own name for ``max_steps``)."""
        count = self.max_steps
        if count is not None and (isinstance(count, bool) or not isinstance(count, int) or count < least):
            raise ValueError(f"{where}: {steps} must be a whole number >= {least}, got {count!r}")
        for label in ("max_seconds", "loss_tol", "grad_tol"):
            value = getattr(self, label)
            if value is not None and not (
                isinstance(value, int | float)
                and not isinstance(value, bool)
                and math.isfinite(value)
                and value >= 0
            ):
                raise ValueError(f"{where}: {label} must be a finite number >= 0 or None, got {value!r}")
        return self

    def clock(self, now: Callable[[], float] = time.perf_counter) -> Clock:
        """A clock started now against ``max_seconds`` (``now`` reads the time)."""
        return Clock(self.max_seconds, now)

    def reason(
        self, step: int, loss: float, grads: Sequence[np.ndarray] | None = None, clock: Clock | None = None
    ) -> str:
        """Why to stop after ``step`` ("" to go on): ``loss_tol``, ``grad_tol`` (where ``grads`` are
        given), then ``max_seconds`` by ``clock``."""
        if self.loss_tol is not None and loss <= self.loss_tol:
            return f"loss {loss:.3e} <= loss_tol {self.loss_tol:g} at step {step}"
        if self.grad_tol is not None and grads is not None:
            largest = max((float(np.abs(g).max()) for g in grads if np.size(g)), default=0.0)
            if largest <= self.grad_tol:
                return f"largest gradient entry {largest:.3e} <= grad_tol {self.grad_tol:g} at step {step}"
        if clock is not None and self.max_seconds is not None and clock.seconds() >= self.max_seconds:
            return f"max_seconds={self.max_seconds} reached at step {step}"
        return ""


@dataclass
class TrainState:
    """What a callback sees: the step just taken (from 0), its loss and each term's, the gradients,
    the elapsed seconds, and ``losses``, the (term, points) pairs (assign ``losses[i] = (term, new)``
    to resample)."""

    step: int
    loss: float
    terms: dict[str, float]
    grads: list[np.ndarray]
    seconds: float
    losses: list = field(default_factory=list)


def every(k: int, fn: Callable[[TrainState], bool | None]) -> Callable[[TrainState], bool | None]:
    """``fn`` called after every ``k``-th step only (for validation, checkpoints, resampling).
    A callback that returns True stops training."""
    if not isinstance(k, int) or k < 1:
        raise ValueError(f"every: k must be a whole number >= 1, got {k!r}")

    def callback(state: TrainState):
        return fn(state) if (state.step + 1) % k == 0 else None

    callback.__name__ = f"every_{k}_{getattr(fn, '__name__', 'callback')}"
    return callback


def term_names(losses) -> list[str]:
    """Each loss term's component names, made distinct across terms ("residual", "residual#2")."""
    names: list[str] = []
    for i, (term, _) in enumerate(losses):
        for name in getattr(term, "term_names", [f"term{i}"]):
            unique, k = name, 2
            while unique in names:
                unique, k = f"{name}#{k}", k + 1
            names.append(unique)
    return names


def union_parameters(losses) -> list[Parameter]:
    """Every term's Parameters, each once, in order of first use (where a term names them)."""
    params: dict[int, Parameter] = {}
    for term, _ in losses:
        for p in term_parameters(term) or []:
            params.setdefault(id(p), p)
    return list(params.values())


def total_loss(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]], params: Sequence[Parameter] | None = None
) -> tuple[float, list[np.ndarray]]:
    """The sum of the loss terms (each called on its points) and the sum of their gradients, one per
    entry of ``params`` (default: every term's Parameters), each term's matched by Parameter identity."""
    if not losses:
        raise ValueError("no loss terms: pass (loss, points) pairs")
    params = union_parameters(losses) if params is None else list(params)
    total, grads = 0.0, None
    for term, points in losses:
        value, g = term(*points)
        g = aligned(params, term, g, "total_loss")
        total += value
        grads = g if grads is None else [a + b for a, b in zip(grads, g)]
    assert grads is not None  # there is at least one term
    return total, grads


def loss_value(losses: Sequence[tuple[Callable, Sequence[np.ndarray]]]) -> float:
    """The sum of the loss terms, each called on its points (their gradients unused)."""
    return sum(float(term(*points)[0]) for term, points in losses)


class _Weighted:
    """A loss term times a fixed weight (its value, gradient and component losses)."""

    def __init__(self, term: Callable, weight: float):
        self.term, self.weight = term, float(weight)
        self.term_names = getattr(term, "term_names", [getattr(term, "name", "term")])
        self.last_terms: list[float] = []

    @property
    def backend(self) -> str:
        return getattr(self.term, "backend", "?")

    @property
    def params(self) -> list[Parameter] | None:
        """The wrapped term's Parameters (what its gradients are for)."""
        return term_parameters(self.term)

    @property
    def name(self) -> str:
        return str(getattr(self.term, "name", "term"))

    @property
    def rows_per_point(self) -> int:
        return int(getattr(self.term, "rows_per_point", 1))

    @property
    def jacobian(self) -> Callable | None:
        """The wrapped term's scaled residuals and Jacobian times sqrt(weight) (for
        Levenberg-Marquardt; its keyword arguments, such as ``params``, passed on), or None where
        the term has none."""
        inner = getattr(self.term, "jacobian", None)
        if not callable(inner):
            return None
        scale = math.sqrt(self.weight)

        def weighted(*points, **options):
            r, jac = inner(*points, **options)
            return scale * r, scale * jac

        return weighted

    def __call__(self, *points):
        value, grads = self.term(*points)
        self.last_terms = [self.weight * v for v in getattr(self.term, "last_terms", None) or [value]]
        return self.weight * value, [self.weight * g for g in grads]


def weighted_terms(losses: Sequence[tuple[Callable, Sequence[np.ndarray]]], weights: Sequence[float]) -> list:
    """``losses`` with each term multiplied by its weight: to go on minimising the balanced sum after
    ``train(balance_every=...)``, ``lbfgs(weighted_terms(losses, history.weights[-1][1]), params)``."""
    losses = list(losses)
    if len(weights) != len(losses) or not all(math.isfinite(w) and w >= 0 for w in weights):
        raise ValueError(
            f"weighted_terms: need one finite weight >= 0 per term ({len(losses)}), got {list(weights)}"
        )
    return [(_Weighted(term, w), points) for (term, points), w in zip(losses, weights)]


def balanced_weights(weights: list[float], gradients: list[list[np.ndarray]], alpha: float) -> list[float]:
    """Each term's weight moved toward ``sum_j |g_j| / |g_i|`` (a term with no gradient keeps its weight)."""
    norms = [gradient_norm(term) for term in gradients]
    targets = norm_weights(norms)
    return [w if n == 0 else alpha * w + (1 - alpha) * t for w, n, t in zip(weights, norms, targets)]


def gradient_norm(grads: Sequence[np.ndarray]) -> float:
    """The Euclidean norm of a term's gradient, every Parameter's part together."""
    return math.sqrt(sum(float(np.vdot(g, g)) for g in grads))


def norm_weights(norms: Sequence[float]) -> list[float]:
    """``sum_j n_j / n_i`` for each gradient norm ``n_i`` (1 where a norm is zero)."""
    total = sum(norms)
    return [1.0 if n == 0 else total / n for n in norms]


def term_values(losses) -> list[float]:
    """Each component's loss from the last evaluation (``last_terms``, or the term's whole loss)."""
    values: list[float] = []
    for term, _ in losses:
        values += getattr(term, "last_terms", None) or [math.nan]
    return values


def all_finite(total: float, grads: Sequence[np.ndarray]) -> bool:
    return math.isfinite(total) and all(np.isfinite(g).all() for g in grads)


def explain_non_finite(losses, params: Sequence[Parameter], where: str) -> str:
    """Which term, and why, by evaluating each term alone (only once something already failed)."""
    names = iter(term_names(losses))
    for term, points in losses:
        value, grads = term(*points)
        grads = aligned(params, term, grads, where)
        parts = getattr(term, "last_terms", [value])
        labels = [next(names) for _ in parts]
        for label, part in zip(labels, parts):
            if not math.isfinite(part):
                return f"{where}: the loss of term {label!r} is {part}{_points_cause(term, points)}"
        for p, g in zip(params, grads):
            bad = int(np.size(g) - np.isfinite(g).sum())
            if bad:
                return (
                    f"{where}: the gradient of term {labels[0]!r} for weight {p.name!r} holds {bad} "
                    f"non-finite value(s){_points_cause(term, points)}"
                )
    not_finite = [p.name for p in params if not np.isfinite(p._value()).all()]
    return f"{where}: the loss or gradient is not finite" + (
        f" (weights {not_finite} are not finite)" if not_finite else ""
    )


def _points_cause(term, points) -> str:
    names = list(getattr(term, "names", []))
    if len(points) == 1 and np.ndim(points[0]) == 2:
        points = tuple(points[0])
    for i, p in enumerate(points):
        bad = int(np.size(p) - np.isfinite(np.asarray(p, np.float64)).sum())
        if bad:
            label = names[i] if i < len(names) else f"input {i}"
            return f"; its points hold {bad} non-finite value(s) in {label!r}"
    return " (its points are finite: the weights or the residual overflow; try a smaller learning rate)"


class Snapshot:
    """The weights (and the optimizer's state) at one step: kept by reference, since ``set_data``
    replaces arrays rather than writing into them."""

    def __init__(self, params: Sequence[Parameter], optimizer=None):
        self.values = [p._value() for p in params]
        self.params = list(params)
        self.state = optimizer.state() if hasattr(optimizer, "state") else None
        self.optimizer = optimizer

    def restore(self) -> None:
        for p, value in zip(self.params, self.values):
            p.set_data(value)
        if self.state is not None:
            self.optimizer.load_state(self.state)


def train(
    losses: Sequence[tuple[Callable, Sequence[np.ndarray]]],
    optimizer: Adam,
    steps: int,
    progress: bool = True,
    callback: Callable[[int, float], None] | None = None,
    *,
    callbacks: Sequence[Callable[[TrainState], bool | None]] = (),
    max_seconds: float | None = None,
    loss_tol: float | None = None,
    grad_tol: float | None = None,
    balance_every: int | None = None,
    balance_alpha: float = 0.9,
) -> History:
    """Minimise the sum of ``losses`` (each with its point arrays) by ``optimizer``'s steps.

    With ``balance_every`` (off by default), the sum is weighted, ``sum_i w_i L_i``, and every
    ``balance_every`` steps (from the first) each weight becomes
    ``balance_alpha * w_i + (1 - balance_alpha) * sum_j |grad L_j| / |grad L_i|``: terms whose
    gradients are small are raised until every term pulls on the weights alike (the gradient-norm
    balancing of Wang, Sankaran, Wang & Perdikaris 2023; learning-rate annealing, Wang, Teng &
    Perdikaris 2021). The weights start at 1 and are recorded in ``History.weights``; to keep them
    in a later optimizer, pass :func:`weighted_terms` ``(losses, history.weights[-1][1])``.

    Stops after ``steps`` steps, after ``max_seconds`` of wall time, when the total loss falls to
    ``loss_tol``, when the largest gradient entry falls to ``grad_tol``, or when a callback returns
    True. ``callback(step, loss)`` is called after every step; each of ``callbacks`` with a
    :class:`TrainState` (wrap one in :func:`every` to call it every k steps). A NaN or infinite loss or
    gradient raises :class:`NonFiniteLoss` with the weights and the optimizer's state put back as they
    were at the last step whose loss and gradient were finite. Returns the :class:`History`.
    """
    if not isinstance(steps, int) or steps < 0:
        raise ValueError(f"train: steps must be a whole number >= 0, got {steps!r}")
    stop_rule = Stop(steps, max_seconds, loss_tol, grad_tol).checked("train", "steps")
    if balance_every is not None and (not isinstance(balance_every, int) or balance_every < 1):
        raise ValueError(f"train: balance_every must be a whole number >= 1 or None, got {balance_every!r}")
    if not 0 <= balance_alpha < 1:
        raise ValueError(f"train: balance_alpha must be in [0, 1), got {balance_alpha!r}")
    losses = list(losses)
    if not losses:
        raise ValueError("train: no loss terms; pass a list of (loss, points) pairs")
    held = getattr(optimizer, "params", None)  # an optimizer without .params takes every term's
    params = optimized_parameters(
        union_parameters(losses) if held is None else held, "train: the optimizer's Parameters"
    )
    check_terms(losses, params, "train")
    names = term_names(losses)
    history = History()
    history.terms = {name: [] for name in names}
    bar = progress_bar(steps, progress)
    clock = stop_rule.clock()
    last_good = Snapshot(params, optimizer)
    history.stopped = f"{steps} steps"
    weights = [1.0] * len(losses)
    with one_pool():
        for step in range(steps):
            if balance_every is None:
                total, grads = total_loss(losses, params)
            else:
                parts = [term(*points) for term, points in losses]
                parts = [(v, aligned(params, t, g, "train")) for (v, g), (t, _) in zip(parts, losses)]
                if step % balance_every == 0 and all_finite(0.0, [g for _, p in parts for g in p]):
                    weights = balanced_weights(weights, [p for _, p in parts], balance_alpha)
                    history.weights.append((step, list(weights)))
                total = sum(w * value for w, (value, _) in zip(weights, parts))
                grads = [sum(w * p[k] for w, (_, p) in zip(weights, parts)) for k in range(len(params))]
            if not all_finite(total, grads):
                cause = explain_non_finite(losses, params, f"train: step {step}")  # at the failing weights
                last_good.restore()
                if bar is not None:
                    bar.close()
                back = (
                    f"the weights are back at step {step - 1}" if step else "the weights are as they started"
                )
                raise NonFiniteLoss(f"{cause}; {back}")
            last_good = Snapshot(params, optimizer)
            optimizer.step(grads)
            history.append(total)
            values = term_values(losses)
            for name, value in zip(names, values):
                history.terms[name].append(value)
            if bar is not None:
                bar.set_postfix(loss=f"{total:.3e}", kernel=kernels_in_use(losses), refresh=False)
                bar.update()
            if callback is not None:
                callback(step, total)
            seconds = clock.seconds()
            stop = stop_rule.reason(step, total, grads, clock)
            if callbacks:
                state = TrainState(step, total, dict(zip(names, values)), grads, seconds, losses)
                for fn in callbacks:
                    if fn(state) is True:
                        stop = stop or f"stopped by {getattr(fn, '__name__', 'a callback')} at step {step}"
            if stop:
                history.stopped = stop
                break
    if bar is not None:
        bar.close()
    history.seconds = clock.seconds()
    history.iterations = len(history)
    return history


def kernels_in_use(losses) -> str:
    """The backends the loss terms run on now, for the progress bar ("numpy" until C is compiled)."""
    return "+".join(sorted({getattr(term, "backend", "?") for term, _ in losses}))


def progress_bar(steps: int, enabled: bool, desc: str = "training", unit: str = "step"):
    """A tqdm bar of ``steps``, or None when disabled or tqdm is not installed."""
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # the bar is a convenience; training works without it
        return None
    return tqdm(total=steps, desc=desc, unit=unit)


__all__ = ["Clock", "History", "NonFiniteLoss", "Stop", "TrainState", "every", "total_loss", "train"]
