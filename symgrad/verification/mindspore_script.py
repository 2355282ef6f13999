"""A MindSpore script's gradients (its Cells' custom ``bprop`` included) checked against symgrad's exact ones.

The script runs twice, unchanged: on real MindSpore, then on symgrad under the name
``mindspore`` (symgrad is a MindSpore front end) with every Cell's ``bprop`` set aside, so
symgrad differentiates ``construct`` itself. Each of symgrad's calls is made at MindSpore's
point: MindSpore's Tensor arguments and trainable Parameter values (matched in creation order),
since the two libraries' random initializers differ. Each call the script makes of a function a
gradient transform returned (``ops.grad``, ``ops.value_and_grad``, ``GradOperation``, and
``ops.jvp``/``ops.vjp`` themselves) is recorded in both runs, in order. Every number MindSpore
returned is compared with symgrad's closed form evaluated with 50 digits at the same inputs.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import random
import runpy
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symgrad.core.graph import free_vars
from symgrad.errors import CannotCompare, FrameworkMissing
from symgrad.evaluate import value_of
from symgrad.verification import methods
from symgrad.verification.frameworks import TOLERANCE
from symgrad.verification.report import FAIL, Report, Row, compare, magnitude

# gradient transforms, by the module path a script reaches them from (MindSpore's and symgrad's
# spellings are the same): those returning a function to call, and those returning results
RETURNS_FUNCTION = ("ops.grad", "ops.value_and_grad", "grad", "value_and_grad")
RETURNS_RESULTS = ("ops.jvp", "ops.vjp")
# beyond this many entries in one call's results, symgrad's values are taken in the script's
# dtype instead of with 50 digits (which costs about a millisecond an entry)
EXACT_LIMIT = 5_000


@dataclass
class Call:
    """One recorded call: where the script made it, its results' leaves (path, value), and what it
    was called with: the Tensor arguments and every trainable Parameter's value, in creation order."""

    label: str
    line: int
    leaves: list[tuple[str, object]]
    inputs: list[np.ndarray | None]
    weights: list[tuple[str, np.ndarray]]  # (name, value)


class _Recorder:
    """Wraps a library's gradient transforms so calls made from ``script`` are recorded.

    With ``replay`` (MindSpore's calls), each call is first given MindSpore's arguments and
    Parameter values, so both libraries differentiate at the same point even where the script
    draws its weights or data at random (each library has its own random initializers).
    """

    def __init__(self, library, script: Path, replay: list[Call] | None = None):
        self.library, self.script, self.replay = library, script, replay
        self.calls: list[Call] = []
        self.parameters: list = []  # every Parameter the run creates, in order

    def _from_script(self) -> int | None:
        frame = sys._getframe(2)
        if Path(frame.f_code.co_filename).resolve() == self.script:
            return frame.f_lineno
        return None

    def _trainable(self) -> list:
        return [p for p in self.parameters if getattr(p, "requires_grad", True)]

    def _same_point(self, args: tuple, line: int) -> tuple:
        """``args`` and the Parameters set to MindSpore's values for this call."""
        if self.replay is None or len(self.calls) >= len(self.replay):
            return args
        theirs = self.replay[len(self.calls)]
        for p, value in zip(self._trainable(), _matched(theirs.weights, self._trainable(), line)):
            p.set_data(value)
        tensor = self.library.Tensor
        return (
            tuple(
                tensor(value) if value is not None and isinstance(arg, tensor) else arg
                for arg, value in zip(args, theirs.inputs)
            )
            + args[len(theirs.inputs) :]
        )

    def recorded(self, fn: Callable, label: str) -> Callable:
        def call(*args, **kwargs):
            line = self._from_script()
            if line is not None:
                args = self._same_point(args, line)
                inputs = [a.asnumpy() if isinstance(a, self.library.Tensor) else None for a in args]
                weights = [(p.name, np.array(p.asnumpy())) for p in self._trainable()]
            result = fn(*args, **kwargs)
            if line is not None:
                self.calls.append(Call(label, line, list(_leaves(result)), inputs, weights))
                result = self._wrap_functions(result, label)
            return result

        return call

    def _wrap_functions(self, result, label: str):
        """vjp's ``vjp_fn`` in a result: recorded too when the script calls it."""
        if callable(result) and not hasattr(result, "asnumpy"):
            return self.recorded(result, f"{label} -> vjp_fn")
        if isinstance(result, tuple):
            return tuple(self._wrap_functions(r, label) for r in result)
        return result

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        saved: list[tuple[object, str, object]] = []

        def patch(owner, name: str, value) -> None:
            saved.append((owner, name, getattr(owner, name)))
            setattr(owner, name, value)

        for path in RETURNS_FUNCTION + RETURNS_RESULTS:
            owner = self.library
            *parents, name = path.split(".")
            for parent in parents:
                owner = getattr(owner, parent)
            original = getattr(owner, name, None)
            if original is None:
                continue
            if path in RETURNS_RESULTS:
                patch(owner, name, self.recorded(original, path))
            else:
                patch(owner, name, self._transform(original, path))
        parameter_init = self.library.Parameter.__init__
        created = self.parameters

        def init(self, *args, **kwargs):
            parameter_init(self, *args, **kwargs)
            created.append(self)

        patch(self.library.Parameter, "__init__", init)
        grad_operation = self.library.ops.GradOperation
        original_call = grad_operation.__call__
        recorder = self

        def call(self, *args, **kwargs):
            return recorder.recorded(original_call(self, *args, **kwargs), "GradOperation")

        patch(grad_operation, "__call__", call)
        try:
            yield
        finally:
            for owner, name, value in reversed(saved):
                setattr(owner, name, value)

    def _transform(self, transform: Callable, label: str) -> Callable:
        def made(*args, **kwargs):
            return self.recorded(transform(*args, **kwargs), label)

        return made


def _matched(theirs: list[tuple[str, np.ndarray]], ours: list, line: int) -> list[np.ndarray]:
    """MindSpore's value for each of symgrad's trainable Parameters: position by position where the
    two runs made the same shapes, else by name and shape in creation order (MindSpore's optimizers
    make trainable Parameters of their own: moments, learning rate)."""
    if [v.shape for _, v in theirs] == [tuple(p.shape) for p in ours]:
        return [v for _, v in theirs]
    values, rest = [], iter(theirs)
    for p in ours:
        found = next((v for name, v in rest if name == p.name and v.shape == tuple(p.shape)), None)
        if found is None:
            raise CannotCompare(
                f"line {line}: symgrad's Parameter {p.name!r} {tuple(p.shape)} has no match among MindSpore's "
                f"({[(n, v.shape) for n, v in theirs]}), so the runs' weights cannot be matched; give the "
                "layers their initial values (weight_init=Tensor(...))"
            )
        values.append(found)
    return values


def _leaves(value, path: str = "") -> Iterator[tuple[str, object]]:
    """(path, Tensor) leaves of nested tuples, lists and dicts; numbers too."""
    if isinstance(value, tuple | list):
        for i, item in enumerate(value):
            yield from _leaves(item, f"{path}[{i}]")
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{path}[{key!r}]")
    elif hasattr(value, "asnumpy") or isinstance(value, int | float | np.ndarray):
        yield path, value


class _SymgradAsMindSpore(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import mindspore...`` gives ``symgrad...`` while active (the real MindSpore set aside)."""

    def find_spec(self, name, path, target=None):
        if name == "mindspore" or name.startswith("mindspore."):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        module = importlib.import_module("symgrad" + spec.name[len("mindspore") :])
        self.specs.setdefault(module, module.__spec__)
        return module

    def exec_module(self, module) -> None:
        """The module is symgrad's, already run."""

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        real = {n: m for n, m in sys.modules.items() if n == "mindspore" or n.startswith("mindspore.")}
        for name in real:
            del sys.modules[name]
        self.specs: dict = {}
        sys.meta_path.insert(0, self)
        try:
            yield
        finally:
            sys.meta_path.remove(self)
            for name in [n for n in sys.modules if n == "mindspore" or n.startswith("mindspore.")]:
                del sys.modules[name]
            sys.modules.update(real)
            for module, spec in self.specs.items():  # the import system gave them MindSpore's names
                module.__spec__ = spec


def _run(path: Path, recorder: _Recorder) -> None:
    """The script once, NumPy's and Python's random numbers seeded alike for both libraries' runs."""
    random.seed(0)
    np.random.seed(0)
    with recorder.active():
        runpy.run_path(str(path), run_name="__main__")


def run_on_mindspore(path: Path) -> list[Call]:
    """The script's gradient calls on real MindSpore."""
    try:
        import mindspore
    except ImportError:
        raise FrameworkMissing(
            "verifying a MindSpore script needs MindSpore installed: pip install 'symgrad[mindspore]'"
        ) from None
    recorder = _Recorder(mindspore, path)
    _run(path, recorder)
    return recorder.calls


def run_on_symgrad(path: Path, replay: list[Call]) -> tuple[list[Call], list[str]]:
    """The same calls on symgrad at MindSpore's points (``replay``), custom bprops set aside; and
    the Cells whose bprop was."""
    import symgrad
    from symgrad.autodiff.custom_bprop import bprops_set_aside

    recorder = _Recorder(symgrad, path, replay)
    with _SymgradAsMindSpore().active(), bprops_set_aside() as set_aside:
        _run(path, recorder)
    return recorder.calls, set_aside


def exact_values(value) -> tuple[np.ndarray, str]:
    """A symgrad result's closed form with 50 digits (rounded to float64), and how it was taken."""
    array = np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)
    node = getattr(value, "_node", None)
    if node is None or array.dtype.kind not in "f" or array.size > EXACT_LIMIT:
        return array.astype(np.float64) if array.dtype.kind == "f" else array, "in the script's dtype"
    args = free_vars([node])
    values = [np.asarray(value_of(a, value._env)) for a in args]
    (exact,) = methods.high_precision([node], args, values)
    return exact, "with 50 digits"


def compare_calls(mindspore_calls: list[Call], symgrad_calls: list[Call], report: Report) -> None:
    """Rows of ``report``: every leaf MindSpore returned against symgrad's exact value."""
    if len(mindspore_calls) != len(symgrad_calls):
        report.notes.append(
            f"MindSpore made {len(mindspore_calls)} gradient call(s) from the script, symgrad "
            f"{len(symgrad_calls)}: only the first {min(len(mindspore_calls), len(symgrad_calls))} are compared"
        )
    how = set()
    for ms_call, sg_call in zip(mindspore_calls, symgrad_calls):
        where = f"line {ms_call.line}: {ms_call.label}"
        if [p for p, _ in ms_call.leaves] != [p for p, _ in sg_call.leaves]:
            report.rows.append(Row(where, "structure", np.inf, np.inf, (), np.nan, np.nan, 0.0, 0.0, FAIL))
            report.notes.append(
                f"{where}: MindSpore returned {len(ms_call.leaves)} value(s), symgrad {len(sg_call.leaves)}"
            )
            continue
        for (path, ms_value), (_, sg_value) in zip(ms_call.leaves, sg_call.leaves):
            got = np.asarray(ms_value.asnumpy() if hasattr(ms_value, "asnumpy") else ms_value)
            reference, taken = exact_values(sg_value)
            how.add(taken)
            if got.shape != reference.shape:
                report.rows.append(
                    Row(where + path, "shape", np.inf, np.inf, (), np.nan, np.nan, 0.0, 0.0, FAIL)
                )
                report.notes.append(
                    f"{where}{path}: MindSpore's shape {got.shape}, symgrad's {reference.shape}"
                )
                continue
            rtol, fraction = TOLERANCE.get(got.dtype, (1e-2, 1e-3)) if got.dtype.kind == "f" else (0.0, 0.0)
            atol = fraction * magnitude(reference) if reference.dtype.kind == "f" else 0.0
            report.rows.append(
                compare(where + path, "MindSpore", got, reference.astype(np.float64), rtol, atol)
            )
    report.notes.append(f"symgrad's values were taken {' and '.join(sorted(how)) or 'nowhere'}")


def verify_mindspore_script(path: str | Path) -> Report:
    """Run ``path`` on real MindSpore and on symgrad; compare every gradient the script computes."""
    script = Path(path).resolve()
    mindspore_calls = run_on_mindspore(script)
    symgrad_calls, set_aside = run_on_symgrad(script, mindspore_calls)
    report = Report(f"MindSpore script {path}: its gradients against symgrad's exact ones")
    if not mindspore_calls:
        report.notes.append(
            "the script called no gradient function (ops.grad, GradOperation, ...): nothing compared"
        )
    compare_calls(mindspore_calls, symgrad_calls, report)
    if set_aside:
        report.notes.append(
            f"custom bprops set aside in symgrad's run (it differentiates construct): {', '.join(set_aside)}"
        )
    return report


__all__ = ["verify_mindspore_script"]
