"""Gradients reach the Parameter they belong to: every optimizer, training loop, balancing and
checkpoint matches loss terms' gradients to Parameters by identity, whatever the lists' orders.

The model: scalar Parameters p0..p3 (so a gradient given to the wrong one is silent) and terms
r = sum_{k in S} p_k f_k(x) - cos(x) over subsets S, each listing its Parameters in a random
order. The reference is NumPy's gradient of mean(r^2) by hand, keyed by Parameter name.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import Parameter, Tensor, ops
from symgrad.pinn import Adam, ResidualLoss, lbfgs, levenberg_marquardt, train, weighted_terms
from symgrad.pinn.checkpoints import load_checkpoint, save_checkpoint
from symgrad.pinn.training import total_loss

FEATURES = [lambda x: x, lambda x: x * x, ops.sin, lambda x: x * 0 + 1]
NUMPY_FEATURES = [lambda x: x, lambda x: x * x, np.sin, np.ones_like]
START = [0.3, -0.2, 0.5, 0.1]
X = np.linspace(-1.0, 1.0, 9)


def parameters() -> list[Parameter]:
    return [Parameter(Tensor(np.array(v)), name=f"p{k}") for k, v in enumerate(START)]


def term(params: list[Parameter], used: list[int], order: list[int], weight: float = 1.0) -> ResidualLoss:
    """r = sum_{k in used} p_k f_k(x) - cos(x), differentiated for ``used`` listed in ``order``."""

    def residual(x):
        return sum((params[k] * FEATURES[k](x) for k in used), -ops.cos(x))

    listed = [params[used[i]] for i in order]
    return ResidualLoss(residual, ("x",), listed, weight=weight, backend="numpy", name=f"S{used}")


def numpy_gradient(values: dict[str, float], used: list[int], weight: float = 1.0) -> dict[str, float]:
    r = sum(values[f"p{k}"] * NUMPY_FEATURES[k](X) for k in used) - np.cos(X)
    return {f"p{k}": weight * float(np.mean(2 * r * NUMPY_FEATURES[k](X))) for k in used}


subsets = st.lists(
    st.lists(st.sampled_from(range(4)), min_size=1, max_size=4, unique=True), min_size=1, max_size=3
)


@settings(max_examples=25)
@given(subsets=subsets, data=st.data())
def test_summed_gradients_go_to_each_parameter_by_identity(subsets, data):
    params = parameters()
    losses = []
    for used in subsets:
        order = data.draw(st.permutations(range(len(used))))
        losses.append((term(params, used, order), (X,)))
    held = data.draw(st.permutations(params))  # the optimizer's order, all four Parameters
    _, grads = total_loss(losses, held)
    expected = {p.name: 0.0 for p in params}
    for used in subsets:
        for name, g in numpy_gradient(dict(zip(expected, START)), used).items():
            expected[name] += g
    got = {p.name: float(g) for p, g in zip(held, grads)}
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-14)


@settings(max_examples=10)
@given(order=st.permutations(range(4)), held=st.permutations(range(4)))
def test_adam_steps_each_weight_by_its_own_gradient(order, held):
    params = parameters()
    losses = [(term(params, [0, 1, 2, 3], list(order)), (X,))]
    optimizer = Adam([params[k] for k in held], lr=0.01)
    train(losses, optimizer, steps=1, progress=False)
    gradient = numpy_gradient(dict(zip((p.name for p in params), START)), [0, 1, 2, 3])
    for p, start in zip(params, START):  # Adam's first step moves each weight by lr * sign(g)
        assert float(p.asnumpy()) == pytest.approx(start - 0.01 * np.sign(gradient[p.name]), abs=1e-9)


def run(method: str, reorder: bool) -> dict[str, float]:
    """Train a two-term problem (one term without p3, the way a PDE term leaves out a data term's
    coefficient) with the optimizer's and terms' lists in the canonical or a scrambled order."""
    params = parameters()
    first, second = ([2, 0, 1], [1, 0, 2, 3]) if reorder else ([0, 1, 2], [0, 1, 2, 3])
    losses = [
        (term(params, [0, 1, 2], first), (X,)),
        (term(params, [0, 1, 2, 3], second, weight=0.5), (X[::2],)),
    ]
    held = [params[k] for k in ([3, 1, 0, 2] if reorder else [0, 1, 2, 3])]
    if method == "adam":
        train(losses, Adam(held, lr=0.01), steps=20, progress=False)
    elif method == "balanced":
        history = train(losses, Adam(held, lr=0.01), steps=20, progress=False, balance_every=5)
        lbfgs(weighted_terms(losses, history.weights[-1][1]), held, max_iterations=5, progress=False)
    elif method == "lbfgs":
        lbfgs(losses, held, max_iterations=5, progress=False)
    else:
        levenberg_marquardt(losses, held, max_iterations=3, progress=False)
    return {p.name: float(p.asnumpy()) for p in params}


@pytest.mark.parametrize("method", ["adam", "balanced", "lbfgs", "levenberg_marquardt"])
def test_every_optimizer_gives_the_same_weights_whatever_the_lists_orders(method):
    canonical, scrambled = run(method, reorder=False), run(method, reorder=True)
    assert canonical["p3"] != START[3]  # the Parameter only one term uses moved
    assert scrambled == pytest.approx(canonical, rel=1e-9, abs=1e-12)


def test_a_terms_parameter_the_optimizer_lacks_is_an_error_naming_it():
    params = parameters()
    losses = [(term(params, [0, 1], [0, 1]), (X,)), (term(params, [2, 3], [0, 1]), (X,))]
    with pytest.raises(ValueError, match=r"differentiates Parameter\(s\) \['p2', 'p3'\]"):
        train(losses, Adam(params[:2]), steps=1, progress=False)
    for method in (lbfgs, levenberg_marquardt):
        with pytest.raises(ValueError, match=r"\['p2', 'p3'\], which the optimizer does not hold"):
            method(losses, params[:2], progress=False)


def test_a_parameter_listed_twice_is_refused():
    params = parameters()
    losses = [(term(params, [0, 1], [0, 1]), (X,))]
    with pytest.raises(ValueError, match=r"'p0' is listed twice"):
        Adam([*params, params[0]])
    with pytest.raises(ValueError, match=r"'p1' is listed twice"):
        lbfgs(losses, [params[1], *params], progress=False)


def test_a_checkpoint_restores_adam_moments_by_name_into_another_order(tmp_path):
    def problem(params):
        return [(term(params, [0, 1, 2, 3], [0, 1, 2, 3]), (X,))]

    params = parameters()
    optimizer = Adam(params, lr=0.01)
    train(problem(params), optimizer, steps=3, progress=False)
    save_checkpoint(tmp_path / "run.npz", params, optimizer)
    train(problem(params), optimizer, steps=2, progress=False)
    expected = {p.name: float(p.asnumpy()) for p in params}

    resumed = parameters()
    scrambled = Adam([resumed[k] for k in (2, 0, 3, 1)], lr=0.01)
    load_checkpoint(tmp_path / "run.npz", resumed, scrambled)
    train(problem(resumed), scrambled, steps=2, progress=False)
    assert {p.name: float(p.asnumpy()) for p in resumed} == pytest.approx(expected, rel=1e-13)

    other = [Parameter(Tensor(np.array(0.0)), name=n) for n in ("p0", "p1", "p2", "q")]
    with pytest.raises(ValueError, match="the state is for Parameters"):
        Adam(other).load_state(optimizer.state())
