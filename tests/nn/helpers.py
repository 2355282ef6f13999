"""Shared by the nn tests: programs run on symgrad and on real MindSpore (``run``), results
compared leaf by leaf (``assert_same``), the optimizers' NumPy reference, Hypothesis strategies.
"""

from __future__ import annotations

import importlib.util
import math
import runpy
import warnings

import numpy as np
import pytest
from hypothesis import strategies as st

needs_mindspore = pytest.mark.skipif(
    importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed (pip install mindspore)"
)

HEADER = """
import numpy as np
ms = __import__(LIB)
nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter
f32 = lambda *v: Tensor(np.array(v, np.float32))
"""


def run(lib: str, code: str, directory):
    """``result`` of ``code`` run against ``lib`` from a real file (MindSpore reads function source)."""
    path = directory / f"program_{lib}.py"
    path.write_text(HEADER.replace("LIB", repr(lib)) + code)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return runpy.run_path(str(path))["result"]


def arrays(value) -> list[np.ndarray]:
    """The leaves of nested tuples, lists and dicts as arrays, in order."""
    if isinstance(value, dict):
        return [a for k in sorted(value) for a in arrays(value[k])]
    if isinstance(value, tuple | list):
        return [a for item in value for a in arrays(item)]
    return [np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)]


def assert_same(got, expected, rtol=1e-5, atol=1e-6, what=""):
    got, expected = arrays(got), arrays(expected)
    assert len(got) == len(expected), what
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape, f"{what}[{i}]: shape {g.shape} != {e.shape}"
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"{what}[{i}]")
        else:
            np.testing.assert_array_equal(g, e, err_msg=f"{what}[{i}]")


def f32(value: float) -> float:
    """``value`` as MindSpore holds hyperparameters: rounded to float32."""
    return float(np.float32(value))


def reference(
    rule: str,
    w,
    grads,
    rates,
    decay=0.0,
    loss_scale: float = 1.0,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
    momentum: float = 0.0,
    dampening: float = 0.0,
    nesterov: bool = False,
    amsgrad: bool = False,
) -> np.ndarray:
    """The weights after the steps, by the textbook rule in float64 (``decay`` a number or one per step)."""
    w = np.array(w, np.float64)
    b1, b2, eps, mu, damp = (f32(v) for v in (beta1, beta2, eps, momentum, dampening))
    m, v, v_max, accum = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w), None
    b1_power = b2_power = np.float32(1)  # beta1^t and beta2^t: float32 Parameters in MindSpore
    for t, (g, lr) in enumerate(zip(grads, rates), start=1):
        lr, wd = f32(lr), f32(decay[t - 1] if isinstance(decay, list) else decay)
        g = np.asarray(g, np.float64)
        if rule == "adamwd":  # decoupled decay, no bias correction
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            w = w - lr * (m / (np.sqrt(v) + eps) + wd * w)
            continue
        g = (g + wd * loss_scale * w) / loss_scale
        if rule == "adam":
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            v_max = np.maximum(v_max, v)
            top = b1 * m + (1 - b1) * g if nesterov and not amsgrad else m
            b1_power, b2_power = b1_power * np.float32(b1), b2_power * np.float32(b2)
            lr_t = lr * math.sqrt(1 - float(b2_power)) / (1 - float(b1_power))
            w = w - lr_t * top / (np.sqrt(v_max if amsgrad else v) + eps)
        elif rule == "momentum":  # Nesterov with the accumulation before the step, as MindSpore's kernel
            before = np.zeros_like(w) if accum is None else accum
            accum = mu * before + g
            w = w - lr * (g + mu * before if nesterov else accum)
        elif rule == "sgd":
            if mu > 0:
                accum = g if accum is None else mu * accum + (1 - damp) * g
                g = g + mu * accum if nesterov else accum
            w = w - lr * g
    return w


# ----- properties against the NumPy reference -----
shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)
dtypes = st.sampled_from([np.float32, np.float64])


def tolerance(dtype) -> dict:
    return {"rtol": 1e-6, "atol": 1e-9} if dtype == np.float64 else {"rtol": 2e-5, "atol": 2e-6}
