"""tutorials/pinnacle/: one runnable script per problem of the PINNacle bench (issue 40).

Every case of bench/pinnacle_problems.py has its script and the bench builds each case from it (no
second copy); every script imports symgrad only, and its ``main`` solves and prints a finite L2RE
(in-process, on the NumPy kernels, half a second of ``solve``) against its reference: the exact
solution, or small stand-ins for PINNacle's COMSOL files written here in their format; one runs as
a program, as a user runs it, with the C backend out of reach.
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

FOLDER = ROOT / "tutorials" / "pinnacle"
SCRIPTS = sorted(FOLDER.glob("*.py"))
ERROR = re.compile(r"L2RE (?:over \S+(?:, \S+)* )?on (\d+) reference points: (\S+)")


def load(path):
    spec = importlib.util.spec_from_file_location(f"pinnacle_test_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pinnacle():
    """bench/pinnacle_problems.py."""
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import pinnacle_problems

        yield pinnacle_problems
    finally:
        sys.path.remove(str(ROOT / "bench"))


def fake_checkout(root, module) -> None:
    """Stand-ins for the files a script reads, in PINNacle's formats: points inside the box of the
    script's inputs, made-up values (the test checks that the script runs, not its error)."""
    rng = np.random.default_rng(0)
    lows, highs = np.asarray(module.LOWS, float), np.asarray(module.HIGHS, float)
    for name in module.FILES:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if name.endswith("heatinv_points.dat"):  # points only: (x, y, t)
            np.savetxt(path, rng.uniform(lows, highs, (30, 3)))
            continue
        space = len(lows) - 1 if module.__name__.endswith(("burgers_1d", "heat_longtime")) else len(lows)
        nodes = rng.uniform(lows[:space], highs[:space], (25, space))
        if space < len(lows):  # transient: one column a time
            header = "% " + "  ".join(["X"] * space + [f"u (1) @ t={t:g}" for t in (lows[-1], highs[-1])])
            table = np.hstack([nodes, rng.normal(size=(25, 2))])
        else:
            outputs = 3 if "ns_" in module.__name__ else 1
            header = "% " + "  ".join(["X"] * space + ["u"] * outputs)
            table = np.hstack([nodes, rng.normal(size=(25, outputs))])
        path.write_text(header + "\n" + "\n".join(" ".join(f"{v:.17g}" for v in row) for row in table) + "\n")


def test_every_case_has_its_script_and_no_script_is_extra(pinnacle):
    assert len(pinnacle.CASES) == 12
    assert sorted(f"{case.file}.py" for case in pinnacle.CASES.values()) == [p.name for p in SCRIPTS]
    table = (FOLDER / "README.md").read_text(encoding="utf-8")
    for case in pinnacle.CASES.values():
        assert (
            f"| {case.file}.py |" in table
            and case.title.replace("High dim ", "").replace("Inverse ", "") in table
        )
    assert "pinnacle/README.md" in (ROOT / "tutorials" / "README.md").read_text(encoding="utf-8")


def test_the_bench_builds_each_case_from_its_script(pinnacle, monkeypatch):
    import symgrad.pinn.residual_loss as residual_loss

    monkeypatch.setattr(residual_loss, "fast_backend", lambda: "numpy")
    for case in pinnacle.CASES.values():
        module = pinnacle.script(case.file)
        assert case.module is module and case.files == tuple(module.FILES)
    case, module = pinnacle.CASES["wave1d"], pinnacle.script("wave_1d")
    built, (terms, _, _) = case.build(1, (8, 8)), module.build(1, (8, 8))
    for ours, theirs in zip(built.terms, terms, strict=True):
        assert np.array_equal(ours[1], theirs[1]) and ours[0](ours[1])[0] == theirs[0](theirs[1])[0]
    points, values = case.reference(None)
    assert np.array_equal(points, module.reference(None)[0]) and values.shape == (2500, 1)


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_main_solves_and_prints_a_finite_l2re(path, tmp_path, monkeypatch):
    import symgrad.pinn.residual_loss as residual_loss

    monkeypatch.setattr(residual_loss, "fast_backend", lambda: "numpy")  # no C compile in the background
    module = load(path)
    text = path.read_text(encoding="utf-8")
    assert 'if __name__ == "__main__":' in text and "PINNacle" in text.split('"""')[1]
    assert re.search(r"^from symgrad", text, re.M) and not re.search(
        r"^(from|import) (bench|pinnacle)", text, re.M
    )
    root = None
    if module.FILES:
        with pytest.raises(FileNotFoundError, match="PINNacle checkout"):
            module.main(0.5, None)
        fake_checkout(tmp_path, module)
        root = str(tmp_path)
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        error = module.main(0.5, root)
    out = printed.getvalue()
    assert out.startswith("solve: loss"), out
    ((count, shown),) = ERROR.findall(out)
    assert int(count) == len(module.reference(root)[0]) and math.isfinite(float(shown))
    assert float(shown) == pytest.approx(error, rel=1e-3)


def test_a_script_runs_as_a_program(tmp_path):
    env = {
        **os.environ,
        "CC": str(tmp_path / "no-compiler"),  # no C backend: NumPy kernels, nothing compiles
        "SYMGRAD_CACHE": str(tmp_path / "cache"),
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
    }
    done = subprocess.run(
        [sys.executable, str(FOLDER / "wave_1d.py"), "1"],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert "Traceback" not in done.stderr
    ((count, shown),) = ERROR.findall(done.stdout)
    assert int(count) == 2500 and math.isfinite(float(shown)), done.stdout
