"""Residual losses compiled to one kernel, and a trained network evaluated on points.

A residual is written per point with symgrad ops (derivatives by ``grad``/``laplacian``);
:class:`ResidualLoss` compiles ``weight * mean(residual^2)`` and its gradient for every weight
into one kernel evaluated over arrays of points, the sums over points done inside the kernel.
A residual may return several components (a tuple or list, for a system of equations): each is
a term of its own, with its own weight and its own loss in the training history.
With ``backend="auto"`` (the default) the C kernel compiles in the background while the
NumPy kernel already evaluates, so nobody waits on a compiler.
"""

from __future__ import annotations

import math
import threading
import warnings
import weakref
from collections.abc import Callable, Sequence

import numpy as np

import lowering
from symgrad.autodiff.api import grad
from symgrad.autodiff.jacobian import jacobian_node
from symgrad.core.graph import free_vars
from symgrad.kernels import kernel, placeholder
from symgrad.parameter import Parameter, all_parameters, parameters_of
from symgrad.tensor import Tensor


def fast_backend() -> str:
    """The backend ``"auto"`` means: ``"c"`` where a C compiler works, else ``"numpy"``."""
    return "c" if "c" in lowering.available_backends() else "numpy"


def trace(fn: Callable, inputs: Sequence[Tensor], what: str):
    """``fn(*inputs)`` on placeholders; a NumPy function refused on a Tensor says which residual."""
    try:
        return fn(*inputs)
    except TypeError as exc:
        if "cannot take a symgrad Tensor" not in str(exc):
            raise
        raise TypeError(f"{what}: {exc}") from exc


def components(value, what: str) -> list[Tensor]:
    """A residual's components: one Tensor, or each Tensor of a tuple or list (a system)."""
    parts = list(value) if isinstance(value, tuple | list) else [value]
    if not parts:
        raise ValueError(f"{what}: the residual returned an empty {type(value).__name__}")
    for i, part in enumerate(parts):
        if not isinstance(part, Tensor):
            where = f"component {i}" if len(parts) > 1 else "the residual"
            raise TypeError(
                f"{what}: {where} is a {type(part).__name__}, not a Tensor built from the inputs "
                "(a residual must depend on the points and the weights)"
            )
    return parts


def network_dtype(params: Sequence[Parameter]) -> type:
    """float32 where every weight is float32 (the whole graph then computes in float32), else float64."""
    if params and all(p.dtype == np.float32 for p in params):
        return np.float32
    return np.float64


def point_arrays(points, count: int, what: str, names: Sequence[str] = ()) -> tuple[np.ndarray, ...]:
    """The point arrays, one per input and each of shape (n,) with one n: ``points`` as given, or a
    (count, n) array split into rows; an (n, 1) column counts as (n,), and one point may be scalars.

    Raises a ValueError that names the inputs and shapes (and says how to mend points given as
    (n, count)), or a TypeError for values that are not numbers.
    """
    if len(points) == 1 and np.ndim(points[0]) == 2 and np.shape(points[0])[0] == count:
        points = tuple(np.asarray(points[0]))
    if len(points) != count:
        shapes = [np.shape(p) for p in points]
        if len(points) == 1 and np.ndim(points[0]) == 2 and np.shape(points[0])[1] == count:
            hint = f"the array has shape {shapes[0]}: points are (dim, n), one row per input; pass points.T"
        elif shapes and all(s == (count,) for s in shapes):
            hint = f"got {len(points)} arrays of shape ({count},): points are (dim, n), one row per input; pass points.T"
        else:
            hint = f"got {len(points)} arrays of shapes {shapes[:4]}{' ...' if len(shapes) > 4 else ''}"
        raise ValueError(f"{what}: takes {count} point arrays (one per input), {hint}")
    arrays = []
    for i, p in enumerate(points):
        a = p if isinstance(p, np.ndarray) else np.asarray(p)
        if a.dtype.kind not in "fiub":
            label = names[i] if i < len(names) else f"input {i}"
            raise TypeError(f"{what}: the points of {label!r} are {a.dtype} values, not numbers")
        if a.dtype.kind != "f":
            a = a.astype(np.float64)
        arrays.append(a[:, 0] if a.ndim == 2 and a.shape[1] == 1 else a)
    shape = arrays[0].shape
    if len(shape) > 1 or any(a.shape != shape for a in arrays):
        given = ", ".join(
            f"{names[i] if i < len(names) else f'input {i}'} {np.shape(p)}" for i, p in enumerate(points)
        )
        raise ValueError(
            f"{what}: every input needs one value per point, as arrays of one length n of shape (n,) or "
            f"(n, 1); got {given}"
        )
    return tuple(arrays)


class ResidualLoss:
    """``weight * mean(residual(*inputs)^2)`` and its gradient for every weight, as one kernel.

    Args:
        residual: per-point residual, a function of the named scalar inputs, returning a Tensor or
            a tuple/list of Tensors (a system: one term per component).
        names: the input names (each a scalar placeholder, e.g. ("x", "t")).
        params: the Parameters to differentiate, or the network (any ``nn.Cell``, or an object with
            ``params``) whose trainable Parameters they are. PDE coefficients to learn (an inverse
            problem) are Parameters used in the residual: list them here too.
        weight: the factor of each term in the total loss: one number, or one per component.
        backend: a lowering backend name, or ``"auto"``: NumPy at once and the C kernel compiled
            in a background thread, used from the first call after it is ready.
        name: the term's name in training histories and errors; components are ``name[0]``, ... unless
            ``term_names`` names them.

    ``observes`` is True for a term of observed values (``conditions.observations``): ``solve``
    fits those first. ``formulation`` is the residual's own ``choice`` (how it wrote its equation,
    as :func:`~symgrad.pinn.ode_residual` says), which ``solve`` reports; "" where it has none.
    ``poles`` is the residual's own ``poles``: True where it divides by the solution, which must
    then not cross 0 anywhere (``solve`` does not leave times untrained); False where it does not say.
    """

    observes = False

    def __init__(
        self,
        residual: Callable,
        names: Sequence[str],
        params,
        weight: float | Sequence[float] = 1.0,
        backend: str = "auto",
        name: str = "residual",
        term_names: Sequence[str] | None = None,
    ):
        self.params = parameters_of(params)
        self.name = name
        # how the residual wrote its equation, where it says (``ode_residual``'s ``choice``): solve reports it
        self.formulation = str(getattr(residual, "choice", "") or "")
        self.poles = bool(getattr(residual, "poles", False))  # the residual divides by the solution
        self.dtype = network_dtype(self.params)
        if isinstance(names, str):
            raise TypeError(
                f"ResidualLoss {name!r}: names must be a sequence of input names, got the string {names!r}"
            )
        self.names = [str(n) for n in names]
        self.inputs = [placeholder(n, dtype=self.dtype) for n in self.names]
        parts = components(trace(residual, self.inputs, f"ResidualLoss {name!r}"), f"ResidualLoss {name!r}")
        self.weights = self._weights(weight, len(parts))
        self.term_names = self._term_names(term_names, len(parts))
        squares = self._weighted_squares(parts)

        def total(*xs):
            out = self._weighted_squares(components(residual(*xs), name))
            return sum(out[1:], out[0])

        grads = grad(total, None, weights=self.params)(*self.inputs) if self.params else []
        self._outputs = [*squares, *grads]
        # every Parameter the residual reads is a kernel input, read at each call: one that is not
        # differentiated (a Fourier matrix, a frozen coefficient, weights outside ``params``) would
        # otherwise keep its value of now in the kernel while the network's moves on
        self.read = [*self.params, *fixed_parameters(self._outputs, self.params)]
        self._parts = parts  # the residual's components at the placeholders, for residuals()
        self._residual_kernel: lowering.Kernel | None = None
        self._jacobian_kernel: lowering.Kernel | None = None
        self._jacobian_thread: threading.Thread | None = None
        self._jacobian_lock = threading.Lock()
        self._partial_kernels: dict[tuple[int, ...], lowering.Kernel] = {}
        self.last_terms: list[float] = []
        target = fast_backend() if backend == "auto" else backend
        self._fast: lowering.Kernel | None = None
        self._compiling: threading.Thread | None = None
        if backend == "auto" and target != "numpy":
            self.kernel = self._build("numpy")
            self._compiling = threading.Thread(target=self._compile_fast, args=(target,), daemon=True)
            self._compiling.start()
        else:
            self.kernel = self._build(target)

    def _weighted_squares(self, parts: list[Tensor]) -> list[Tensor]:
        """weight * r^2 per component (summed over its entries when it is a vector)."""
        return [(r * r).sum() * w if r.shape else r * r * w for r, w in zip(parts, self.weights)]

    def _weights(self, weight, count: int) -> list[float]:
        values = [weight] * count if np.ndim(weight) == 0 else list(weight)
        if len(values) != count:
            raise ValueError(
                f"ResidualLoss {self.name!r}: {len(values)} weights for {count} residual components"
            )
        for i, w in enumerate(values):
            if not isinstance(w, int | float | np.floating | np.integer) or not math.isfinite(w) or w < 0:
                raise ValueError(
                    f"ResidualLoss {self.name!r}: weight {i} must be a finite number >= 0, got {w!r}"
                )
        return [float(w) for w in values]

    def _term_names(self, term_names, count: int) -> list[str]:
        if term_names is None:
            return [self.name] if count == 1 else [f"{self.name}[{i}]" for i in range(count)]
        names = [str(n) for n in term_names]
        if len(names) != count or len(set(names)) != count:
            raise ValueError(
                f"ResidualLoss {self.name!r}: term_names needs {count} distinct names, got {list(term_names)}"
            )
        return names

    def _build(self, backend: str) -> lowering.Kernel:
        return kernel(self._outputs, [*self.inputs, *self.read], backend=backend, reduce="mean")

    def _compile_fast(self, backend: str) -> None:
        try:
            self._fast = self._build(backend)
        except Exception as exc:  # noqa: BLE001 - the NumPy kernel keeps working; say why once
            if not threading.main_thread().is_alive():
                return  # the program is ending (its exit removed the build's folder): no kernel is wanted
            warnings.warn(
                f"ResidualLoss: the {backend} kernel failed to build ({exc}); staying on NumPy", stacklevel=1
            )

    @property
    def rows_per_point(self) -> int:
        """Residual entries per point (a system's components, a vector residual's entries): the
        rows each point gives the Jacobian."""
        return sum(int(np.prod(part.shape)) for part in self._parts)

    @property
    def backend(self) -> str:
        """The backend the next call uses."""
        return self.kernel.backend

    @property
    def compiling(self) -> bool:
        """Whether the fast kernel is still compiling in the background (NumPy's runs meanwhile)."""
        return self._compiling is not None and self._compiling.is_alive()

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
        """(loss, gradients) at the point arrays (one array per input name, or one (dim, n) array).

        The loss of each component is left in ``last_terms``.
        """
        points = point_arrays(points, len(self.inputs), f"ResidualLoss {self.name!r}", self.names)
        if any(np.size(p) == 0 for p in points):
            raise ValueError(
                f"ResidualLoss {self.name!r}: an empty point set ({[np.shape(p) for p in points]})"
            )
        self._switch()
        out = self.kernel(*points, *(p._value() for p in self.read))
        count = len(self.term_names)
        self.last_terms = [float(v) for v in out[:count]]
        return math.fsum(self.last_terms), list(out[count:])

    def residuals(self, *points) -> np.ndarray | tuple[np.ndarray, ...]:
        """The residual at each point (for adaptive refinement and error maps); one array per component."""
        points = point_arrays(points, len(self.inputs), f"ResidualLoss {self.name!r}", self.names)
        if self._residual_kernel is None:
            self._residual_kernel = kernel(self._parts, [*self.inputs, *self.read], backend="numpy")
        values = self._residual_kernel(*points, *(p._value() for p in self.read))
        return values[0] if len(values) == 1 else values

    @property
    def jacobian_ready(self) -> bool:
        """Whether :meth:`jacobian`'s kernel is built (a call then does not wait on a compiler)."""
        return self._jacobian_kernel is not None

    def prepare_jacobian(self) -> None:
        """Start building :meth:`jacobian`'s kernel in a background thread (``jacobian`` waits for
        it), so that a Gauss-Newton method does not wait on the compiler later."""
        with self._jacobian_lock:
            if self._jacobian_kernel is None and self._jacobian_thread is None:
                self._jacobian_thread = threading.Thread(target=self._build_jacobian_quietly, daemon=True)
                self._jacobian_thread.start()

    def _build_jacobian_quietly(self) -> None:
        try:
            self._build_jacobian()
        except Exception:  # noqa: BLE001, S110 - jacobian() builds it again where it is called, and raises there
            pass

    def _build_jacobian(self) -> None:
        built = self._jacobian_of(self.params)
        self._jacobian_kernel = self._jacobian_kernel or built

    def _jacobian_of(self, params: Sequence[Parameter]) -> lowering.Kernel:
        """A kernel of the residual parts, each followed by its derivatives by ``params``; every
        Parameter of the term is an input, so the kernel reads their current values."""
        outputs = []
        for part in self._parts:
            outputs.append(part)
            outputs += [Tensor._wrap(jacobian_node(part._node, p._node), part._env) for p in params]
        return kernel(outputs, [*self.inputs, *self.read], backend=fast_backend())

    def jacobian(self, *points, params: Sequence[Parameter] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The scaled residuals ``r`` (one entry per point and component entry: ``sqrt(weight / n)``
        times the residual, so that ``r @ r`` is this term's loss) and their Jacobian with respect
        to the flat weights (one row per entry of ``r``), for Gauss-Newton steps. With ``params``
        (some of the term's Parameters), the Jacobian's columns are theirs alone, in that order,
        the other weights read at their current values (its kernel is built once per choice)."""
        points = point_arrays(points, len(self.inputs), f"ResidualLoss {self.name!r}", self.names)
        chosen = self.params if params is None else self._some_params(params)
        if [id(p) for p in chosen] == [id(p) for p in self.params]:  # every one, in order: the full kernel
            built = self._full_jacobian_kernel()
        else:
            built = self._partial_jacobian_kernel(chosen)
        values = built(*points, *(p._value() for p in self.read))
        n = int(np.broadcast_shapes(*(np.shape(p) for p in points))[0]) if np.ndim(points[0]) else 1
        rows, blocks, k = [], [], 0
        for part, weight in zip(self._parts, self.weights):
            scale = math.sqrt(weight / n)
            residual = np.broadcast_to(np.asarray(values[k], np.float64), (n, *part.shape)).reshape(n, -1)
            columns = [  # a derivative the same at every point comes without the points' axis
                np.broadcast_to(np.asarray(v, np.float64), (n, *part.shape, *p.shape)).reshape(
                    n, residual.shape[1], -1
                )
                for v, p in zip(values[k + 1 : k + 1 + len(chosen)], chosen)
            ]
            rows.append(scale * residual.ravel())
            blocks.append(scale * np.concatenate(columns, axis=2).reshape(residual.size, -1))
            k += 1 + len(chosen)
        return np.concatenate(rows), np.concatenate(blocks)

    def _full_jacobian_kernel(self) -> lowering.Kernel:
        thread = self._jacobian_thread
        if thread is not None:
            thread.join()
        if self._jacobian_kernel is None:  # not prepared, or its background build failed: here, raising
            self._build_jacobian()
        assert self._jacobian_kernel is not None
        return self._jacobian_kernel

    def _some_params(self, params: Sequence[Parameter]) -> list[Parameter]:
        chosen = list(params)
        known = {id(p) for p in self.params}
        for p in chosen:
            if not isinstance(p, Parameter) or id(p) not in known:
                label = getattr(p, "name", type(p).__name__)
                raise ValueError(
                    f"ResidualLoss {self.name!r}: jacobian(params=...) takes the term's own Parameters; "
                    f"{label!r} is not one of {[q.name for q in self.params]}"
                )
        if not chosen or len({id(p) for p in chosen}) != len(chosen):
            raise ValueError(
                f"ResidualLoss {self.name!r}: jacobian(params=...) needs one or more distinct Parameters, "
                f"got {[getattr(p, 'name', p) for p in chosen]}"
            )
        return chosen

    def _partial_jacobian_kernel(self, params: Sequence[Parameter]) -> lowering.Kernel:
        key = tuple(id(p) for p in params)
        with self._jacobian_lock:
            built = self._partial_kernels.get(key)
            if built is None:
                built = self._partial_kernels[key] = self._jacobian_of(list(params))
        return built


def fixed_parameters(outputs: Sequence[Tensor], params: Sequence[Parameter]) -> list[Parameter]:
    """The Parameters ``outputs`` read besides ``params``, each once, in first-use order."""
    given = {id(p) for p in params}
    found = [v.param for v in free_vars([o._node for o in outputs]) if isinstance(v.param, Parameter)]
    return list({id(p): p for p in found if id(p) not in given}.values())


_predictors: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def predict(net, points, backend: str = "numpy") -> np.ndarray | tuple[np.ndarray, ...]:
    """The network's outputs at ``points``: a (dim, n) array, or one array per input (any shape, e.g.
    a meshgrid). ``net`` is a network or any function of the inputs (a hard-constrained ``u``), whose
    Parameters are found in what it computes. One output gives one array, several a tuple. The
    kernel is compiled once per network and input count and reads the current weights at every call."""
    arrays = tuple(points) if isinstance(points, tuple | list) else None
    if arrays is None:
        points = np.asarray(points)
        if points.ndim != 2:
            raise ValueError(
                f"predict: points must be a (dim, n) array or a list of arrays, got shape {points.shape}"
            )
        arrays = tuple(points)
    if not callable(net):
        raise TypeError(f"predict: expected a network or a function of the inputs, got {type(net).__name__}")
    key = (len(arrays), backend)
    try:
        cache = _predictors.setdefault(net, {})
    except TypeError:  # not weakly referable: compile afresh
        cache = {}
    if key not in cache:
        cache[key] = _predictor(net, len(arrays), backend)
    compiled, params = cache[key]
    values = compiled(*arrays, *(p._value() for p in params))
    return values[0] if len(values) == 1 else values


def _predictor(net: Callable, count: int, backend: str) -> tuple[lowering.Kernel, list[Parameter]]:
    """The kernel of ``net``'s outputs from ``count`` inputs and its Parameters (a network's, or for a
    function those its outputs depend on, in first-use order)."""
    is_network = callable(getattr(net, "get_parameters", None)) or hasattr(net, "params")
    params = all_parameters(net) if is_network else []
    inputs = [placeholder(f"x{i}", dtype=network_dtype(params)) for i in range(count)]
    outputs = components(trace(net, inputs, "predict"), "predict")
    params = [*params, *fixed_parameters(outputs, params)]  # a function's: all it reads
    return kernel(outputs, [*inputs, *params], backend=backend), params


__all__ = ["ResidualLoss", "fast_backend", "predict"]
