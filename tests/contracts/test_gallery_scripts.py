"""tutorials/gallery/: one runnable script per problem of the DeepXDE gallery bench (issue 40).

Every problem of bench/gallery_problems.py has its script, the bench takes the problem's symgrad
side, reference and test points from it (no second copy), and every script's ``main`` solves and
prints a finite relative L2 error (in-process, on the NumPy kernels, half a second of ``solve``);
three also run as programs, as a user runs them, with the C backend out of reach (no compiler, an
empty kernel cache) so that nothing compiles.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import math
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT

pytest.importorskip("scipy")

GALLERY = ROOT / "tutorials" / "gallery"
SCRIPTS = sorted(GALLERY.glob("*.py"))
ERROR = re.compile(r"relative L2 error on (\d+) test points: (\S+)")
AS_PROGRAMS = ["poisson_dirichlet_1d.py", "heat.py", "lorenz_inverse.py"]  # a 1-D, a space-time, an inverse


def file_of(problem: str) -> str:
    """The script's name for a PROBLEMS key: Poisson_Dirichlet_1d_exactBC -> poisson_dirichlet_1d_exact_bc.py."""
    return problem.lower().replace("exactbc", "exact_bc") + ".py"


def load(path):
    spec = importlib.util.spec_from_file_location(f"gallery_test_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def gallery():
    """bench/gallery_problems.py (its DeepXDE builders take ``dde`` as an argument: no DeepXDE needed)."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import gallery_problems

        yield gallery_problems
    finally:
        sys.path.remove(str(ROOT / "bench"))


def test_every_problem_has_its_script_and_no_script_is_extra(gallery):
    assert len(gallery.PROBLEMS) >= 23
    assert sorted(file_of(name) for name in gallery.PROBLEMS) == [p.name for p in SCRIPTS]
    table = (GALLERY / "README.md").read_text(encoding="utf-8")
    for name in gallery.PROBLEMS:
        assert f"| {file_of(name)} |" in table and name in table, name
    assert "gallery/README.md" in (ROOT / "tutorials" / "README.md").read_text(encoding="utf-8")


def test_the_bench_takes_each_problem_from_its_script(gallery, monkeypatch):
    """The bench's test points, reference and true unknowns are the script's objects, and its
    symgrad builder returns the script's build: the same points and losses (seed 1)."""
    from gallery_cases.common import script

    import symgrad.pinn.residual_loss as residual_loss

    monkeypatch.setattr(residual_loss, "fast_backend", lambda: "numpy")  # no C compile in the background

    for name, problem in gallery.PROBLEMS.items():
        module = script(file_of(name)[:-3])
        assert problem.test_points is module.test_points and problem.exact is module.exact, name
        assert problem.truth == getattr(module, "TRUTH", {}), name
    problem, module = gallery.PROBLEMS["Poisson_Neumann_1d"], script("poisson_neumann_1d")
    built, (terms, _, _, unknowns) = problem.symgrad(1), module.build(1)
    assert unknowns is None and built.unknowns is None
    for (ours, points), (theirs, expected) in zip(built.terms, terms, strict=True):
        assert np.array_equal(points, expected)
        assert ours.name == theirs.name and ours(points)[0] == theirs(expected)[0]


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_main_solves_and_prints_a_finite_error(path, monkeypatch):
    import symgrad.pinn.residual_loss as residual_loss

    monkeypatch.setattr(residual_loss, "fast_backend", lambda: "numpy")  # no C compile in the background
    module = load(path)
    text = path.read_text(encoding="utf-8")
    assert 'if __name__ == "__main__":' in text and "DeepXDE's examples/pinn_" in text
    assert re.search(r"^from symgrad", text, re.M) and not re.search(
        r"^(from|import) (bench|gallery)", text, re.M
    )
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        error = module.main(0.5)
    out = printed.getvalue()
    assert out.startswith("solve: loss"), out
    (count, shown), *_ = ERROR.findall(out)
    assert (
        int(count) == len(module.test_points())
        and math.isfinite(float(shown))
        and float(shown) == pytest.approx(error, rel=1e-3)
    )
    for name in getattr(module, "TRUTH", {}):  # an inverse problem's unknowns against their true values
        assert re.search(rf"^{name} = \S+ \(true ", out, re.M), out


# equation terms of two or more inputs given without their domain, and why
WITHOUT_DOMAIN = {
    "diffusion_1d_inverse.py": "its equation's points include the observations' (DeepXDE's anchors)",
    "reaction_inverse.py": "its equation's points include the observations' (DeepXDE's anchors)",
    # 150 s, seeds 0 / 1 (bench/RESULTS.md, stop 61): 1.6e-7 / 9.6e-8 without, 1.6e-7 / 1.2e-6 with
    "helmholtz_neumann_2d_hole.py": "new points after the gap fired left 12x the error on seed 1",
}


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_an_equation_over_a_domain_of_two_or_more_inputs_carries_its_domain(path, monkeypatch):
    """``solve`` draws new points only for a term given as (loss, points, domain) (1-D terms
    between their ends without one): wave_1d's 360 points do not pin down 5 and 10 periods in t,
    and without its domain solve trained on them to the end (error 0.86-0.89 at 150 s, 1.1e-2-1.4e-2
    with it), where DeepXDE's example resamples its points at every step."""
    import symgrad.pinn.residual_loss as residual_loss
    from symgrad.pinn.domain_points import rows

    monkeypatch.setattr(residual_loss, "fast_backend", lambda: "numpy")  # no C compile in the background
    terms = load(path).build(0)[0]
    equations = [t for t in terms if getattr(t[0], "name", "") in ("pde", "ode") and (rows(t[1]) or 1) >= 2]
    assert all(len(t) == 3 for t in equations) != (path.name in WITHOUT_DOMAIN), path.name


@pytest.mark.parametrize("name", AS_PROGRAMS)
def test_a_script_runs_as_a_program(name, tmp_path):
    env = {
        **os.environ,
        "CC": str(tmp_path / "no-compiler"),  # no C backend: NumPy kernels, nothing compiles
        "SYMGRAD_CACHE": str(tmp_path / "cache"),
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, str(GALLERY / name), "1"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    ((count, shown),) = ERROR.findall(done.stdout)
    assert int(count) > 0 and math.isfinite(float(shown)), done.stdout
