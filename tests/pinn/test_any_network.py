"""PINNs on any network and any problem: networks of any inputs and outputs, systems, inverse problems,
conditions with normals, predict, float32, and the errors that teach."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import lowering
from symgrad import Parameter, Tensor, nn, ops, placeholder
from symgrad.autodiff.api import grad
from symgrad.kernels import kernel
from symgrad.models import PointMLP
from symgrad.pinn import (
    MLP,
    Adam,
    CausalLoss,
    Disk,
    FourierFeatures,
    Interval,
    ModifiedMLP,
    PeriodicEmbedding,
    Rectangle,
    ResidualLoss,
    ResidualMLP,
    SpaceTime,
    dirichlet,
    initial,
    neumann,
    observations,
    periodic,
    predict,
    robin,
    train,
    weighted_terms,
)

HAS_C = "c" in lowering.available_backends()
BACKENDS = ["numpy", "c"] if HAS_C else ["numpy"]


def _points(dim: int, n: int = 7, seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-0.9, 0.9, (dim, n))


def _central_difference(f, arrays, i, h=1e-6):
    up = [a + h * (j == i) for j, a in enumerate(arrays)]
    down = [a - h * (j == i) for j, a in enumerate(arrays)]
    return (f(*up) - f(*down)) / (2 * h)


# ----- networks -----
NETWORKS = {
    "mlp-sin-3-out": lambda: MLP([3, 8, 8, 3], "sin", seed=2),
    "residual-mlp": lambda: ResidualMLP(3, 8, 2, n_outputs=3, activation="tanh", seed=3),
    "fourier": lambda: MLP([3, 8, 3], embedding=FourierFeatures(3, 4, scale=0.5), seed=4),
    "periodic": lambda: MLP([3, 8, 3], "silu", embedding=PeriodicEmbedding([2.0, None, 1.0], 2), seed=5),
    "modified": lambda: ModifiedMLP([3, 8, 8, 3], seed=6, embedding=FourierFeatures(3, 4, scale=0.5)),
    "factorized": lambda: MLP([3, 8, 8, 3], seed=7, factorization=(1.0, 0.1)),
    "factorized-residual": lambda: ResidualMLP(3, 8, 1, n_outputs=3, seed=8, factorization=(0.5, 0.2)),
}


@pytest.mark.parametrize("make", NETWORKS.values(), ids=NETWORKS.keys())
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_network_of_3_inputs_and_3_outputs_gives_3_outputs_and_their_derivatives(make, backend):
    net = make()
    x, y, z = (placeholder(n) for n in "xyz")
    outputs = net(x, y, z)
    assert isinstance(outputs, tuple) and len(outputs) == 3
    pts = _points(3)
    compiled = kernel(list(outputs), [x, y, z], backend=backend)(*pts)
    eager = net(*(Tensor(p) for p in pts))  # arrays of points, eagerly
    for k in range(3):
        np.testing.assert_allclose(compiled[k], eager[k].asnumpy(), rtol=1e-12, atol=1e-14)
        slope = kernel(grad(net.output(k), 2)(x, y, z), [x, y, z], backend=backend)(*pts)[0]
        reference = _central_difference(lambda *a, k=k: net(*(Tensor(v) for v in a))[k].asnumpy(), pts, 2)
        np.testing.assert_allclose(slope, reference, rtol=1e-6, atol=1e-8)


def test_point_mlp_is_the_mlp_with_tanh_and_the_same_weights():
    old, new = PointMLP([2, 7, 5, 1], seed=11), MLP([2, 7, 5, 1], seed=11)
    assert [p.name for p in old.params] == ["W1", "b1", "W2", "b2", "W3", "b3"]
    for a, b in zip(old.params, new.params):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    x, t = placeholder("x"), placeholder("t")
    assert isinstance(old(x, t), Tensor) and old(x, t).shape == ()


def test_the_modified_mlp_gates_its_encoders_into_every_layer():
    """Against NumPy with the network's own weights: U, V encoders, h = (1 - z) U + z V per layer."""
    net = ModifiedMLP([2, 6, 6, 1], seed=3)
    x, t = np.linspace(0, 1, 5), np.linspace(-1, 1, 5)
    w = {p.name: p.asnumpy() for p in net.trainable_params()}
    a = np.stack([x, t], axis=-1)
    u, v = np.tanh(a @ w["W_u"] + w["b_u"]), np.tanh(a @ w["W_v"] + w["b_v"])
    h = a
    for k in (1, 2):
        z = np.tanh(h @ w[f"W{k}"] + w[f"b{k}"])
        h = (1 - z) * u + z * v
    expected = (h @ w["W3"] + w["b3"])[:, 0]
    np.testing.assert_allclose(net(Tensor(x), Tensor(t)).asnumpy(), expected, rtol=1e-13)
    with pytest.raises(ValueError, match="hidden layers must have one width"):
        ModifiedMLP([2, 6, 4, 1])


def test_weight_factorization_starts_from_the_same_network_with_its_scales_as_parameters():
    x, t = Tensor(np.linspace(0, 1, 5)), Tensor(np.linspace(-1, 1, 5))
    plain, factorized = MLP([2, 8, 8, 1], seed=3), MLP([2, 8, 8, 1], seed=3, factorization=(1.0, 0.1))
    np.testing.assert_allclose(factorized(x, t).asnumpy(), plain(x, t).asnumpy(), rtol=1e-12, atol=1e-15)
    names = [p.name for p in factorized.trainable_params()]
    assert names == ["W1", "s1", "b1", "W2", "s2", "b2", "W3", "s3", "b3"]
    scales = factorized.s1.asnumpy()
    assert 0.7 < scales.mean() < 1.3 and scales.std() > 0  # drawn from N(1, 0.1)
    with pytest.raises(ValueError, match="factorization must be"):
        MLP([2, 4, 1], factorization=(1.0, -0.1))


def test_loss_balancing_raises_the_term_with_the_smaller_gradient_and_weights_the_sum():
    net = MLP([1, 6, 1], seed=1)
    points = (np.linspace(-1, 1, 16),)
    big = ResidualLoss(lambda x: net(x) - 1.0, ("x",), net, name="big", backend="numpy")
    small = ResidualLoss(lambda x: 0.01 * net(x), ("x",), net, name="small", backend="numpy")
    losses = [(big, points), (small, points)]
    history = train(losses, Adam(net.trainable_params(), 1e-3), 25, progress=False, balance_every=10)
    assert [step for step, _ in history.weights] == [0, 10, 20]
    first, last = history.weights[0][1], history.weights[-1][1]
    assert first[1] > first[0] and last[1] > first[1]  # the small term's weight grows
    w_big, w_small = history.weights[-1][1]
    for k in (20, 21, 24):  # the loss minimised is the weighted sum
        expected = w_big * history.terms["big"][k] + w_small * history.terms["small"][k]
        assert history[k] == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="balance_every must be a whole number >= 1"):
        train(losses, Adam(net.trainable_params()), 1, progress=False, balance_every=0)
    kept = weighted_terms(losses, [w_big, w_small])  # the balanced sum, for L-BFGS after Adam
    value, grads = kept[1][0](*points)
    plain_value, plain_grads = small(*points)
    assert value == pytest.approx(w_small * plain_value, rel=1e-14)
    np.testing.assert_allclose(grads[0], w_small * plain_grads[0], rtol=1e-14)
    assert kept[1][0].last_terms == [pytest.approx(w_small * small.last_terms[0], rel=1e-14)]
    with pytest.raises(ValueError, match="one finite weight >= 0 per term"):
        weighted_terms(losses, [1.0])


def test_causal_weights_follow_the_earlier_slabs_losses_and_carry_no_gradient():
    """Against the slab losses computed one by one: w_i = exp(-tol (L_0 + ... + L_{i-1})), the loss
    is mean(w L) and the gradient sum(w g) / slabs (the weights are constants)."""
    net = MLP([2, 6, 1], seed=2)
    residual = ResidualLoss(lambda x, t: net(x, t) - ops.sin(3.0 * t), ("x", "t"), net, backend="numpy")
    rng = np.random.default_rng(0)
    x, t = rng.uniform(-1, 1, 40), rng.permutation(np.linspace(0, 1, 40))
    causal = CausalLoss(residual, slabs=4, tol=5.0)
    value, grads = causal(x, t)
    slab_values, slab_grads = [], []
    for k in range(4):  # times sorted: the k-th slab is t in [k/4, (k+1)/4)
        inside = (t >= k * 10 / 39 - 1e-12) & (t < (k + 1) * 10 / 39 - 1e-12)
        v, g = residual(x[inside], t[inside])
        slab_values.append(v)
        slab_grads.append(g)
    weights = np.exp(-5.0 * np.concatenate([[0.0], np.cumsum(slab_values)[:-1]]))
    np.testing.assert_allclose(causal.weights, weights, rtol=1e-12)
    assert np.all(np.diff(causal.weights) <= 0) and causal.weights[0] == 1.0
    assert value == pytest.approx(np.mean(weights * np.array(slab_values)), rel=1e-12)
    for k, g in enumerate(grads):
        expected = sum(w * sg[k] for w, sg in zip(weights, slab_grads)) / 4
        np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-15)
    history = train([(causal, (x, t))], Adam(net.trainable_params(), 1e-2), 3, progress=False)
    assert len(history) == 3 and history.terms[causal.name][0] == pytest.approx(value, rel=1e-12)
    with pytest.raises(ValueError, match="40 points for 50 slabs"):
        CausalLoss(residual, slabs=50)(x, t)
    with pytest.raises(ValueError, match="tol must be a finite number >= 0"):
        CausalLoss(residual, tol=-1.0)


def test_initializers_have_their_variances_and_unknown_ones_are_named():
    wide = 400
    for init, variance in [
        ("glorot_uniform", 2 / (2 * wide)),
        ("glorot_normal", 2 / (2 * wide)),
        ("he_uniform", 2 / wide),
        ("he_normal", 2 / wide),
    ]:
        W = MLP([wide, wide, 1], init=init, seed=0).W1.asnumpy()
        assert W.var() == pytest.approx(variance, rel=0.03), init
    with pytest.raises(ValueError, match="unknown initializer 'xavier'; supported: glorot_uniform"):
        MLP([2, 3, 1], init="xavier")
    with pytest.raises(ValueError, match="activation 'tanhh' is not a function of symgrad.ops"):
        MLP([2, 3, 1], activation="tanhh")


def test_periodic_embedding_makes_the_network_exactly_periodic():
    net = MLP([2, 16, 16, 1], embedding=PeriodicEmbedding([2.0, None], harmonics=3), seed=1)
    x, t = np.linspace(-1, 1, 9), np.linspace(0, 1, 9)
    left = predict(net, (x, t))
    np.testing.assert_allclose(predict(net, (x + 2.0, t)), left, rtol=0, atol=1e-13)
    assert np.ptp(predict(net, (x, t + 0.5)) - left) > 1e-3  # not periodic in t


def test_wrong_input_counts_and_output_indices_are_named():
    net = MLP([3, 4, 2])
    with pytest.raises(TypeError, match="MLP takes 3 inputs .* got 2"):
        net(placeholder("x"), placeholder("y"))
    with pytest.raises(IndexError, match="MLP has 2 output\\(s\\), numbered 0..1; asked for output 2"):
        net.output(2)
    with pytest.raises(ValueError, match="layer_sizes"):
        MLP([3])
    for make in (MLP, lambda *a, **k: ResidualMLP(2, 4, 1, **k)):
        with pytest.raises(ValueError, match="the embedding takes 3 inputs, the network 2"):
            make([2, 4, 1], embedding=FourierFeatures(3, 2))


def test_any_cell_is_a_network():
    class TwoLayers(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(2, 6, activation="tanh")
            self.b = nn.Dense(6, 1)

        def construct(self, x, y):
            return self.b(self.a(ops.reshape(ops.stack([x, y]), (1, 2))))[0, 0]

    net = TwoLayers()
    loss = ResidualLoss(lambda x, y: net(x, y) - x * y, ("x", "y"), net, backend="numpy")
    assert loss.params == net.trainable_params() and len(loss.params) == 4
    value, grads = loss(_points(2))
    assert np.isfinite(value) and [g.shape for g in grads] == [p.shape for p in net.trainable_params()]


# ----- systems and inverse problems -----
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_system_gives_one_term_per_component_and_the_summed_gradient(backend):
    net = MLP([2, 6, 2], seed=3)
    u, v = net.output(0), net.output(1)

    def system(x, y):
        return grad(u, 0)(x, y) - v(x, y), grad(v, 1)(x, y) + u(x, y) * x

    both = ResidualLoss(system, ("x", "y"), net, weight=[1.0, 3.0], backend=backend, name="eq")
    first = ResidualLoss(lambda x, y: system(x, y)[0], ("x", "y"), net, backend=backend)
    second = ResidualLoss(lambda x, y: system(x, y)[1], ("x", "y"), net, weight=3.0, backend=backend)
    pts = _points(2, 50)
    total, grads = both(*pts)
    (a, ga), (b, gb) = first(*pts), second(*pts)
    assert both.term_names == ["eq[0]", "eq[1]"]
    np.testing.assert_allclose(both.last_terms, [a, b], rtol=1e-12)
    assert total == pytest.approx(a + b, rel=1e-12)
    for g, g1, g2 in zip(grads, ga, gb):
        np.testing.assert_allclose(g, g1 + g2, rtol=1e-10, atol=1e-14)
    with pytest.raises(ValueError, match="3 weights for 2 residual components"):
        ResidualLoss(system, ("x", "y"), net, weight=[1, 2, 3], backend="numpy")


def test_a_trainable_pde_coefficient_gets_its_gradient_as_finite_differences_say():
    net = MLP([2, 5, 1], seed=0)
    D = Parameter(Tensor(np.array(0.3)), name="D")

    def heat(x, t):
        return grad(net, 1)(x, t) - D * grad(grad(net, 0), 0)(x, t)

    loss = ResidualLoss(heat, ("x", "t"), [*net.params, D], backend="numpy")
    pts = _points(2, 40)
    _, grads = loss(*pts)

    def value_at(d):
        D.set_data(np.array(d))
        return loss(*pts)[0]

    h = 1e-6
    reference = (value_at(0.3 + h) - value_at(0.3 - h)) / (2 * h)
    D.set_data(np.array(0.3))
    assert grads[-1] == pytest.approx(reference, rel=1e-6)


def test_a_residual_of_the_wrong_kind_is_named():
    net = MLP([2, 3, 1])
    with pytest.raises(TypeError, match="component 1 is a float, not a Tensor"):
        ResidualLoss(lambda x, y: (net(x, y), 0.5), ("x", "y"), net, backend="numpy")
    with pytest.raises(
        TypeError, match=r"ResidualLoss.*np.remainder cannot take a symgrad Tensor.*symgrad.ops"
    ):
        ResidualLoss(lambda x, y: np.remainder(x, 2) * net(x, y), ("x", "y"), net, backend="numpy")


def test_numpy_ufuncs_that_are_ops_stay_in_the_graph():
    """np.sin(x) on a Tensor is ops.sin: the residual is the same, its gradient exact."""
    net = MLP([2, 3, 1], seed=1)
    points = _points(2, 7)
    with_numpy = ResidualLoss(
        lambda x, y: np.sin(x) * np.exp(y) - net(x, y), ("x", "y"), net, backend="numpy"
    )
    with_ops = ResidualLoss(
        lambda x, y: ops.sin(x) * ops.exp(y) - net(x, y), ("x", "y"), net, backend="numpy"
    )
    a, b = with_numpy(*points), with_ops(*points)
    assert a[0] == b[0] and all(np.array_equal(g, h) for g, h in zip(a[1], b[1]))
    x = Tensor(np.array([0.2, 0.7]))
    assert np.array_equal(
        ops.grad(lambda t: np.tanh(t).sum())(x).asnumpy(), ops.grad(lambda t: ops.tanh(t).sum())(x).asnumpy()
    )
    assert isinstance(np.array([1.0, 2.0]) * x, Tensor) and isinstance(np.array([1.0, 2.0]) @ x, Tensor)


def test_points_given_the_wrong_way_round_or_empty_say_how_to_mend_them():
    net = MLP([2, 3, 1])
    loss = ResidualLoss(lambda x, y: net(x, y), ("x", "y"), net, backend="numpy")
    points = _points(2, 10)
    assert loss(points)[0] == pytest.approx(loss(*points)[0])  # one (dim, n) array is taken as rows
    with pytest.raises(
        ValueError, match=r"shape \(10, 2\): points are \(dim, n\), one row per input; pass points.T"
    ):
        loss(points.T)
    with pytest.raises(ValueError, match=r"got 10 arrays of shape \(2,\).*pass points.T"):
        loss(*points.T)
    with pytest.raises(ValueError, match="an empty point set"):
        loss(np.zeros(0), np.zeros(0))


def test_predict_reads_the_current_weights_and_splits_outputs():
    net = MLP([2, 4, 2], seed=1)
    pts = _points(2, 6)
    u, v = predict(net, pts)
    eager = net(*(Tensor(p) for p in pts))
    np.testing.assert_allclose(u, eager[0].asnumpy(), rtol=1e-13)
    net.b2.set_data(net.b2.asnumpy() + 1.0)
    np.testing.assert_allclose(predict(net, pts)[1], v + 1.0, rtol=1e-13)
    X, Y = np.meshgrid(np.linspace(0, 1, 3), np.linspace(0, 1, 4), indexing="ij")
    assert predict(net, (X, Y))[0].shape == (3, 4)
    with pytest.raises(ValueError, match="predict: points must be a \\(dim, n\\) array"):
        predict(net, np.zeros(5))


@pytest.mark.parametrize("backend", BACKENDS)
def test_float32_networks_train_in_float32(backend):
    from symgrad.pinn import Adam

    net = MLP([2, 6, 1], dtype=np.float32, seed=0)
    loss = ResidualLoss(lambda x, y: grad(net, 0)(x, y) - y, ("x", "y"), net, backend=backend)
    value, grads = loss(*_points(2, 33).astype(np.float32))
    assert all(g.dtype == np.float32 for g in grads), [g.dtype for g in grads]
    opt = Adam(net, lr=1e-2)
    opt.step(grads)
    assert opt.m.dtype == np.float32 and all(p.asnumpy().dtype == np.float32 for p in net.params)


# ----- conditions and normals -----
def test_outward_normals_of_every_geometry():
    box = Rectangle((0, 0), (2, 1))
    points = np.array([[0.0, 2.0, 0.7, 1.3], [0.5, 0.4, 0.0, 1.0]])
    np.testing.assert_array_equal(box.normals(points), [[-1, 1, 0, 0], [0, 0, -1, 1]])
    disk = Disk((1, -1), 2.0)
    edge = disk.boundary(20)
    np.testing.assert_allclose(disk.normals(edge), (edge - [[1], [-1]]) / 2.0, atol=1e-15)
    walls = SpaceTime(Interval(-1, 1), 0, 1).boundary(10)
    np.testing.assert_array_equal(
        SpaceTime(Interval(-1, 1), 0, 1).normals(walls), [np.sign(walls[0]), np.zeros(10)]
    )


def _condition_loss(condition, n=40):
    loss = condition.loss([], backend="numpy")
    return loss(*condition.sample(n))[0]


def test_conditions_vanish_on_the_functions_that_meet_them_and_not_on_others():
    square = Rectangle((0, 0), (1, 1))
    u = lambda x, y: x * x + 3 * y * y  # noqa: E731 - du/dn: 2 on x = 1, 6 on y = 1, 0 on x = 0
    assert _condition_loss(neumann(u, square, value=2.0, on=square.face(0, "high"))) < 1e-28
    assert _condition_loss(neumann(u, square, value=lambda x, y: 6 * y, on=square.face(1, "high"))) < 1e-28
    assert _condition_loss(neumann(u, square, value=0.0, on=square.face(0, "low"))) < 1e-28
    assert _condition_loss(neumann(u, square, value=0.0)) > 1  # not zero on all four sides
    disk = Disk((0, 0), 2.0)
    r2 = lambda x, y: x * x + y * y  # noqa: E731 - 4 on the circle, du/dn = 4
    assert _condition_loss(robin(r2, disk, a=1.0, b=0.5, value=6.0)) < 1e-26
    assert _condition_loss(robin(r2, disk, a=1.0, b=0.5, value=5.0)) == pytest.approx(1.0)
    assert _condition_loss(dirichlet(r2, disk, value=4.0)) < 1e-26
    wave = periodic(lambda x, y: ops.cos(np.pi * x) * y, Rectangle((0, 0), (2, 1)), axis=0, derivatives=1)
    assert wave.inputs == ("x", "y", "x_p", "y_p") and _condition_loss(wave) < 1e-28
    shifted = periodic(lambda x, y: ops.sin(np.pi * x / 2) * y, Rectangle((0, 0), (2, 1)), axis=0)
    assert _condition_loss(shifted) > 1e-3
    space_time = SpaceTime(Interval(-1, 1), 0, 1)
    start = initial(lambda x, t: x * t + ops.sin(x), space_time, value=lambda x, t: ops.sin(x))
    assert start.inputs == ("x", "t") and _condition_loss(start) < 1e-30


def test_observations_are_a_data_term_with_their_own_values():
    net = MLP([2, 4, 1], seed=0)
    points = _points(2, 9)
    truth = predict(net, points)
    data = observations(net, points, truth, ("x", "t"))
    assert data.inputs == ("x", "t", "data_obs") and _condition_loss(data) < 1e-28
    shifted = observations(net, points, truth + 0.1, ("x", "t"))
    assert _condition_loss(shifted) == pytest.approx(0.01)
    with pytest.raises(ValueError, match=r"points must be \(2, n\) and values \(n,\)"):
        observations(net, points.T, truth, ("x", "t"))


def test_bad_geometries_and_conditions_are_named():
    with pytest.raises(ValueError, match="Box: highs must be finite"):
        Interval(0, float("nan"))
    with pytest.raises(ValueError, match="Disk: radius must be finite"):
        Disk((0, 0), float("nan"))
    with pytest.raises(ValueError, match="SpaceTime: t1 must be finite"):
        SpaceTime(Interval(0, 1), 0, float("inf"))
    for draw in (lambda: Interval(0, 1).interior(-1), lambda: Rectangle((0, 0), (1, 1)).boundary(-3)):
        with pytest.raises(ValueError, match="point count must be a whole number >= 0, got -"):
            draw()

    class Shape:
        dim = 2

        def boundary(self, n, method="uniform", seed=0):
            return np.zeros((2, n))

    with pytest.raises(TypeError, match="Shape gives no outward normals"):
        neumann(lambda x, y: x, Shape())
    with pytest.raises(TypeError, match="expected a geometry"):
        dirichlet(lambda x, y: x, object())
    square = Rectangle((0, 0), (1, 1))
    nowhere = neumann(lambda x, y: x, square, on=lambda x, y: x > 5)
    with pytest.raises(ValueError, match="the boundary part selected by on= holds 0"):
        nowhere.sample(10)


@pytest.mark.skipif(
    not HAS_C or importlib.util.find_spec("threadpoolctl") is None,
    reason="needs the C backend and threadpoolctl",
)
def test_training_holds_blas_to_one_thread():
    from threadpoolctl import threadpool_info

    from symgrad.pinn.threads import one_pool

    with one_pool():
        inside = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    assert inside and set(inside) == {1}


def test_kovasznay_exact_solution_meets_its_three_equations_and_conditions():
    from symgrad.pinn import Kovasznay

    problem = Kovasznay()

    class Exact:  # a "network" whose outputs are the exact fields
        def output(self, k):
            return problem.exact_tensor(k)

    pts = problem.geometry.interior(20, seed=3)
    for residual in problem.pde(Exact())(Tensor(pts[0]), Tensor(pts[1])):
        np.testing.assert_allclose(residual.asnumpy(), 0, atol=1e-12)
    for condition in problem.conditions(Exact()):
        assert _condition_loss(condition) < 1e-28, condition.name
    np.testing.assert_allclose(
        problem.exact(*pts)[2], [problem.exact_tensor(2)(Tensor(a), Tensor(b)).asnumpy() for a, b in pts.T]
    )
    errors = problem.field_errors(1.01 * problem.exact(*problem.grid()))
    assert errors == pytest.approx({"u": 0.01, "v": 0.01, "p": 0.01})
