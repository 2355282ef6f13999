"""``solve``: the default recipe picks methods from the problem's size and says why; it reaches the
closed-form solution of small problems without hand tuning."""

from __future__ import annotations

import importlib
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad.pinn import MLP, ResidualLoss, TimeDomain, grad, initial, predict, solve
from symgrad.pinn.training import gradient_norm
from tests.pinn.helpers import xy_fit

solve_module = importlib.import_module("symgrad.pinn.solve")
lm_choice = importlib.import_module("symgrad.pinn.lm_choice")


def decay_problem(weight: float = 1.0, scale: float = 1.0):
    """u' = -u on [0, 2], u(0) = 1: u = exp(-t); the equation's residual times ``scale``, the
    initial value's term weighted ``weight``."""
    time = TimeDomain(0, 2)
    net = MLP([1, 12, 1], seed=3)
    start = initial(net, time, 1.0)
    ode = ResidualLoss(lambda t: scale * (grad(net, 0)(t) + net(t)), ("t",), net, backend="numpy")
    terms = [
        (ode, time.interior(64, "sobol")),
        (start.loss(net, weight=weight, backend="numpy"), start.sample(1)),
    ]
    return net, terms


def test_small_networks_get_levenberg_marquardt_and_reach_the_solution():
    net, terms = decay_problem()
    result = solve(terms, net, seconds=6)
    methods = [stage[0] for stage in result.stages]
    assert methods[:2] == ["Adam", "Levenberg-Marquardt"], result
    assert any(c.startswith("Levenberg-Marquardt: 37 weights, 65 residuals, about") for c in result.choices)
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-4
    assert result.loss == result.history[-1] and "solve: loss" in str(result)


def test_large_networks_get_lbfgs_and_terms_far_apart_get_balanced(monkeypatch):
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    net, terms = decay_problem(scale=1e-2)
    result = solve(terms, net, seconds=4)
    methods = [stage[0] for stage in result.stages]
    # t is an input: growing time windows first (tests/pinn/test_time_windows.py), then every time
    assert methods[:3] == ["Adam", "L-BFGS on time windows", "L-BFGS"], result
    assert any(
        "37 weights and 65 residuals make a dense Levenberg-Marquardt step too costly" in c
        for c in result.choices
    )
    assert any(c.startswith("balance the terms by gradient norms") for c in result.choices)
    assert (
        result.weights is not None
        and len(result.weights) == 2
        and all(math.isfinite(w) for w in result.weights)
    )


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"seconds": 0}, ValueError, "seconds must be a finite number > 0, got 0"),
        ({"seconds": True}, ValueError, "seconds must be a finite number > 0, got True"),
        ({"warmup": 1.0}, ValueError, "warmup must be a fraction in \\[0, 1\\), got 1.0"),
        ({"balance_ratio": 0.5}, ValueError, "balance_ratio must be a number >= 1"),
        ({"min_steps": 2.5}, ValueError, "min_steps must be a whole number >= 1, got 2.5"),
        ({"progress": "yes"}, TypeError, "progress must be True or False, got 'yes'"),
    ],
)
def test_solve_refuses_bad_arguments_by_name(kwargs, error, message):
    net, terms = decay_problem()
    with pytest.raises(error, match=f"solve: {message}"):
        solve(terms, net, **kwargs)


def test_solve_refuses_losses_that_are_not_pairs_and_params_without_weights():
    net, terms = decay_problem()
    with pytest.raises(TypeError, match="solve: losses\\[1\\] must be a \\(loss, points\\) pair"):
        solve([terms[0], terms[1][0]], net)
    with pytest.raises(TypeError, match="solve: losses must be a list of \\(loss, points\\) pairs, got str"):
        solve("ode", net)
    with pytest.raises(ValueError, match="solve: no loss terms"):
        solve([], net)
    with pytest.raises(ValueError, match="solve: params holds no trainable Parameters"):
        solve(terms, [])


def test_a_time_too_short_for_any_step_is_said_and_leaves_the_weights():
    """Nothing silent: where the first measurement takes the whole budget, the result says that no
    step was taken (its loss is NaN) and the weights are unchanged."""
    net, terms = decay_problem()
    before = [p.asnumpy().copy() for p in net.trainable_params()]
    result = solve(terms, net, seconds=1e-6)
    assert not result.stages and math.isnan(result.loss), result
    assert any(c.startswith("no optimizer step fitted in the 1e-06 s given") for c in result.choices), result
    assert all(np.array_equal(b, p.asnumpy()) for b, p in zip(before, net.trainable_params()))


def test_the_time_given_is_kept_within_a_tenth():
    """L-BFGS (forced) converges early, is restarted while time is left, and the whole run ends
    within seconds + 10%; the restart is in the choices."""
    net, terms = decay_problem()
    for term, points in terms:  # the kernels' set-up is not what is measured
        term(*points)
    result = solve(terms, net, seconds=3, min_steps=10**6)
    assert 3 * 0.9 < result.seconds < 3 * 1.1 or any("left unused" in c for c in result.choices), result
    assert result.seconds < 3 * 1.1, result
    assert any(c.startswith("L-BFGS: a Levenberg-Marquardt step") for c in result.choices), result


def test_terms_the_caller_weighted_keep_their_weights():
    """Gradient norms 10^4 apart, but the caller weighted the initial value: no balancing."""
    net, terms = decay_problem(weight=1e4)
    result = solve(terms, net, seconds=2)
    assert not any(c.startswith("balance the terms") for c in result.choices), result
    assert any(
        c.startswith("no balancing: the caller weighted initial; those weights are kept")
        for c in result.choices
    ), result
    assert result.weights is None


def test_levenberg_marquardt_after_balancing_keeps_the_terms_own_weights_and_reaches_exp():
    """Terms 10^4 apart are balanced for Adam; Levenberg-Marquardt then minimises the caller's sum,
    and u reaches exp(-t) (the closed form)."""
    net, terms = decay_problem(scale=1e-2)
    result = solve(terms, net, seconds=6)
    assert any(c.startswith("balance the terms by gradient norms") for c in result.choices), result
    assert any(c.startswith("Levenberg-Marquardt on the terms' own weights") for c in result.choices), result
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-4
    own = sum(term(*points)[0] for term, points in terms)  # the loss at the end is the caller's sum
    assert own == pytest.approx(result.loss, rel=1e-6, abs=1e-14)


def test_adam_goes_on_while_the_kernels_compile(monkeypatch):
    """While a fast kernel is still compiling, the warm-up goes past its share (up to 40% of the
    time) and says so; once compiled it ends."""
    import time

    net, terms = decay_problem()
    ready = time.perf_counter() + 1.5
    monkeypatch.setattr(solve_module, "_compiling", lambda losses: time.perf_counter() < ready)
    monkeypatch.setattr(solve_module, "_wait_for_kernels", lambda *args: None)  # tested below
    result = solve(terms, net, seconds=5)
    adam = result.stages[0]
    assert adam[0] == "Adam" and 0.9 < adam[2] < 2.0, result  # the warm-up alone: 0.75 s, then until ready
    assert any("while the C kernels compiled" in c for c in result.choices), result


class _Compiling:
    """A term whose fast kernel is 'compiling' until waited for (0.5 s)."""

    def __init__(self, term):
        self.term_inside, self.done, self.waits = term, False, []
        self.params, self.name = term.params, term.name

    @property
    def compiling(self) -> bool:
        return not self.done

    def wait_until_compiled(self, timeout=None):
        import time

        self.waits.append(timeout)
        time.sleep(0.5)
        self.done = True
        return "c"

    def __call__(self, *points):
        return self.term_inside(*points)


def test_solve_waits_for_the_kernels_compiling_before_its_first_evaluation():
    """While a term's kernel compiles, solve waits (at most 40% of the time) before its first
    evaluation, and says how long."""
    net, terms = decay_problem()
    slow = _Compiling(terms[0][0])
    result = solve([(slow, terms[0][1]), terms[1]], net, seconds=3)
    assert slow.waits == [pytest.approx(1.2, abs=0.05)], slow.waits  # 40% of 3 s
    assert any(c.startswith("waited 0.5 s for the C kernels to compile") for c in result.choices), result
    assert result.seconds < 3 * 1.1


def test_a_compiling_term_says_so_until_its_kernel_is_ready():
    pytest.importorskip("scipy")
    net, terms = decay_problem()
    ode = ResidualLoss(lambda t: grad(net, 0)(t) + 2 * net(t), ("t",), net)  # backend "auto"
    ode.wait_until_compiled()
    assert ode.compiling is False and terms[0][0].compiling is False


def test_a_levenberg_marquardt_step_is_timed_where_its_jacobian_is_built_else_estimated():
    net, terms = decay_problem()
    assert lm_choice.jacobian_seconds(terms) is None  # not built: timing would wait on the compiler
    for term, _ in terms:
        term.prepare_jacobian()
    for term, points in terms:
        term.jacobian(*points)  # waits for the background build
    assert all(term.jacobian_ready for term, _ in terms)
    seconds = lm_choice.jacobian_seconds(terms)
    assert seconds is not None and 0 < seconds < 5
    choices: list[str] = []
    assert lm_choice.use_levenberg_marquardt(terms, net.trainable_params(), 10.0, 40, 1e-3, choices)
    assert "(its Jacobian timed)" in choices[-1], choices


def test_a_jacobian_is_timed_on_its_second_call_not_its_first():
    """The first call pays once for its memory; a step's estimate from it was 2x too long."""
    import time

    class Term:
        jacobian_ready = True

        def __init__(self):
            self.calls = 0

        def jacobian(self, *points):
            self.calls += 1
            time.sleep(0.3 if self.calls == 1 else 0.01)

    term = Term()
    seconds = lm_choice.jacobian_seconds([(term, (np.zeros(3),))])
    assert term.calls == 2 and seconds is not None and 0.01 <= seconds < 0.2, seconds


def test_a_causal_loss_is_trained_by_adam_alone_and_the_choice_says_why():
    """CausalLoss's weights change from call to call: L-BFGS's line search once broke on them
    (ABNORMAL, then a diverged net on Lotka-Volterra), so solve keeps to Adam and says so."""
    from symgrad.pinn import CausalLoss

    net, terms = decay_problem()
    ode, points = terms[0]
    terms[0] = (CausalLoss(ode, slabs=4), points)
    start = sum(term(*p)[0] for term, p in terms)
    result = solve(terms, net, seconds=3)
    assert [stage[0] for stage in result.stages] == ["Adam"], result
    assert any(
        c.startswith("Adam for the whole time: the weights inside residual (causal)") for c in result.choices
    )
    assert result.loss < start / 10 and result.seconds < 3 * 1.1


def test_lbfgs_restarts_are_one_stage_and_stop_once_they_gain_nothing(monkeypatch):
    """A small problem that converges to rounding errors (u = x y on 12 points by 25 weights;
    Levenberg-Marquardt ruled out): L-BFGS is restarted while a run lowers the loss by more than
    RESTART_GAIN, its runs are one stage and one line of choices (they were 1,092 stages and as
    many lines in 6 s before), and it stops with the time left unused."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "MARCH_SHARE", 0)  # no time windows
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.resampling"), "SPREAD", 10**9)  # no new points
    net, term = xy_fit()
    points = np.random.default_rng(0).uniform(-1, 1, (2, 12))
    term(*points)  # the kernel built before the clock starts
    result = solve([(term, points)], net, seconds=6)
    assert [stage[0] for stage in result.stages] == ["Adam", "L-BFGS"], result
    assert sum("restarted" in c for c in result.choices) <= 1 and len(result.choices) <= 5, result
    assert result.choices[-1].startswith("L-BFGS stopped (") and "left unused" in result.choices[-1]
    assert result.stages[1][1] == len(result.history) - result.stages[0][1]  # every run's steps counted
    assert result.loss < 1e-20 and result.seconds < 6, result


@pytest.mark.parametrize("ending", [False, True])
def test_a_failed_background_build_warns_unless_the_program_is_ending(monkeypatch, ending):
    """A fast kernel that fails to build leaves the NumPy kernel and says why; but where the program
    is ending (its exit removes the build's temporary folder under the compiler) it says nothing."""
    import threading
    import warnings

    net, terms = decay_problem()
    ode = terms[0][0]

    def fail(backend):
        raise RuntimeError("cc1: fatal error: kernel.c: No such file or directory")

    class Main:
        def is_alive(self) -> bool:
            return not ending

    monkeypatch.setattr(ode, "_build", fail)
    monkeypatch.setattr(threading, "main_thread", Main)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ode._compile_fast("c")
    said = [str(w.message) for w in caught]
    assert said == (
        []
        if ending
        else [
            "ResidualLoss: the c kernel failed to build (cc1: fatal error: kernel.c: No such file or directory); "
            "staying on NumPy"
        ]
    )


@pytest.mark.parametrize("weight, scale", [(1.0, 1.0), (1e-10, 1e-5), (1e6, 1e3)])
def test_lbfgs_in_solve_converges_alike_in_any_units_of_the_loss(monkeypatch, weight, scale):
    """solve's L-BFGS judges convergence in units of the loss (``slow_loss.Slow``), not by SciPy's
    absolute tests: in units of 1e-10, its gradient test stopped L-BFGS after one step (error 0.94)
    and its step test (``ftol * max(loss, 1)``) left 4e-3; DeepXDE's Helmholtz with a hole stopped
    at a loss of 6.4e-11 with 107 of 150 s left. The same problem in units of 1e-10, 1 and 1e12."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "MARCH_SHARE", 0)  # no time windows
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.resampling"), "SPREAD", 10**9)  # no new points
    net, terms = decay_problem(weight=weight, scale=scale)
    result = solve(terms, net, seconds=4)
    assert [stage[0] for stage in result.stages] == ["Adam", "L-BFGS"], result
    assert result.stages[1][1] > 100, result  # L-BFGS's steps
    t = np.linspace(0, 2, 40)
    assert np.abs(predict(net, [t]) - np.exp(-t)).max() < 1e-4, result


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(1e-3, 1e6), min_size=2, max_size=6).flatmap(
        lambda w: st.tuples(st.just(w), st.lists(st.floats(1e-3, 1e3), min_size=len(w), max_size=len(w)))
    )
)
def test_balanced_weights_kept_for_lbfgs_spread_at_most_spread_growth_times_the_start(pair):
    """Whatever Adam's balancing left, the weights L-BFGS keeps spread at most SPREAD_GROWTH times
    the start's (a met term's weight grows without bound); the least weight and every weight under
    the bound are unchanged, and a choice says where any was held."""
    weights, start = pair
    choices: list[str] = []
    kept = solve_module.bounded_spread(weights, start, choices)
    bound = solve_module.SPREAD_GROWTH * max(start) / min(start)
    assert max(kept) / min(kept) <= bound * (1 + 1e-12)
    assert min(kept) == min(weights) and all(k <= w for k, w in zip(kept, weights))
    limit = bound * min(weights)
    assert [k for k, w in zip(kept, weights) if w <= limit] == [w for w in weights if w <= limit]
    assert bool(choices) == (max(weights) > limit)


def test_lbfgs_after_balanced_adam_keeps_the_bounded_weights(monkeypatch):
    """The decay problem with its equation scaled down 100x is balanced during Adam (its terms'
    gradient norms 7e4 apart, Adam's weights 7e3 apart after 3 s); with SPREAD_GROWTH set to 1e-3,
    so that the bound must act, the weights L-BFGS minimises with are held to 70x apart and say so."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 10)
    monkeypatch.setattr(solve_module, "SPREAD_GROWTH", 1e-3)
    net, terms = decay_problem(scale=1e-2)
    norms = [gradient_norm(term(*points)[1]) for term, points in terms]
    result = solve(terms, net, seconds=3)
    assert any(c.startswith("balance the terms by gradient norms") for c in result.choices), result
    assert any(c.startswith("the balanced weights spread") for c in result.choices), result
    assert result.weights is not None
    spread = max(result.weights) / min(result.weights)
    assert spread == pytest.approx(1e-3 * max(norms) / min(norms), rel=1e-9), (result.weights, norms)
