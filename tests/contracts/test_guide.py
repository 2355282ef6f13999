"""The contract: every example of the guide runs with mindspore renamed symgrad and prints its numbers."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

import symgrad
from symgrad.tour.guide import EXAMPLES
from symgrad.tour.runner import check_example, run_example
from tests.conftest import GUIDE

# Lines the examples add to the guide's code: a variant the guide describes in words,
# and the "without stop_gradient" run the guide describes but does not list.
ADDED_LINES = {
    "get_all": {"self.grad_op = ops.GradOperation(get_all=True)"},
    "stop_gradient": {"doubled = GradNetWrtX(Net())(x, y)", "print(doubled)"},
}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.key for e in EXAMPLES])
def test_example_gives_the_documented_values(example):
    namespace, printed = run_example(example)
    rows = check_example(example, namespace)
    assert rows, "every example checks at least one value"
    for name, got, expected, ok in rows:
        assert ok, f"{example.key}: {name} = {got.asnumpy()} but the guide prints {expected}"
    assert printed.strip(), "the example prints its result"


@pytest.mark.skipif(not GUIDE.exists(), reason=f"the guide is not at {GUIDE}")
@pytest.mark.parametrize("example", EXAMPLES, ids=[e.key for e in EXAMPLES])
def test_example_code_is_the_guides_own(example):
    guide_lines = {line.strip() for line in GUIDE.read_text().splitlines()}
    added = ADDED_LINES.get(example.key, set())
    for line in example.code.splitlines():
        original = line.strip().replace("symgrad", "mindspore")
        if original and line.strip() not in added:
            assert original in guide_lines, f"{example.key}: line not in the guide: {line!r}"


def test_tuple_printing_matches_mindspore():
    namespace, printed = run_example(next(e for e in EXAMPLES if e.key == "weight"))
    assert printed.strip() == "(Tensor(shape=[1], dtype=Float32, value= [ 2.15359993e+01]),)"


def test_tensor_str_is_the_numpy_array():
    t = symgrad.Tensor([[1.5, 2.0]], dtype=symgrad.dtype.float32)
    assert str(t) == str(np.array([[1.5, 2.0]], np.float32))
    assert t.dtype == symgrad.dtype.float32 and str(t.dtype) == "Float32"


@pytest.mark.skipif(symgrad.context.gpu_available(), reason="a GPU is present, so no fallback warning")
def test_gpu_target_without_gpu_warns_once_and_runs_on_cpu():
    symgrad.context._warned.discard("GPU")
    with pytest.warns(RuntimeWarning, match="no CUDA GPU"):
        symgrad.context.set_context(mode=symgrad.context.GRAPH_MODE, device_target="GPU")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        symgrad.context.set_context(device_target="GPU")  # second time: silent
    assert symgrad.context.backend_name() == "numpy"
    symgrad.context.set_context(device_target="CPU")


def test_tour_command_checks_every_section():
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", "tour"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "all values match the guide" in done.stdout
    assert "[-sin(x1)]" in done.stdout


def test_tour_unknown_section_is_one_clear_line():
    done = subprocess.run(
        [sys.executable, "-m", "symgrad.cli", "tour", "nope"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "unknown section 'nope'" in done.stderr and "Traceback" not in done.stderr
