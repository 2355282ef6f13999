"""Coverage of the MindSpore API that MindSpore's tutorials and MindFlow use (issue 42).

``tests/data/mindspore_api_usage.txt`` lists the public names of ``mindspore``, ``mindspore.nn``,
``mindspore.ops`` and ``mindspore.numpy`` those sources use, with the number of files using each
(``bench/mindspore_api_scan.py``). These tests hold symgrad's share of them above a floor, check
that every listed name symgrad has is a real callable, class or constant, and, where MindSpore is
installed, that its parameters and defaults are MindSpore 2.10's (differences listed with reasons).
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from pathlib import Path

import pytest

from symgrad import dtype as mstype

BENCH = Path(__file__).resolve().parents[2] / "bench" / "mindspore_api_coverage.py"
_spec = importlib.util.spec_from_file_location("mindspore_api_coverage", BENCH)
assert _spec is not None and _spec.loader is not None
coverage_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(coverage_module)

# weighted by use; raise them as names are added
FLOORS = {"mindspore": 99.2, "nn": 99.8, "ops": 97.1, "numpy": 100.0}
FLOOR_ALL = 98.8

# (module, name) -> why symgrad's parameters or defaults differ from MindSpore 2.10's
KNOWN_DIFFERENCES = {
    ("mindspore", "jit"): "capture_mode, jit_level, dynamic, fullgraph, backend (graph compiler options) "
    "are taken through **options and ignored: symgrad's jit traces (symgrad/jit.py, not ours)",
    ("mindspore", "Parameter"): "layerwise_parallel, parallel_optimizer, storage_format, device are "
    "parallel and device placement options, taken through **kwargs and ignored",
    ("mindspore", "get_context"): "the argument is named key, not attr_key (symgrad/context.py, not ours)",
    ("mindspore", "value_and_grad"): "no sens_param: MindSpore 2.10 accepts it and rejects True",
    ("ops", "value_and_grad"): "no sens_param: MindSpore 2.10 accepts it and rejects True",
    ("mindspore", "grad"): "sens_param comes before return_ids (MindSpore has return_ids first); both "
    "are keyword flags in every tutorial",
    ("ops", "ReduceSum"): "no skip_mode (an Ascend graph option)",
    ("ops", "matmul"): "takes transpose_a/transpose_b too (MatMul's attributes), its inputs named x, y",
    ("ops", "sum"): "axis/keepdims (MindSpore 2.10: dim/keepdim, dtype): positional calls agree",
    ("ops", "norm"): "no dtype keyword",
    ("ops", "softmax"): "no dtype keyword",
    ("ops", "div"): "no rounding_mode keyword",
    ("ops", "zeros_like"): "no dtype keyword",
    ("ops", "ones_like"): "no dtype keyword",
    ("ops", "logsumexp"): "axis/keep_dims (MindSpore 2.10: dim/keepdim): positional calls agree",
    ("ops", "transpose"): "perm (MindSpore 2.10: dims): positional calls agree",
    ("ops", "permute"): "perm (MindSpore 2.10: axis): positional calls agree",
    ("ops", "unsqueeze"): "axis (MindSpore 2.10: dim): positional calls agree",
    ("ops", "select"): "cond, x, y (MindSpore: condition, input, other): positional calls agree",
}
# Functions generated from the op table name their inputs x (and y) where MindSpore 2.10 writes
# input (and other, exponent, input_x): positional calls, the way tutorials call them, agree.
GENERATED_INPUT_NAMES = {"x", "y"}


def test_usage_list_is_well_formed():
    rows = coverage_module.read_usage()
    assert len(rows) > 300
    assert {m for m, _, _ in rows} == set(coverage_module.SYMGRAD_MODULES)
    assert all(n > 0 and name.isidentifier() for _, name, n in rows)
    assert len({(m, name) for m, name, _ in rows}) == len(rows), "a name is listed twice"


def test_coverage_is_at_least_the_floor():
    result = coverage_module.coverage()
    for module, cov in result.items():
        assert cov.percent >= FLOORS[module], (module, cov.percent, cov.missing[:10])
    weight = sum(c.weight for c in result.values())
    had = sum(c.weight_had for c in result.values())
    assert 100.0 * had / weight >= FLOOR_ALL
    table = coverage_module.table(result)
    assert "| mindspore.nn |" in table and "| all |" in table


def _had() -> list[tuple[str, str, object]]:
    out = []
    for module, name, _ in coverage_module.read_usage():
        if coverage_module.symgrad_has(module, name):
            mod = importlib.import_module(coverage_module.SYMGRAD_MODULES[module])
            out.append((module, name, getattr(mod, name)))
    return out


def test_every_name_symgrad_claims_is_real():
    for module, name, obj in _had():
        real = callable(obj) or isinstance(obj, mstype.DType | int | float) or inspect.ismodule(obj)
        assert real, f"{module}.{name} is {type(obj).__name__}, not a callable, class, dtype or constant"


def _parameters(obj) -> list[tuple[str, object]] | None:
    """(name, default) of each named parameter, ``self`` and *args/**kwargs left out; None where
    there is no signature to read or it is only (*args, **kwargs)."""
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        return None
    named = [p for p in params if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"]
    if not named and any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        return None  # MindSpore's decorators hide some signatures behind (*args, **kwargs)
    return [(p.name, _default(p.default)) for p in named]


def _default(value) -> object:
    if value is inspect.Parameter.empty:
        return "<required>"
    if type(value).__name__ in ("DType", "Float", "Int", "UInt", "Bool", "TensorType") or str(
        value
    ).startswith("mindspore."):
        return str(value).removeprefix("mindspore.").lower()  # Float32 and mindspore.float32 alike
    return value


def _differences(ms) -> dict[tuple[str, str], tuple]:
    modules = {
        "mindspore": ms,
        "nn": ms.nn,
        "ops": ms.ops,
        "numpy": importlib.import_module("mindspore.numpy"),
    }
    found = {}
    for module, name, obj in _had():
        theirs = getattr(modules[module], name, None)
        if theirs is None or inspect.ismodule(obj):
            continue
        ours_p, theirs_p = _parameters(obj), _parameters(theirs)
        if ours_p is None or theirs_p is None or ours_p == theirs_p:
            continue
        renamed_only = len(ours_p) == len(theirs_p) and all(
            a[1] == b[1] and (a[0] == b[0] or a[0] in GENERATED_INPUT_NAMES) for a, b in zip(ours_p, theirs_p)
        )
        if not renamed_only:
            found[(module, name)] = (ours_p, theirs_p)
    return found


def test_signatures_match_mindspore():
    ms = pytest.importorskip("mindspore", reason="compares against real MindSpore 2.10")
    found = _differences(ms)
    unexplained = {k: v for k, v in found.items() if k not in KNOWN_DIFFERENCES}
    assert not unexplained, "\n".join(
        f"{m}.{n}: symgrad {a} / MindSpore {b}" for (m, n), (a, b) in unexplained.items()
    )
    stale = sorted(set(KNOWN_DIFFERENCES) - set(found))
    assert not stale, f"listed as different but now the same (remove them from KNOWN_DIFFERENCES): {stale}"
