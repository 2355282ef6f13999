"""A MindSpore script's gradients (its Cells' custom ``bprop`` included) checked against symgrad's exact ones.

The script runs twice, unchanged: on real MindSpore, then on symgrad under the name
``mindspore`` (symgrad is a MindSpore front end) with every Cell's ``bprop`` set aside, so
symgrad differentiates ``construct`` itself. Each call the script makes of a function a
gradient transform returned (``ops.grad``, ``ops.value_and_grad``, ``GradOperation``, and
``ops.jvp``/``ops.vjp`` themselves) is recorded in both runs, in order. Every number MindSpore
returned is compared with symgrad's closed form evaluated with 50 digits at the same inputs.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.util
import runpy
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from symgrad.core.graph import free_vars
from symgrad.errors import FrameworkMissing
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
EXACT_LIMIT = 20_000


@dataclass
class Call:
    """One recorded call: where the script made it, and its results' leaves (path, value)."""

    label: str
    line: int
    leaves: list[tuple[str, object]]


class _Recorder:
    """Wraps a library's gradient transforms so calls made from ``script`` are recorded."""

    def __init__(self, library, script: Path):
        self.library, self.script = library, script
        self.calls: list[Call] = []

    def _from_script(self) -> int | None:
        frame = sys._getframe(2)
        if Path(frame.f_code.co_filename).resolve() == self.script:
            return frame.f_lineno
        return None

    def recorded(self, fn: Callable, label: str) -> Callable:
        def call(*args, **kwargs):
            line = self._from_script()
            result = fn(*args, **kwargs)
            if line is not None:
                self.calls.append(Call(label, line, list(_leaves(result))))
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


def run_on_symgrad(path: Path) -> tuple[list[Call], list[str]]:
    """The same calls on symgrad, custom bprops set aside; and the Cells whose bprop was."""
    import symgrad
    from symgrad.nn.bprop import bprops_set_aside

    recorder = _Recorder(symgrad, path)
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
    symgrad_calls, set_aside = run_on_symgrad(script)
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
