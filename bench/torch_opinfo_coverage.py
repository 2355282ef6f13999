"""Coverage against PyTorch's own op database (issue 41): every OpInfo entry with autograd, imported
through ``from_torch`` on its float64 sample inputs, its values and vector-Jacobian product (a
random cotangent) compared with PyTorch's forward and torch.autograd.

Each op is classified: ``pass``; ``refused`` (a symgrad error naming the op; its first line is
kept); ``wrong`` (numbers that differ from PyTorch's: a bug); ``crash`` (an error that is not
symgrad's: a bug); ``n/a`` (nothing symgrad could compare: no float64 autograd, no float input
needing a gradient, complex or sparse values, random ops), with the reason.

    python bench/torch_opinfo_coverage.py [--samples 3] [--seconds 30] [--ops NAME ...] [--show-refused]

Needs ``torch`` and ``expecttest`` (PyTorch's test tables import it).
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import signal
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import symgrad  # noqa: E402
from symgrad.errors import SymgradError  # noqa: E402
from symgrad.importers import from_torch  # noqa: E402

PASS, REFUSED, WRONG, CRASH, NA = "pass", "refused", "wrong", "crash", "n/a"
RTOL, ATOL = 1e-7, 1e-9  # relative to the largest magnitude of PyTorch's result, per output


@dataclass
class Outcome:
    """What one OpInfo entry gave: its ``status`` and, unless it passed, why."""

    name: str
    status: str
    reason: str = ""
    seconds: float = 0.0


class _TooSlow(BaseException):
    """Raised by the alarm: a BaseException, so that no ``except Exception`` on the way swallows it."""


@contextlib.contextmanager
def _time_limit(seconds: float):
    """An alarm that interrupts the op after ``seconds`` (main thread, POSIX), and again every
    second after that: an alarm that lands where Python ignores exceptions (a weakref callback, a
    ``__del__``) must not leave the op running unbounded, as it once did in CI until the kernel
    killed the test run for memory."""

    def ring(*_):
        raise _TooSlow(f"took more than {seconds:g} s")

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def opinfo_ops() -> list:
    """PyTorch's OpInfo entries that support autograd."""
    from torch.testing._internal.common_methods_invocations import op_db

    return [op for op in op_db if op.supports_autograd]


def label(op) -> str:
    return f"{op.name}.{op.variant_test_name}" if op.variant_test_name else op.name


def _leaves(value) -> list:
    return torch.utils._pytree.tree_leaves(value)


def _is_tensor(x) -> bool:
    return isinstance(x, torch.Tensor)


def _differentiable(x) -> bool:
    return _is_tensor(x) and x.requires_grad and x.dtype == torch.float64


def _odd_layout(x) -> bool:
    return _is_tensor(x) and (x.layout != torch.strided or x.is_complex() or x.is_quantized)


def _good_samples(op, count: int) -> tuple[list, str]:
    """Up to ``count`` float64 samples with a float input needing a gradient (non-empty ones first),
    or the reason there is none."""
    try:
        samples = list(op.sample_inputs("cpu", torch.float64, requires_grad=True))
    except Exception as e:  # noqa: BLE001 (PyTorch's own sample generator)
        return [], f"PyTorch's samples fail in float64: {type(e).__name__}"
    usable, why = [], "no sample has a float64 input that needs a gradient"
    for s in samples:
        leaves = _leaves((s.input, s.args, s.kwargs))
        if any(_odd_layout(x) for x in leaves):
            why = "sparse, complex or quantized inputs"
            continue
        if any(_differentiable(x) for x in leaves):
            usable.append(s)
    usable.sort(
        key=lambda s: any(_is_tensor(x) and x.numel() == 0 for x in _leaves((s.input, s.args, s.kwargs)))
    )
    return usable[:count], why


def _program(op, sample):
    """The sample's call as a function of its differentiable tensors, and those tensors."""
    leaves, spec = torch.utils._pytree.tree_flatten((sample.input, sample.args, sample.kwargs))
    where = [i for i, x in enumerate(leaves) if _differentiable(x)]
    fixed = [x.detach() if _is_tensor(x) else x for x in leaves]

    def call(*xs):
        filled = list(fixed)
        for i, x in zip(where, xs):
            filled[i] = x
        inp, args, kwargs = torch.utils._pytree.tree_unflatten(filled, spec)
        out = sample.output_process_fn_grad(op.op(inp, *args, **kwargs))
        return tuple(t for t in _leaves(out) if _is_tensor(t))

    return call, [leaves[i].detach() for i in where]


def _is_random(call, inputs) -> bool:
    """Whether the call runs an ATen op that draws random numbers (OpInfo's wrappers reseed, so two
    runs with different seeds can agree)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    class Watch(TorchDispatchMode):
        seeded = False

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if torch.Tag.nondeterministic_seeded in getattr(func, "tags", ()):
                Watch.seeded = True
            return func(*args, **(kwargs or {}))

    with torch.no_grad(), Watch():
        call(*inputs)
    return Watch.seeded


def _close(ours: np.ndarray, theirs: np.ndarray) -> bool:
    if ours.shape != theirs.shape:
        return False
    if theirs.dtype.kind in "biu":
        return np.array_equal(ours, theirs)
    finite = np.isfinite(theirs)
    if not np.array_equal(np.isnan(ours), np.isnan(theirs)) or not np.array_equal(
        ours[~finite & ~np.isnan(theirs)], theirs[~finite & ~np.isnan(theirs)]
    ):
        return False
    scale = np.max(np.abs(theirs[finite]), initial=0.0)
    return bool(np.all(np.abs(ours[finite] - theirs[finite]) <= ATOL + RTOL * scale))


def _worst(ours: np.ndarray, theirs: np.ndarray) -> str:
    if ours.shape != theirs.shape:
        return f"shape {ours.shape} vs PyTorch's {theirs.shape}"
    with np.errstate(all="ignore"):
        gap = np.nan_to_num(np.abs(ours.astype(float) - theirs.astype(float)), nan=np.inf)
    k = np.unravel_index(np.argmax(gap), gap.shape) if gap.size else ()
    return f"at {tuple(int(i) for i in k)}: {ours[k]!r} vs PyTorch's {theirs[k]!r}"


def check_sample(op, sample) -> tuple[str, str]:
    """One sample: (status, reason)."""
    call, inputs = _program(op, sample)
    leaves = [x.clone().requires_grad_() for x in inputs]
    try:
        outs = call(*leaves)
    except Exception as e:  # noqa: BLE001 (PyTorch itself)
        return NA, f"PyTorch's own call fails on the sample: {type(e).__name__}"
    if not outs:
        return NA, "no tensor output"
    if any(_odd_layout(o) for o in outs):
        return NA, "sparse, complex or quantized outputs"
    if _is_random(call, inputs):
        return NA, "random (its values change with the seed)"
    try:
        program = from_torch(call, *inputs)
        xs = [symgrad.Tensor(x.numpy()) for x in inputs]
        ours = program(*xs)
        ours = ours if isinstance(ours, tuple) else (ours,)
        if len(ours) != len(outs):
            return WRONG, f"{len(ours)} outputs vs PyTorch's {len(outs)}"
        for k, (a, b) in enumerate(zip(ours, outs)):
            theirs = b.detach().numpy()
            if not _close(np.asarray(a.asnumpy()), theirs):
                return WRONG, f"value of output {k} {_worst(np.asarray(a.asnumpy()), theirs)}"
        rng = np.random.default_rng(0)
        picked = [k for k, o in enumerate(outs) if o.requires_grad and o.is_floating_point()]
        if not picked:
            return PASS, ""
        # in each output's dtype, as torch.autograd takes it (a float16 output's is rounded)
        cotangents = [
            rng.standard_normal(tuple(outs[k].shape)).astype(outs[k].detach().numpy().dtype) for k in picked
        ]
        try:
            expected = torch.autograd.grad(
                [outs[k] for k in picked],
                leaves,
                [torch.from_numpy(c) for c in cotangents],
                allow_unused=True,
            )
        except RuntimeError as e:
            return NA, f"PyTorch's own backward fails on the sample: {str(e).splitlines()[0][:120]}"

        def loss(*args):
            got = program(*args)
            got = got if isinstance(got, tuple) else (got,)
            total = None
            for k, c in zip(picked, cotangents):
                term = (got[k] * symgrad.Tensor(c)).sum()
                total = term if total is None else total + term
            return total

        grads = symgrad.grad(loss, tuple(range(len(xs))))(*xs)
        for i, (g, e) in enumerate(zip(grads, expected)):
            theirs = np.zeros(tuple(inputs[i].shape)) if e is None else e.numpy(force=True)
            if not _close(np.asarray(g.asnumpy(), dtype=np.float64), theirs):
                return WRONG, f"vjp for input {i} {_worst(np.asarray(g.asnumpy()), theirs)}"
    except SymgradError as e:
        if "dtype complex" in str(e):  # real in and out, complex inside (FFTs): values symgrad does not hold
            return NA, "complex values inside the op"
        return REFUSED, str(e).splitlines()[0][:300]
    except _TooSlow:
        raise
    except Exception as e:  # noqa: BLE001 (a bug: reported, not raised)
        return CRASH, f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
    return PASS, ""


def check_op(op, samples: int = 3, seconds: float = 30.0) -> Outcome:
    """One OpInfo entry, on up to ``samples`` of its float64 samples (all must pass)."""
    name, start = label(op), time.perf_counter()
    if torch.float64 not in op.supported_backward_dtypes("cpu"):
        return Outcome(name, NA, "no float64 autograd in PyTorch")
    chosen, why = _good_samples(op, samples)
    if not chosen:
        return Outcome(name, NA, why)
    statuses = []
    try:
        with _time_limit(seconds), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for s in chosen:
                statuses.append(check_sample(op, s))
                if statuses[-1][0] in (REFUSED, WRONG, CRASH):
                    break
    except _TooSlow as e:
        statuses.append((REFUSED, f"too slow: {e}"))
    elapsed = time.perf_counter() - start
    for status in (WRONG, CRASH, REFUSED, PASS, NA):
        for st, reason in statuses:
            if st == status:
                return Outcome(name, st, reason, elapsed)
    return Outcome(name, NA, "no sample", elapsed)


def summary(outcomes: list[Outcome]) -> str:
    """Counts, the percentage over the applicable ops, and every op that did not pass, by reason."""
    counts = collections.Counter(o.status for o in outcomes)
    applicable = len(outcomes) - counts[NA]
    lines = [
        f"OpInfo entries with autograd: {len(outcomes)}; applicable: {applicable}; pass: {counts[PASS]} "
        f"({100 * counts[PASS] / max(applicable, 1):.1f}%); refused: {counts[REFUSED]}; wrong: {counts[WRONG]}; "
        f"crash: {counts[CRASH]}; n/a: {counts[NA]}"
    ]
    for status in (WRONG, CRASH, REFUSED, NA):
        groups: dict[str, list[str]] = collections.defaultdict(list)
        for o in outcomes:
            if o.status == status:
                groups[_gist(o.reason)].append(o.name)
        if groups:
            lines.append(f"\n== {status} ({counts[status]})")
            for reason, names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                lines.append(f"- {reason} [{len(names)}]: {', '.join(sorted(names))}")
    return "\n".join(lines)


def _gist(reason: str) -> str:
    """A refusal's reason without the long list of supported names."""
    return reason.split("; ATen ops symgrad imports")[0]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--ops", nargs="*", help="only these OpInfo names (name or name.variant)")
    parser.add_argument("--verbose", action="store_true", help="one line per op as it finishes")
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    ops = [op for op in opinfo_ops() if not args.ops or label(op) in args.ops or op.name in args.ops]
    outcomes, start = [], time.perf_counter()
    for op in ops:
        outcomes.append(check_op(op, args.samples, args.seconds))
        if args.verbose:
            o = outcomes[-1]
            print(f"{o.status:8} {o.seconds:6.2f}s {o.name} {o.reason[:200]}", flush=True)
    print(summary(outcomes))
    print(f"\n{time.perf_counter() - start:.0f} s for {len(ops)} ops, {args.samples} sample(s) each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
