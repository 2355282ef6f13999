"""Gradients of ``symgrad.numpy`` and ``ops`` at ties and bounds, where conventions differ: MindSpore
2.10's, recorded here and compared live where MindSpore is installed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import symgrad
from symgrad import ops
from tests.numpy.helpers import V, library, needs_mindspore, same

# ----- ties and bounds, where conventions differ: name -> (scalar function, input, MindSpore 2.10's gradient) -----
TIE = np.array([1.0, 3.0, 3.0, 0.5, 4.0], np.float32)
KINKS = {
    "ops.max_over_all_axes_shares_a_tie": (lambda L, t: L.ops.max(t)[0], TIE[:3], [0, 0.5, 0.5]),
    "ops.max_along_an_axis_picks_the_first": (lambda L, t: L.ops.max(t, 0)[0], TIE[:3], [0, 1, 0]),
    "ops.min_along_an_axis_picks_the_first": (lambda L, t: L.ops.min(-t, 0)[0], TIE[:3], [0, -1, 0]),
    "ops.ArgMaxWithValue_picks_the_first": (lambda L, t: L.ops.ArgMaxWithValue()(t)[1], TIE[:3], [0, 1, 0]),
    "ops.amax_shares_a_tie": (lambda L, t: L.ops.amax(t), TIE[:3], [0, 0.5, 0.5]),
    "ops.clip_keeps_the_bounds": (lambda L, t: L.ops.clip(t, 1.0, 3.0).sum(), TIE, [1, 1, 1, 0, 0]),
    "ops.clamp_keeps_the_bounds": (lambda L, t: L.ops.clamp(t, 1.0, 3.0).sum(), TIE, [1, 1, 1, 0, 0]),
    "mnp.clip_halves_the_bounds": (lambda L, t: L.np.clip(t, 1.0, 3.0).sum(), TIE, [0.5, 0.5, 0.5, 0, 0]),
}


@pytest.mark.parametrize("name", sorted(KINKS))
def test_ties_and_bounds_as_mindspore(name):
    fn, x, expected = KINKS[name]
    L = library("symgrad")
    np.testing.assert_array_equal(ops.grad(lambda t: fn(L, t))(symgrad.Tensor(x)).asnumpy(), expected)


@needs_mindspore
@pytest.mark.parametrize("name", sorted(KINKS))
def test_ties_and_bounds_match_mindspore(name, ms):
    fn, x, _ = KINKS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = ms.ops.grad(lambda t: fn(ms, t))(ms.T(x))
    same(ops.grad(lambda t: fn(library("symgrad"), t))(symgrad.Tensor(x)), expected, rtol=0, atol=0)


def test_l2_normalize_below_epsilon():
    """Where sum(x^2) < epsilon the values match MindSpore's (x / sqrt(epsilon)); the gradient is the
    derivative of that, 1 / sqrt(epsilon), where MindSpore 2.10's bprop still projects as if unclamped."""
    x = symgrad.Tensor(np.array([0.3, 0.4], np.float32))
    normalize = ops.L2Normalize(epsilon=1.0)
    np.testing.assert_allclose(normalize(x).asnumpy(), [0.3, 0.4])
    np.testing.assert_allclose(
        ops.grad(lambda t: (normalize(t) * symgrad.Tensor(V[:2])).sum())(x).asnumpy(), V[:2]
    )
