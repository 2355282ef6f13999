"""New points from a term's domain (``symgrad.pinn.domain_points``): ``solve`` takes
``(loss, points, domain)``, draws new points in the domain (any number of inputs) once the loss has
converged, chooses them by residual (RAD), keeps the old ones and says so; bad domains are refused
by name."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from symgrad.pinn import Box, Interval, Polygon, ResidualLoss, SpaceTime, solve
from symgrad.pinn.domain_points import CANDIDATES, Gap, split_domains, with_domain_points
from tests.pinn.helpers import xy_fit

solve_module = importlib.import_module("symgrad.pinn.solve")
LSHAPE = Polygon([[-1, -1], [1, -1], [1, 0], [0, 0], [0, 1], [-1, 1]])


class Planted:
    """A term whose residual is planted: 1 where x > 0, 0 elsewhere."""

    name = "planted"
    names = ["x", "y"]

    def residuals(self, x, y):
        return (np.asarray(x) > 0).astype(float)

    def __call__(self, *points):
        return 0.0, []


def fit_problem(seed: int = 0):
    """u(x, y) = x y on an L-shape by a small network, on 12 points: Levenberg-Marquardt fits them
    exactly long before the time is up."""
    net, term = xy_fit(seed)
    points = LSHAPE.interior(12, "halton", seed)
    term(*points)  # the kernel built before the clock starts
    return net, term, points


def test_rad_chooses_denser_where_the_planted_residual_is_larger():
    box = Box([-1, -1], [1, 1])
    draws, kinds = split_domains([(Planted(), box.interior(10), box)])[1:]
    rng = np.random.default_rng(7)
    ((_, points),), done = with_domain_points([(Planted(), box.interior(10))], draws, {0: 400}, rng)
    new = points[:, 10:]
    share = float(np.mean(new[0] > 0))
    # RAD's density |r| / mean|r| + 1 is 3 where x > 0 and 1 elsewhere: 3/4 of the draws, uniform 1/2
    assert new.shape == (2, 400) and abs(share - 0.75) < 0.06, share
    assert done[0].candidates == CANDIDATES * 400 and done[0].gain == pytest.approx(1.5, abs=0.12)
    assert kinds == {0: "Box"}


def test_new_points_lie_on_the_polygon_in_the_form_given_and_the_old_ones_stay():
    given = LSHAPE.interior(30, "halton", 1)
    for points in (given, [given[0], given[1]], (given[0][:, None], given[1][:, None])):
        draws, _ = split_domains([(Planted(), points, LSHAPE)])[1:]
        ((_, grown),), _ = with_domain_points([(Planted(), points)], draws, {0: 50}, np.random.default_rng(0))
        assert type(grown) is type(points) and np.shape(grown[0])[1:] == np.shape(points[0])[1:]
        array = np.vstack([np.ravel(p) for p in grown])
        assert array.shape == (2, 80) and np.array_equal(array[:, :30], given)
        assert LSHAPE.contains(array[:, 30:]).all() and not (array[:, 30:] > 0).all(axis=0).any()


def test_a_draw_function_in_the_points_form_is_a_domain():
    def draw(n, rng):
        return [rng.uniform(2, 3, n), rng.uniform(-5, -4, n)]

    draws, kinds = split_domains([(Planted(), np.zeros((2, 4)), draw)])[1:]
    ((_, grown),), done = with_domain_points(
        [(Planted(), np.zeros((2, 4)))], draws, {0: 8}, np.random.default_rng(0)
    )
    assert kinds == {0: "draw"} and grown.shape == (2, 12)
    assert ((grown[0, 4:] >= 2) & (grown[0, 4:] <= 3) & (grown[1, 4:] <= -4)).all()
    assert done[0].gain == pytest.approx(1.0)  # |r| = 1 everywhere: nothing to prefer


def test_a_term_without_residuals_gets_uniform_points_and_the_reason():
    class Plain:
        name = "plain"

        def __call__(self, *points):
            return 0.0, []

    box = Box([0, 0], [1, 1])
    draws = split_domains([(Plain(), box.interior(3), box)])[1]
    _, done = with_domain_points([(Plain(), box.interior(3))], draws, {0: 5}, np.random.default_rng(0))
    assert done[0].gain is None and "residuals()" in done[0].why


@pytest.mark.parametrize(
    "domain, message",
    [
        (3, r"the third element must be the domain its points come from, a geometry .* got int 3"),
        (Box, r"the third element must be .* got type"),
        (
            lambda n, rng: np.zeros((3, n)),
            r"its domain \(<lambda>\): drawing 2 points gave ndarray of shape \(3, 2\)",
        ),
        (lambda n, rng: np.full((2, n), np.nan), r"of 2 finite values"),
        (lambda n, rng: "xy", r"gave str of not numbers"),
        (SpaceTime(Interval(0, 1), 0, 1), r"drawing 2 points gave ndarray of shape \(2, 2\)"),
    ],
)
def test_bad_domains_are_refused_naming_solve_the_term_and_what_was_given(domain, message):
    net, term, points = fit_problem()
    if isinstance(domain, SpaceTime):
        points = np.vstack([points, points[:1]])  # three rows against the space-time's two
        term = ResidualLoss(lambda x, y, z: net(x, y), ("x", "y", "z"), net, backend="numpy", name="fit")
    with pytest.raises(ValueError, match=r"solve: losses\[0\] \(fit\)") as caught:
        solve([(term, points, domain)], net, seconds=1)
    assert caught.match(message), str(caught.value)
    with pytest.raises(ValueError, match=r"solve: losses\[0\] \(fit\): to draw points from a domain"):
        solve([(term, np.ravel(points), LSHAPE)], net, seconds=1)


def test_solve_adds_rad_points_in_the_domain_of_a_term_of_two_inputs(monkeypatch):
    seen = []

    def spy(*args, **kwargs):
        out, done = with_domain_points(*args, **kwargs)
        seen.append(out[0][1])
        return out, done

    monkeypatch.setattr(solve_module, "with_domain_points", spy)
    net, term, points = fit_problem()
    kept = solve([(term, points)], net, seconds=2.0, warmup=0.2)
    assert not any("new points" in s[0] for s in kept.stages) and not seen, kept  # two inputs, no domain
    net, term, points = fit_problem()
    found = solve([(term, points, LSHAPE)], net, seconds=2.0, warmup=0.2)
    assert any(s[0] == "Levenberg-Marquardt on new points" for s in found.stages), found
    (said,) = [c for c in found.choices if "on new points of fit" in c]
    assert "chosen by residual (RAD, k = 1, c = 1) among 120 drawn uniformly in its domain (Polygon)" in said
    assert seen and [p.shape[1] for p in seen] == [12 * (k + 2) for k in range(len(seen))]
    for grown in seen:
        assert np.array_equal(grown[:, :12], points) and LSHAPE.contains(grown).all()


class Between:
    """A term whose residual is 0 at the points given (x = 0) and ``size`` elsewhere."""

    name = "between"

    def __init__(self, size: float):
        self.size = size

    def residuals(self, x, y):
        return np.where(np.asarray(x) == 0, 1e-3, self.size)

    def __call__(self, *points):
        return 0.0, []


def test_the_gap_stops_levenberg_marquardt_once_the_points_no_longer_represent_the_domain(monkeypatch):
    monkeypatch.setattr(importlib.import_module("symgrad.pinn.domain_points"), "CHECK_SECONDS", 0.0)
    box = Box([0.5, 0], [1, 1])  # x > 0: never a point given
    points = np.vstack([np.zeros(20), np.linspace(0, 1, 20)])
    for size, fires in ((1e-3, False), (3e-3, False), (4e-3, True), (1.0, True)):
        draws = split_domains([(Between(size), points, box)])[1]
        gap = Gap([(Between(size), points)], draws)
        assert gap(1, 0.0) is fires, size  # GAP = 10: (3e-3 / 1e-3)^2 = 9 is under, 16 over
        assert ("between's mean squared residual at fresh points" in gap.fired) is fires


def test_where_lbfgs_trains_a_term_with_a_domain_gets_new_points_too(monkeypatch):
    monkeypatch.setattr(solve_module, "use_levenberg_marquardt", lambda *args, **kwargs: False)
    net, term, points = fit_problem()
    found = solve([(term, points, LSHAPE)], net, seconds=2.0, warmup=0.2)
    assert "Levenberg-Marquardt" not in str(found.stages), found
    assert any(s[0] == "L-BFGS on new points" for s in found.stages), found
    assert any(c.startswith("L-BFGS on new points of fit (") and "RAD" in c for c in found.choices), found


def test_new_points_past_the_size_that_chose_levenberg_marquardt_go_to_lbfgs(monkeypatch):
    """The rule that chose Levenberg-Marquardt at the start (a dense step over at most
    LARGEST_COMFORTABLE residuals or weights) holds for the new points too: here 25 weights, and
    12, 24, then 36 residuals against a limit of 24."""
    monkeypatch.setattr(solve_module, "LARGEST_COMFORTABLE", 24)
    net, term, points = fit_problem()
    found = solve([(term, points, LSHAPE)], net, seconds=3.0, warmup=0.2)
    methods = [s[0] for s in found.stages]
    assert "Levenberg-Marquardt" in methods, found
    first, switched = (
        methods.index("Levenberg-Marquardt on new points"),
        methods.index("L-BFGS on new points"),
    )
    assert first < switched and "Levenberg-Marquardt on new points" not in methods[switched:], found
    assert any(
        c.startswith("L-BFGS from draw 2 of new points on: 25 weights and 36 residuals make a dense")
        for c in found.choices
    ), found
    assert any(
        c.startswith("Levenberg-Marquardt, then L-BFGS on new points of fit (") for c in found.choices
    ), found
