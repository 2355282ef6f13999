"""Reference solutions from COMSOL text exports (``.dat``/``.txt``: ``%`` header lines, then one row
a mesh node), the format of PINNacle's ``ref/`` folder and of many finite-element references.

- :func:`read_comsol`: the numbers (rows holding a NaN dropped) and the last header line's column names;
- :func:`comsol_steady`: ``dim`` coordinates then ``outputs`` values a row;
- :func:`comsol_transient`: ``dim`` space coordinates then one value a time (``u @ t=0.5`` in the
  header), returned as points (x.., t) for every node and time.

Points come as (n, dim) and values as (n, outputs); ``predict(u, points.T)`` evaluates a solution there.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np


def read_comsol(path: str | Path) -> tuple[np.ndarray, list[str]]:
    """A COMSOL text export: its numbers, (rows, columns), with the rows holding a NaN dropped, and
    the column names of its last header line (empty when it has no header)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"read_comsol: reference file {path} is absent")
    lines = path.read_text().splitlines()  # read once: the header's names, then the numbers
    header = [line for line in lines if line.startswith("%")]
    data = np.loadtxt(lines, comments="%", ndmin=2)
    names = re.split(r"\s{2,}", header[-1].lstrip("% ").strip()) if header else []
    return data[~np.isnan(data).any(axis=1)], names


def comsol_steady(path: str | Path, dim: int, outputs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """A steady solution: points (n, dim) and values (n, outputs), from columns of ``dim``
    coordinates then ``outputs`` values."""
    data, _ = read_comsol(path)
    if data.shape[1] < dim + outputs:
        raise ValueError(
            f"comsol_steady: {Path(path).name} has {data.shape[1]} columns, expected {dim} coordinates "
            f"and {outputs} values"
        )
    return data[:, :dim], data[:, dim : dim + outputs]


def comsol_transient(path: str | Path, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """A time-dependent solution: columns of ``dim`` space coordinates, then one value a time (each
    header name holding ``t=...``). Points (n * times, dim + 1) as (x.., t), every node at every
    time in that order, and values (n * times, 1)."""
    data, names = read_comsol(path)
    times = [float(m.group(1)) for m in (re.search(r"t=([-+0-9.eE]+)", n) for n in names) if m]
    if len(times) != data.shape[1] - dim:
        raise ValueError(
            f"comsol_transient: {Path(path).name} names {len(times)} times in its header for "
            f"{data.shape[1] - dim} value columns"
        )
    space, values = data[:, :dim], data[:, dim:]
    points = np.hstack([np.repeat(space, len(times), axis=0), np.tile(times, len(space))[:, None]])
    return points, values.reshape(-1, 1)


__all__ = ["comsol_steady", "comsol_transient", "read_comsol"]
