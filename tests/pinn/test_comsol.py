"""symgrad.pinn's COMSOL readers (comsol_steady, comsol_transient, read_comsol) on small files in
COMSOL's text format, against the values written into them, and their refusals of bad files."""

from __future__ import annotations

import numpy as np
import pytest

from symgrad.pinn import comsol_steady, comsol_transient, read_comsol

TRANSIENT = "% Model:   x.mph\n% X                       u (1) @ t=0              u (1) @ t=0.5\n-1  0  0.1\n0.5  1  1.5\n"


def test_transient_file_gives_every_node_at_every_time(tmp_path):
    path = tmp_path / "t.dat"
    path.write_text(TRANSIENT)
    points, values = comsol_transient(path, 1)
    assert points.tolist() == [[-1, 0], [-1, 0.5], [0.5, 0], [0.5, 0.5]]
    assert values[:, 0].tolist() == [0, 0.1, 1, 1.5]


def test_steady_file_drops_rows_with_a_nan(tmp_path):
    path = tmp_path / "s.dat"
    path.write_text("% X  Y  u  v\n0 0 1 5\n1 NaN 2 6\n1 1 3 7\n")
    points, values = comsol_steady(path, 2)
    assert points.tolist() == [[0, 0], [1, 1]] and values[:, 0].tolist() == [1, 3]
    assert comsol_steady(str(path), 2, 2)[1].tolist() == [[1, 5], [3, 7]]  # a path as a string too
    data, names = read_comsol(path)
    assert data.shape == (2, 4) and names == ["X", "Y", "u", "v"]


@pytest.mark.parametrize("dim, outputs", [(1, 1), (2, 3), (3, 2)])
def test_steady_round_trip_of_random_columns(tmp_path, dim, outputs):
    table = np.random.default_rng(dim).normal(size=(40, dim + outputs))
    path = tmp_path / "r.txt"
    np.savetxt(path, table, header="  ".join(f"c{k}" for k in range(dim + outputs)), comments="% ")
    points, values = comsol_steady(path, dim, outputs)
    np.testing.assert_array_equal(points, table[:, :dim])
    np.testing.assert_array_equal(values, table[:, dim:])


def test_bad_files_are_refused_naming_the_reader_and_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"read_comsol: reference file .*absent\.dat is absent"):
        comsol_steady(tmp_path / "absent.dat", 2)
    narrow = tmp_path / "narrow.dat"
    narrow.write_text("% X  u\n0 1\n")
    with pytest.raises(
        ValueError, match="comsol_steady: narrow.dat has 2 columns, expected 2 coordinates and 1 values"
    ):
        comsol_steady(narrow, 2)
    untimed = tmp_path / "untimed.dat"
    untimed.write_text("% X  u  w\n0 1 2\n")
    with pytest.raises(
        ValueError, match="comsol_transient: untimed.dat names 0 times in its header for 2 value columns"
    ):
        comsol_transient(untimed, 1)
