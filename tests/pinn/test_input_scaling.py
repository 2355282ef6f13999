"""First layers trained on scaled inputs (``input_scaling``): which layers qualify, the same function,
gradients against central finite differences, Jacobian columns against the gradient, and ``solve``
leaving the network's own weights at what it trained."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from symgrad import ops
from symgrad.parameter import flatten, parameters_of, unflatten
from symgrad.pinn import MLP, ModifiedMLP, ResidualLoss, grad, solve
from symgrad.pinn.input_scaling import SATURATED, rescaled, scaled_first_layers
from symgrad.pinn.training import loss_value, total_loss


def terms_on(net, feed, names, spans, n: int = 40, seed: int = 0):
    """A residual of the net's first derivative and value, fed ``feed(*inputs)``, on random points
    of the boxes ``spans`` (their ends among them); and a value term at the lower corner."""
    rng = np.random.default_rng(seed)
    points = np.array([[lo, hi, *rng.uniform(lo, hi, n - 2)] for lo, hi in spans])

    def residual(*xs):
        u = net(*feed(*xs))
        return grad(lambda *ys: net(*feed(*ys)), 0)(*xs) + u * u - ops.cos(xs[0])

    pde = ResidualLoss(residual, names, net, backend="numpy", name="pde")
    corner = np.array([[lo] for lo, _ in spans])
    value = ResidualLoss(lambda *xs: net(*feed(*xs)) - 1.0, names, net, backend="numpy", name="value")
    return [(pde, points), (value, corner)]


@settings(max_examples=12, deadline=None)
@given(
    inputs=st.integers(1, 3),
    width=st.integers(2, 6),
    reach=st.floats(4.0, 200.0),
    order=st.permutations([0, 1, 2]),
    seed=st.integers(0, 3),
)
def test_rescaled_terms_are_the_same_function_with_chain_rule_gradients(inputs, width, reach, order, seed):
    net = MLP([inputs, width, width, 1], "tanh", seed=seed)
    order = [i for i in order if i < inputs]  # the net takes the inputs in this order
    names = tuple(f"x{i}" for i in range(inputs))
    spans = [(-0.5, 0.5)] * inputs
    spans[order[0]] = (reach / 3, reach)  # the first fed input, far enough to saturate (assumed):
    assume(np.sqrt(np.mean(net.W1._value()[0] ** 2)) * reach > 1.01 * SATURATED)
    losses = terms_on(net, lambda *xs: [xs[i] for i in order], names, spans, seed=seed)
    params = parameters_of(net)
    layers, said = scaled_first_layers(losses, params)
    assert [layer.W for layer in layers] == [net.W1] and len(said) == 1
    assert names[order[0]] in said[0] and f"{reach:.3g}" in said[0]
    before, grads_before = total_loss(losses, params)
    terms, phi = rescaled(losses, params, layers)
    value, grads = total_loss(terms, phi)
    assert value == pytest.approx(before, rel=1e-12)
    for p, q, g, h in zip(params, phi, grads_before, grads):
        if p is not net.W1 and p is not net.b1:
            assert q is p  # W = (s W) / s to rounding: the other gradients agree to it
            np.testing.assert_allclose(h, g, rtol=1e-10, atol=1e-13)
    theta = flatten(phi)
    direction = np.random.default_rng(seed).standard_normal(theta.size)
    step = 1e-6
    unflatten(phi, theta + step * direction)
    up = loss_value(terms)
    unflatten(phi, theta - step * direction)
    down = loss_value(terms)
    unflatten(phi, theta)
    slope = np.concatenate([g.ravel() for g in grads]) @ direction
    assert (up - down) / (2 * step) == pytest.approx(slope, rel=1e-5, abs=1e-9)
    for term, points in terms:
        r, jac = term.jacobian(points)
        own = np.concatenate([np.ravel(g) for g in term(points)[1]])
        np.testing.assert_allclose(2 * jac.T @ r, own, rtol=1e-10, atol=1e-12)
        V = layers[0].V
        partial = term.jacobian(points, params=[V])[1]
        np.testing.assert_array_equal(partial, jac[:, : V.size])


@pytest.mark.parametrize(
    "feed",
    [
        lambda t: [ops.sin(t)],  # the net sees sin t, not t
        lambda t: [t / 10.0],  # the user scaled the input already
    ],
)
def test_a_net_fed_anything_but_its_raw_inputs_is_left_alone(feed):
    net = MLP([1, 4, 1], "tanh")
    losses = terms_on(net, feed, ("t",), [(0.0, 10.0)])
    assert scaled_first_layers(losses, parameters_of(net)) == ([], [])


def test_a_layer_fed_raw_in_one_term_and_otherwise_in_another_is_left_alone():
    net = MLP([1, 4, 1], "tanh")
    raw = terms_on(net, lambda t: [t], ("t",), [(0.0, 10.0)])
    other = terms_on(net, lambda t: [t * 0.5], ("t",), [(0.0, 10.0)])
    assert scaled_first_layers(raw + other[:1], parameters_of(net)) == ([], [])


@pytest.mark.parametrize("seed", range(4))
def test_an_input_is_scaled_where_it_moves_a_typical_unit_past_saturation(seed):
    net = MLP([2, 4, 1], "tanh", seed=seed)
    typical = np.sqrt(np.mean(net.W1._value() ** 2, axis=1))  # each input's row of W1
    short, long = 0.9 * SATURATED / typical[1], 1.1 * SATURATED / typical[1]
    inside = terms_on(net, lambda x, t: [x, t], ("x", "t"), [(-0.5, 0.5), (0.0, short)])
    assume_x_raw = typical[0] * 0.5 < SATURATED
    assert assume_x_raw and scaled_first_layers(inside, parameters_of(net)) == ([], [])
    beyond = terms_on(net, lambda x, t: [x, t], ("x", "t"), [(-0.5, 0.5), (0.0, long)])
    (layer,), (said,) = scaled_first_layers(beyond, parameters_of(net))
    assert layer.centre[0] == 0.0 and layer.half[0] == 1.0  # x left as it is
    assert layer.centre[1] == pytest.approx(long / 2) and layer.half[1] == pytest.approx(long / 2)
    assert said.startswith("W1, b1 (t in [0, ") and "x in" not in said


def test_every_encoder_of_a_modified_mlp_is_scaled_and_a_factorized_layer_is_not():
    net = ModifiedMLP([1, 6, 6, 1], "tanh")
    layers, _ = scaled_first_layers(terms_on(net, lambda t: [t], ("t",), [(0.0, 10.0)]), parameters_of(net))
    assert len(layers) == 3  # the first layer and the two encoders all take the raw input
    factorized = MLP([1, 6, 6, 1], "tanh", factorization=(1.0, 0.1))
    assert scaled_first_layers(
        terms_on(factorized, lambda t: [t], ("t",), [(0.0, 10.0)]), parameters_of(factorized)
    ) == ([], [])


def test_a_term_that_differentiates_the_weight_but_not_the_bias_is_left_alone():
    net = MLP([1, 4, 1], "tanh")
    points = np.linspace(0.0, 10.0, 12)
    term = ResidualLoss(lambda t: net(t) - 1.0, ("t",), [net.W1, net.W2, net.b2], backend="numpy")
    assert scaled_first_layers([(term, points)], [net.W1, net.W2, net.b2]) == ([], [])


def test_solve_leaves_the_networks_weights_at_what_it_trained():
    """u' = cos t on [0, 10], u(0) = 0: the first layer trains on t / 5 - 1; after solve the net's own
    W1, b1 give the loss solve reports, and the fit is close (sin t)."""
    net = MLP([1, 16, 16, 1], "tanh", seed=0)
    t = np.linspace(0.0, 10.0, 64)
    pde = ResidualLoss(lambda t: grad(net)(t) - ops.cos(t), ("t",), net, backend="numpy", name="pde")
    start = ResidualLoss(lambda t: net(t), ("t",), net, backend="numpy", name="start")
    terms = [(pde, t[None]), (start, np.array([[0.0]]))]
    solution = solve(terms, net, seconds=8.0)
    assert any("centred and scaled" in c and "t in [0, 10]" in c for c in solution.choices)
    assert loss_value(terms) == pytest.approx(solution.loss, rel=1e-9)
    fitted = np.asarray(net(t)).ravel()
    assert np.max(np.abs(fitted - np.sin(t))) < 0.05


def test_solve_writes_the_networks_weights_from_the_last_iterate_however_the_optimizers_end(monkeypatch):
    """An optimizer may leave its last iterate in (V, a) without evaluating a term there (L-BFGS's
    end, Levenberg-Marquardt's refused step): solve writes W, b from it before it returns."""
    solve_module = __import__("sys").modules["symgrad.pinn.solve"]
    net = MLP([1, 4, 1], "tanh", seed=0)
    t = np.linspace(0.0, 10.0, 16)
    term = ResidualLoss(lambda t: net(t) - ops.sin(t), ("t",), net, backend="numpy", name="fit")
    moved = {}

    def last_iterate_unevaluated(losses, draws, kinds, params, *rest):
        V, a = params[0], params[1]
        assert V is not net.W1 and a is not net.b1  # solve trains the scaled layer's own Parameters
        V.assign(V._value() + 0.25)
        a.assign(a._value() - 0.5)
        moved.update(V=V._value(), a=a._value())
        return rest[-1]

    monkeypatch.setattr(solve_module, "_chained", last_iterate_unevaluated)
    solve([(term, t[None])], net, seconds=1.0)
    np.testing.assert_allclose(net.W1._value(), moved["V"] / 5.0, rtol=1e-15)
    np.testing.assert_allclose(net.b1._value(), moved["a"] - 5.0 * net.W1._value()[0], rtol=1e-14)


def test_nothing_is_scaled_beside_a_term_that_does_not_list_its_parameters():
    """Such a term gives one gradient per optimized Parameter and may read W, b itself: with (V, a)
    in their place its gradients would be taken for theirs."""
    net = MLP([1, 4, 1], "tanh")
    losses = terms_on(net, lambda t: [t], ("t",), [(0.0, 10.0)])
    assert len(scaled_first_layers(losses, parameters_of(net))[0]) == 1
    pde = losses[0][0]

    def unlisted(points):
        return pde(points)

    assert scaled_first_layers([*losses, (unlisted, losses[0][1])], parameters_of(net)) == ([], [])
