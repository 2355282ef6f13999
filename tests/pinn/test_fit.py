"""``fit``: one entry point for Adam, L-BFGS and Levenberg-Marquardt with one ``Stop`` and one ``History``.

``train``, ``lbfgs`` and ``levenberg_marquardt`` give bit-identical weights and histories through
``fit``; the losses they reach are those recorded from the loops before ``Stop``/``History`` existed
(commit 8cdb700, same problem, float64 NumPy kernels); ``max_seconds`` holds within 10% for each
method; a callback stops each; bad input is refused naming the argument.
"""

from __future__ import annotations

import importlib.util
import time

import numpy as np
import pytest

import symgrad
from symgrad import ops
from symgrad.pinn import (
    LBFGS,
    MLP,
    Adam,
    AdamMethod,
    History,
    LevenbergMarquardt,
    ResidualLoss,
    Stop,
    fit,
    lbfgs,
    levenberg_marquardt,
    train,
)

needs_scipy = pytest.mark.skipif(importlib.util.find_spec("scipy") is None, reason="L-BFGS and LM need SciPy")

# final losses recorded by running 8cdb700's train/lbfgs/levenberg_marquardt on _sine() (see module doc)
RECORDED = {
    "adam": (60, 0.465911189958653),
    "lbfgs": (49, 0.0068979272025303795),
    "lm": (36, 4.313616162696304e-06),
}


def _sine(points: int = 40):
    """u(x) ~ sin(3x) on [-1, 1] as a residual, plus u'(0) = 3 (two terms, 97 weights)."""
    net = MLP([1, 8, 8, 1], seed=0, dtype=symgrad.float64)
    fit_term = ResidualLoss(lambda x: net(x) - ops.sin(3 * x), ["x"], net, backend="numpy", name="fit")
    slope = ResidualLoss(
        lambda x: symgrad.grad(net)(x) - 3, ["x"], net, weight=0.5, backend="numpy", name="slope"
    )
    return net, [(fit_term, (np.linspace(-1, 1, points),)), (slope, (np.zeros(1),))]


def _flat(net) -> np.ndarray:
    return np.concatenate([p.asnumpy().ravel() for p in net.trainable_params()])


def _same(a: History, b: History) -> None:
    assert isinstance(a, History) and isinstance(b, History)
    assert list(a) == list(b) and a.terms == b.terms and a.damping == b.damping
    assert a.iterations == b.iterations and a.weights == b.weights


def test_adam_through_fit_is_train_bit_for_bit():
    net, terms = _sine()
    old = train(terms, Adam(net, lr=1e-2), 60, progress=False, balance_every=20)
    other, other_terms = _sine()
    new = fit(other_terms, AdamMethod(lr=1e-2, balance_every=20), other, stop=Stop(max_steps=60))
    _same(old, new)
    assert np.array_equal(_flat(net), _flat(other))
    steps, loss = RECORDED["adam"]
    # Adam's path moves with the BLAS's rounding (m / sqrt(v) of a gradient near zero is +-1 either
    # way): recorded on an AVX-512 CPU, it ends 0.3% lower on an AVX2 one; same-run equality is above
    assert len(new) == steps and new[-1] == pytest.approx(loss, rel=1e-2) and new.stopped == "60 steps"


@needs_scipy
def test_lbfgs_through_fit_is_lbfgs_bit_for_bit():
    net, terms = _sine()
    old = lbfgs(terms, net, max_iterations=40, progress=False)
    other, other_terms = _sine()
    new = fit(other_terms, LBFGS(), other, stop=Stop(max_steps=40))
    _same(old, new)
    assert np.array_equal(_flat(net), _flat(other)) and old.message == new.message
    evaluations, loss = RECORDED["lbfgs"]
    assert len(new.history) == evaluations and new.history[-1] == pytest.approx(loss, rel=1e-4)


@needs_scipy
def test_levenberg_marquardt_through_fit_is_levenberg_marquardt_bit_for_bit():
    net, terms = _sine()
    old = levenberg_marquardt(terms, net, max_iterations=40, progress=False)
    other, other_terms = _sine()
    new = fit(other_terms, LevenbergMarquardt(), other, stop=Stop(max_steps=40))
    _same(old, new)
    assert np.array_equal(_flat(net), _flat(other)) and new.message == "max_iterations reached"
    steps, loss = RECORDED["lm"]
    assert len(new) == steps and new[-1] == pytest.approx(loss, rel=1e-3)
    assert new == sorted(new, reverse=True)  # only steps that lower the loss


@pytest.mark.parametrize(
    "method", [AdamMethod(), LBFGS(ftol=0.0, gtol=0.0), LevenbergMarquardt()], ids=lambda m: m.name
)
def test_max_seconds_is_honoured_within_ten_percent(method):
    if not isinstance(method, AdamMethod) and importlib.util.find_spec("scipy") is None:
        pytest.skip("L-BFGS and LM need SciPy")
    if not isinstance(method, AdamMethod):
        importlib.import_module("scipy.optimize")  # a first import's time is not training's
    net, terms = _sine(2000)
    begun = time.perf_counter()
    history = fit(terms, method, net, stop=Stop(max_steps=10**9, max_seconds=1.0, loss_tol=0.0))
    took = time.perf_counter() - begun
    assert "max_seconds=1.0" in history.stopped, history.stopped
    assert 0.5 < history.seconds <= 1.1 and took <= 1.1 + 0.25, (history.seconds, took)  # + setup


@pytest.mark.parametrize("method", [AdamMethod(), LBFGS(), LevenbergMarquardt()], ids=lambda m: m.name)
def test_a_callback_that_returns_true_stops_each_method(method):
    if not isinstance(method, AdamMethod) and importlib.util.find_spec("scipy") is None:
        pytest.skip("L-BFGS and LM need SciPy")
    net, terms = _sine()
    seen: list[tuple[int, float, list[str]]] = []

    def third(state) -> bool:
        seen.append((state.step, state.loss, sorted(state.terms)))
        return state.step == 2

    history = fit(terms, method, net, stop=Stop(max_steps=100), callbacks=[third, lambda s: None])
    assert [s for s, _, _ in seen] == [0, 1, 2] and seen[0][2] == ["fit", "slope"]
    assert "stopped by" in history.stopped and seen[-1][1] == history[-1]


def test_bad_input_is_refused_naming_the_argument():
    net, terms = _sine()
    with pytest.raises(TypeError, match="fit: method must be"):
        fit(terms, "adam", net)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="fit: stop must be a Stop"):
        fit(terms, AdamMethod(), net, stop=10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="fit: stop.max_steps must be a whole number >= 1, got 0"):
        fit(terms, LevenbergMarquardt(), net, stop=Stop(max_steps=0))
    with pytest.raises(ValueError, match="fit: max_seconds must be a finite number >= 0 or None, got -1"):
        fit(terms, AdamMethod(), net, stop=Stop(max_steps=3, max_seconds=-1))
    with pytest.raises(ValueError, match="fit: loss_tol must be .* got nan"):
        fit(terms, AdamMethod(), net, stop=Stop(max_steps=3, loss_tol=float("nan")))
    with pytest.raises(ValueError, match="fit: Adam needs stop.max_steps"):
        fit(terms, AdamMethod(), net)
    with pytest.raises(TypeError, match="fit: callbacks must be a list of callables"):
        fit(terms, AdamMethod(), net, stop=Stop(max_steps=3), callbacks=[1])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="train: max_seconds must be"):  # the old names keep theirs
        train(terms, Adam(net), 3, progress=False, max_seconds=float("inf"))
    assert _flat(net).size == 97  # nothing trained


def test_the_old_result_names_are_the_one_history():
    from symgrad.pinn import LbfgsResult, LevenbergMarquardtResult

    assert LbfgsResult is History and LevenbergMarquardtResult is History
    history = History([3.0, 2.0])
    history.message = "why"
    assert history.stopped == "why" and history.history is history and history.history[-1] == 2.0
