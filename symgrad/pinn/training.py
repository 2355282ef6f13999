"""Physics-informed training: residual losses compiled to one kernel, Adam, L-BFGS, checkpoints, plots.

A residual is written per point with symgrad ops (derivatives by ``grad``/``laplacian``);
:class:`ResidualLoss` compiles mean(residual^2) and its gradient for every weight into one
kernel evaluated over arrays of points, the sums over points done inside the kernel.
With ``backend="auto"`` (the default) the C kernel compiles in the background while the
NumPy kernel already evaluates, so nobody waits on a compiler.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import lowering
from symgrad.autodiff.api import grad
from symgrad.autodiff.api import laplacian as symgrad_laplacian
from symgrad.optim import Adam
from symgrad.parameter import Parameter
from symgrad.symbolic import kernel, placeholder


def laplacian(fn: Callable, positions: Sequence[int] = (0,)) -> Callable:
    """The sum of second derivatives of scalar ``fn`` over the inputs at ``positions``.

    One forward-Laplacian sweep (:func:`symgrad.laplacian`): neither the Hessian nor one
    second-order sweep per coordinate is built. Inputs may be scalars or vectors.
    """
    return symgrad_laplacian(fn, tuple(positions))


def fast_backend() -> str:
    """The backend ``"auto"`` means: ``"c"`` where a C compiler works, else ``"numpy"``."""
    return "c" if "c" in lowering.available_backends() else "numpy"


class ResidualLoss:
    """``weight * mean(residual(*inputs)^2)`` and its gradient for every weight, as one kernel.

    Args:
        residual: per-point residual, a function of the named scalar inputs.
        names: the input names (each a scalar placeholder, e.g. ("x", "t")).
        params: the Parameters to differentiate.
        weight: the factor of this term in the total loss.
        backend: a lowering backend name, or ``"auto"``: NumPy at once and the C kernel compiled
            in a background thread, used from the first call after it is ready.
    """

    def __init__(
        self,
        residual: Callable,
        names: Sequence[str],
        params: Sequence[Parameter],
        weight: float = 1.0,
        backend: str = "auto",
    ):
        self.params = list(params)
        self.inputs = [placeholder(n) for n in names]
        self.weight = weight

        def squared(*xs):
            r = residual(*xs)
            return (r * r).sum() * weight if r.shape else r * r * weight

        value = squared(*self.inputs)
        grads = grad(squared, None, weights=self.params)(*self.inputs)
        self._outputs = [value, *grads]
        self._residual_fn = residual
        self._residual_kernel: lowering.Kernel | None = None
        target = fast_backend() if backend == "auto" else backend
        self._fast: lowering.Kernel | None = None
        self._compiling: threading.Thread | None = None
        if backend == "auto" and target != "numpy":
            self.kernel = self._build("numpy")
            self._compiling = threading.Thread(target=self._compile_fast, args=(target,), daemon=True)
            self._compiling.start()
        else:
            self.kernel = self._build(target)

    def _build(self, backend: str) -> lowering.Kernel:
        return kernel(self._outputs, [*self.inputs, *self.params], backend=backend, reduce="mean")

    def _compile_fast(self, backend: str) -> None:
        try:
            self._fast = self._build(backend)
        except Exception as exc:  # noqa: BLE001 - the NumPy kernel keeps working; say why once
            warnings.warn(
                f"ResidualLoss: the {backend} kernel failed to build ({exc}); staying on NumPy", stacklevel=1
            )

    @property
    def backend(self) -> str:
        """The backend the next call uses."""
        return self.kernel.backend

    def wait_until_compiled(self, timeout: float | None = None) -> str:
        """Block until the background compile (if any) is done; returns the backend in use."""
        if self._compiling is not None:
            self._compiling.join(timeout)
        self._switch()
        return self.backend

    def _switch(self) -> None:
        if self._fast is not None:
            self.kernel, self._fast, self._compiling = self._fast, None, None

    def __call__(self, *points) -> tuple[float, list[np.ndarray]]:
        """(loss, gradients) at the point arrays (one array per input name)."""
        self._switch()
        loss, *grads = self.kernel(*points, *(p.asnumpy() for p in self.params))
        return float(loss), grads

    def residuals(self, *points) -> np.ndarray:
        """The residual at each point (for adaptive refinement and error maps); compiled on first use."""
        if self._residual_kernel is None:
            value = self._residual_fn(*self.inputs)
            self._residual_kernel = kernel(value, [*self.inputs, *self.params], backend="numpy")
        (r,) = self._residual_kernel(*points, *(p.asnumpy() for p in self.params))
        return np.broadcast_to(r, np.broadcast_shapes(*(np.shape(p) for p in points)))


def total_loss(losses: Sequence[tuple[Callable, Sequence[np.ndarray]]]) -> tuple[float, list[np.ndarray]]:
    """The sum of the loss terms (each called on its points) and the sum of their gradients."""
    if not losses:
        raise ValueError("no loss terms: pass (loss, points) pairs")
    total, grads = 0.0, None
    for term, points in losses:
        value, g = term(*points)
        total += value
        grads = g if grads is None else [a + b for a, b in zip(grads, g)]
    return total, grads


def train(
    losses: Sequence[tuple[ResidualLoss, Sequence[np.ndarray]]],
    optimizer: Adam,
    steps: int,
    progress: bool = True,
    callback: Callable[[int, float], None] | None = None,
) -> list[float]:
    """Minimise the sum of ``losses`` (each with its point arrays); returns the loss history."""
    bar = progress_bar(steps, progress)
    history = []
    for step in range(steps):
        total, grads = total_loss(losses)
        optimizer.step(grads)
        history.append(total)
        if bar is not None:
            bar.set_postfix(loss=f"{total:.3e}", kernel=kernels_in_use(losses), refresh=False)
            bar.update()
        if callback is not None:
            callback(step, total)
    if bar is not None:
        bar.close()
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


def save_checkpoint(path: str | Path, params: Sequence[Parameter], optimizer: Adam | None = None) -> Path:
    """Weights (and the optimizer's state) in one ``.npz``; reloads bit for bit."""
    arrays = {f"param:{p.name}": p.asnumpy() for p in params}
    if optimizer is not None:
        arrays.update(optimizer.state())
    path = Path(path)
    np.savez(path, **arrays)
    return path if path.suffix == ".npz" else path.with_suffix(path.suffix + ".npz")


def load_checkpoint(path: str | Path, params: Sequence[Parameter], optimizer: Adam | None = None) -> None:
    """Restore what :func:`save_checkpoint` wrote into ``params`` (and ``optimizer``)."""
    with np.load(path) as data:
        for p in params:
            key = f"param:{p.name}"
            if key not in data:
                raise KeyError(f"load_checkpoint: {path} has no weights for parameter {p.name!r}")
            p.set_data(data[key])
        if optimizer is not None:
            optimizer.load_state(data)


def plot_solution(
    path: str | Path,
    grid_a: np.ndarray,
    grid_b: np.ndarray,
    predicted: np.ndarray,
    exact: np.ndarray | None = None,
    labels=("x", "y"),
) -> Path:
    """A PNG of the predicted field, and of the exact one and the error when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("prediction", predicted)] + (
        [("exact", exact), ("|error|", np.abs(predicted - exact))] if exact is not None else []
    )
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    for ax, (title, field) in zip(axes[0], panels):
        image = ax.pcolormesh(
            grid_a, grid_b, field, shading="auto", cmap="viridis" if title != "|error|" else "magma"
        )
        ax.set_title(title)
        ax.set_xlabel(labels[0])
        ax.set_ylabel(labels[1])
        fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return Path(path)


__all__ = [
    "Adam",
    "ResidualLoss",
    "fast_backend",
    "laplacian",
    "load_checkpoint",
    "plot_solution",
    "save_checkpoint",
    "train",
]
