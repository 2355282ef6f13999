"""Training that stops when asked and never runs on through NaN: caps, early stops, callbacks, the
non-finite guard, Adam's arguments and schedules, L-BFGS's guard, atomic and checked checkpoints."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from symgrad import Parameter, Tensor, ops
from symgrad.pinn import (
    MLP,
    Adam,
    Heat,
    NonFiniteLoss,
    ResidualLoss,
    every,
    lbfgs,
    load_checkpoint,
    save_checkpoint,
    train,
)
from tests.pinn.helpers import xy_fit

HAS_SCIPY = importlib.util.find_spec("scipy") is not None


def _heat_terms(net, n=64, seed=0):
    problem = Heat()
    pde = ResidualLoss(problem.pde(net), problem.inputs, net, backend="numpy", name="pde")
    start = ResidualLoss(
        problem.conditions(net)[0].residual, problem.inputs, net, backend="numpy", name="initial"
    )
    return [
        (pde, problem.geometry.interior(n, seed=seed)),
        (start, problem.geometry.initial(n // 2, seed=seed)),
    ]


def _weights(net):
    return [p.asnumpy() for p in net.trainable_params()]


def test_history_keeps_each_term_and_why_training_stopped():
    net = MLP([2, 6, 1], seed=0)
    history = train(_heat_terms(net), Adam(net, lr=1e-2), 25, progress=False)
    assert len(history) == 25 and set(history.terms) == {"pde", "initial"}
    np.testing.assert_allclose(np.add(history.terms["pde"], history.terms["initial"]), history, rtol=1e-12)
    assert history.stopped == "25 steps" and history.seconds > 0


def test_training_stops_at_its_caps_and_tolerances():
    net = MLP([2, 6, 1], seed=0)
    terms = _heat_terms(net)
    timed = train(terms, Adam(net, lr=1e-3), 10**6, progress=False, max_seconds=0.3)
    assert "max_seconds=0.3" in timed.stopped and 1 < len(timed) < 10**6
    first = timed[0]
    reached = train(terms, Adam(net, lr=1e-2), 10**5, progress=False, loss_tol=first / 4)
    assert reached[-1] <= first / 4 < reached[-2] and "loss_tol" in reached.stopped
    flat = train(terms, Adam(net, lr=1e-3), 50, progress=False, grad_tol=1e9)
    assert len(flat) == 1 and "grad_tol" in flat.stopped
    with pytest.raises(ValueError, match="train: max_seconds must be a finite number >= 0"):
        train(terms, Adam(net), 5, progress=False, max_seconds=float("nan"))
    with pytest.raises(ValueError, match="train: steps must be a whole number"):
        train(terms, Adam(net), -1, progress=False)


def test_callbacks_run_every_k_steps_see_the_state_and_can_stop_or_resample():
    net = MLP([2, 6, 1], seed=0)
    terms = _heat_terms(net)
    seen, fresh = [], Heat().geometry.interior(64, seed=9)

    def look(state):
        seen.append((state.step, sorted(state.terms), len(state.grads)))
        if state.step == 5:
            state.losses[0] = (state.losses[0][0], fresh)

    history = train(terms, Adam(net, lr=1e-3), 12, progress=False, callbacks=[every(3, look)])
    assert [s[0] for s in seen] == [2, 5, 8, 11] and seen[0][1] == ["initial", "pde"] and seen[0][2] == 4
    assert history.terms["pde"][6] == pytest.approx(terms[0][0](*fresh)[0], rel=0.5)  # new points from step 6
    stopped = train(terms, Adam(net), 100, progress=False, callbacks=[lambda s: s.step == 3])
    assert len(stopped) == 4 and "stopped by" in stopped.stopped
    with pytest.raises(ValueError, match="every: k must be a whole number >= 1"):
        every(0, look)


def test_a_nan_point_stops_training_at_once_naming_the_term_and_input_with_weights_kept():
    net = MLP([2, 6, 1], seed=0)
    terms = _heat_terms(net)
    before = _weights(net)
    bad = terms[0][1].copy()
    bad[0, 3] = np.nan
    with pytest.raises(
        NonFiniteLoss,
        match="step 0: the loss of term 'pde' is nan; its points hold 1 non-finite value.* in 'x'",
    ):
        train([(terms[0][0], bad), terms[1]], Adam(net), 5, progress=False)
    for a, b in zip(before, _weights(net)):
        np.testing.assert_array_equal(a, b)


class Blowup:
    """An optimizer that multiplies every weight by 1e60 a step: the loss overflows at step 3."""

    def __init__(self, params):
        self.params, self.step_count = list(params), 0

    def step(self, grads):
        self.step_count += 1
        for p in self.params:
            p.set_data(p.asnumpy() * 1e60)

    def state(self):
        return {"count": self.step_count}

    def load_state(self, state):
        self.step_count = state["count"]


@pytest.mark.filterwarnings("ignore:overflow:RuntimeWarning", "ignore:invalid value:RuntimeWarning")
def test_divergence_stops_with_the_last_finite_weights_and_optimizer_state_restored():
    net = MLP([2, 6, 1], seed=0)
    blowup = ResidualLoss(lambda x, t: net(x, t), ("x", "t"), net, backend="numpy", name="blowup")
    opt = Blowup(net.trainable_params())
    after_update = []
    message = (
        "train: step 3: the loss of term 'blowup' is inf .*points are finite.*weights are back at step 2"
    )
    with pytest.raises(NonFiniteLoss, match=message):
        train(
            [(blowup, Heat().geometry.interior(32))],
            opt,
            10,
            progress=False,
            callbacks=[lambda s: after_update.append(_weights(net))],
        )
    assert opt.step_count == 2  # as before step 2's update, whose loss was the last finite one
    for a, b in zip(after_update[1], _weights(net)):  # the weights step 2 was evaluated at
        np.testing.assert_array_equal(a, b)


def test_adam_refuses_nonsense_and_nan_gradients_and_follows_a_schedule():
    net = MLP([2, 3, 1], seed=0)
    for kwargs, message in [
        ({"lr": -1e-3}, "lr must be a finite number > 0"),
        ({"lr": float("nan")}, "lr must be a finite number > 0"),
        ({"betas": (1.5, 0.999)}, "betas must be two numbers in \\[0, 1\\)"),
        ({"eps": 0.0}, "eps must be a finite number > 0"),
    ]:
        with pytest.raises(ValueError, match=message):
            Adam(net, **kwargs)
    opt = Adam(net, lr=1e-2)
    grads = [np.ones(p.shape) for p in net.params]
    grads[2] = grads[2].copy()
    grads[2].flat[0] = np.nan
    before = _weights(net)
    with pytest.raises(FloatingPointError, match="the gradient of 'W2' holds 1 NaN"):
        opt.step(grads)
    assert opt.step_count == 0 and all(np.array_equal(a, b) for a, b in zip(before, _weights(net)))
    rates = []
    scheduled = Adam(net, lr=lambda step: rates.append(step) or 0.1 / (1 + step))
    for _ in range(3):
        scheduled.step([np.ones(p.shape) for p in net.params])
    assert rates == [0, 1, 2]
    with pytest.raises(ValueError, match="the schedule gave lr=-1 at step 0"):
        Adam(net, lr=lambda step: -1).step([np.ones(p.shape) for p in net.params])


def test_adam_matches_the_per_weight_formula_with_flat_moments():
    w = Parameter(Tensor(np.array([1.0, -2.0])), name="w")
    b = Parameter(Tensor(np.array(0.5)), name="b")
    opt = Adam([w, b], lr=0.1)
    m = [np.zeros(2), np.zeros(())]
    v = [np.zeros(2), np.zeros(())]
    values = [np.array([1.0, -2.0]), np.array(0.5)]
    for step in range(1, 4):
        grads = [np.array([0.3, -0.1]) * step, np.array(2.0 / step)]
        opt.step(grads)
        for i, g in enumerate(grads):
            m[i] = 0.9 * m[i] + (1 - 0.9) * g
            v[i] = 0.999 * v[i] + (1 - 0.999) * g * g
            values[i] = values[i] - 0.1 * (m[i] / (1 - 0.9**step)) / (
                np.sqrt(v[i] / (1 - 0.999**step)) + 1e-8
            )
    np.testing.assert_allclose(w.asnumpy(), values[0], rtol=1e-15)
    np.testing.assert_allclose(b.asnumpy(), values[1], rtol=1e-15)


@pytest.mark.skipif(not HAS_SCIPY, reason="lbfgs uses SciPy's L-BFGS-B")
@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")
def test_lbfgs_stops_on_nan_with_the_last_finite_weights_and_on_its_targets():
    net = MLP([2, 6, 1], seed=0)
    terms = _heat_terms(net)
    bad = terms[0][1].copy()
    bad[1, 0] = np.inf
    before = _weights(net)
    with pytest.raises(NonFiniteLoss, match="lbfgs: evaluation 0.*term 'pde'.*in 't'"):
        lbfgs([(terms[0][0], bad)], net, progress=False)
    assert all(np.array_equal(a, b) for a, b in zip(before, _weights(net)))
    first = terms[0][0](*terms[0][1])[0] + terms[1][0](*terms[1][1])[0]
    reached = lbfgs(terms, net, progress=False, loss_tol=first / 10)
    assert "loss_tol" in reached.message and reached.history[-1] <= first / 10
    assert set(reached.terms) == {"pde", "initial"} and len(reached.terms["pde"]) == len(reached.history)
    stopped = lbfgs(terms, net, progress=False, callback=lambda it, loss: it == 2)
    assert stopped.iterations == 2 and "callback" in stopped.message


# ----- checkpoints -----
def test_a_checkpoint_is_written_where_asked_and_reloads_bit_for_bit(tmp_path):
    net = MLP([2, 4, 1], seed=0)
    opt = Adam(net, lr=1e-2)
    train(_heat_terms(net), opt, 3, progress=False)
    path = save_checkpoint(tmp_path / "run.ckpt", net, opt)
    assert path == tmp_path / "run.ckpt" and path.exists() and not list(tmp_path.glob("*.npz"))
    other = MLP([2, 4, 1], seed=5)
    other_opt = Adam(other, lr=1.0)
    load_checkpoint(path, other, other_opt)
    assert all(np.array_equal(a, b) for a, b in zip(_weights(net), _weights(other)))
    assert other_opt.step_count == 3 and other_opt.lr == 1e-2 and np.array_equal(other_opt.m, opt.m)


def test_a_failed_save_leaves_the_old_checkpoint_whole(tmp_path, monkeypatch):
    net = MLP([2, 4, 1], seed=0)
    path = save_checkpoint(tmp_path / "run.npz", net)
    old = path.read_bytes()

    def fail(file, **arrays):
        file.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(np, "savez", fail)
    with pytest.raises(OSError, match="No space left"):
        save_checkpoint(path, MLP([2, 4, 1], seed=1))
    assert path.read_bytes() == old and [p.name for p in tmp_path.iterdir()] == ["run.npz"]


def test_a_load_into_another_shape_changes_nothing_and_bad_files_are_named(tmp_path):
    small, big = MLP([2, 4, 1], seed=0), MLP([2, 5, 1], seed=1)
    path = save_checkpoint(tmp_path / "small.npz", small)
    before = _weights(big)
    with pytest.raises(
        ValueError,
        match="holds 'W1' with shape \\(2, 4\\), the network's has shape \\(2, 5\\); nothing was loaded",
    ):
        load_checkpoint(path, big)
    assert all(np.array_equal(a, b) for a, b in zip(before, _weights(big)))
    np.save(tmp_path / "one.npy", np.zeros(3))
    with pytest.raises(ValueError, match="is a single array, not a checkpoint"):
        load_checkpoint(tmp_path / "one.npy", small)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="load_checkpoint: cannot read"):
        load_checkpoint(tmp_path / "junk.npz", small)
    twins = [Parameter(Tensor(np.zeros(2)), name="w"), Parameter(Tensor(np.ones(2)), name="w")]
    with pytest.raises(ValueError, match="several Parameters are named \\['w'\\]"):
        save_checkpoint(tmp_path / "twins.npz", twins)


def test_training_a_network_with_a_coefficient_to_learn_recovers_it():
    """An inverse problem in miniature: u = exp(-D pi^2 t) sin(pi x) observed, D learned."""
    true_d = 0.1
    D = Parameter(Tensor(np.array(0.5)), name="D")
    u = lambda x, t: ops.exp(-D * np.pi**2 * t) * ops.sin(np.pi * x)  # noqa: E731 - the exact family
    rng = np.random.default_rng(0)
    x, t = rng.uniform(0, 1, 50), rng.uniform(0, 1, 50)
    observed = np.exp(-true_d * np.pi**2 * t) * np.sin(np.pi * x)
    fit = ResidualLoss(lambda x, t, y: u(x, t) - y, ("x", "t", "y"), [D], backend="numpy")
    history = train([(fit, (x, t, observed))], Adam([D], lr=0.05), 2000, progress=False, loss_tol=1e-14)
    assert float(D.asnumpy()) == pytest.approx(true_d, abs=1e-5) and history[-1] < 1e-10


def test_lbfgs_ends_inside_an_iteration_at_max_seconds_with_the_last_iterate():
    """Every evaluation takes 0.15 s and the line searches take several: the run ends within
    max_seconds and a tenth, and the weights and the last loss recorded are the same iterate's."""
    import time

    from symgrad import Parameter, Tensor
    from symgrad.pinn import lbfgs

    class Slow:  # (w0 - 1)^2 + 100 (w1 - w0^2)^2, Rosenbrock: line searches of several evaluations
        params = [Parameter(Tensor(np.array([-1.2, 1.0])), name="w")]
        pause = 0.0

        def __call__(self, *points):
            time.sleep(self.pause)
            a, b = np.asarray(self.params[0].asnumpy(), np.float64)
            value = (a - 1) ** 2 + 100 * (b - a * a) ** 2
            return value, [np.array([2 * (a - 1) - 400 * a * (b - a * a), 200 * (b - a * a)])]

    slow = Slow()
    lbfgs([(slow, ())], slow.params, max_iterations=1, progress=False)  # the thread-pool set-up, once
    slow.params[0].set_data(np.array([-1.2, 1.0]))
    slow.pause = 0.15
    begun = time.perf_counter()
    result = lbfgs([(slow, ())], slow.params, max_seconds=1.0, progress=False)
    assert time.perf_counter() - begun < 1.1 + 0.15  # at most the one evaluation under way
    assert "max_seconds=1.0" in result.message
    assert slow(())[0] == pytest.approx(result.history[-1], rel=1e-12)


def test_lbfgs_says_why_the_line_search_ended_it():
    """SciPy 1.15+ ends a run whose line search finds no lower loss with the bare "ABNORMAL: ";
    lbfgs says what that means (a fit of 12 points by 25 weights, down to rounding errors)."""
    net, term = xy_fit()
    points = np.random.default_rng(0).uniform(-1, 1, (2, 12))
    done = lbfgs([(term, points)], net, 10**6, ftol=0.0, gtol=0.0, max_seconds=30, progress=False)
    assert done.history[-1] < 1e-20, done.history[-1]
    assert done.message == "ABNORMAL: the line search found no lower loss along L-BFGS's direction"
