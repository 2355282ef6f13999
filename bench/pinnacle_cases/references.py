"""PINNacle's metric (L2RE) and its references: COMSOL files read, exact solutions sampled."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


# ----- the metric and the reference files -----
def l2re(predicted, reference) -> float:
    """PINNacle's L2RE: sqrt(mean((y - y_ref)^2)) / sqrt(mean(y_ref^2)) over every point and output."""
    predicted, reference = np.asarray(predicted, float), np.asarray(reference, float)
    if predicted.shape != reference.shape:
        raise ValueError(
            f"l2re: prediction {predicted.shape} and reference {reference.shape} differ in shape"
        )
    return float(np.sqrt(np.mean((predicted - reference) ** 2)) / np.sqrt(np.mean(reference**2)))


def read_comsol(path: Path) -> tuple[np.ndarray, list[str]]:
    """A COMSOL text export: its numbers (rows with a NaN dropped, as PINNacle drops them) and the
    column names of its last header line (empty when it has no header)."""
    if not path.is_file():
        raise FileNotFoundError(f"PINNacle reference file {path} is absent")
    header = [line for line in path.read_text().splitlines() if line.startswith("%")]
    data = np.loadtxt(path, comments="%", ndmin=2)
    names = re.split(r"\s{2,}", header[-1].lstrip("% ").strip()) if header else []
    return data[~np.isnan(data).any(axis=1)], names


def steady(path: Path, dim: int, outputs: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Columns: ``dim`` coordinates, then ``outputs`` values."""
    data, _ = read_comsol(path)
    if data.shape[1] < dim + outputs:
        raise ValueError(
            f"{path.name}: {data.shape[1]} columns, expected {dim} coordinates and {outputs} values"
        )
    return data[:, :dim], data[:, dim : dim + outputs]


def transient(path: Path, dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Columns: ``dim`` space coordinates, then one value per time (``u @ t=...`` in the header).
    Points (x.., t) for every node and time, in that order; values (n, 1)."""
    data, names = read_comsol(path)
    times = [float(m.group(1)) for m in (re.search(r"t=([-+0-9.eE]+)", n) for n in names) if m]
    if len(times) != data.shape[1] - dim:
        raise ValueError(
            f"{path.name}: {len(times)} times in the header for {data.shape[1] - dim} value columns"
        )
    space, values = data[:, :dim], data[:, dim:]
    points = np.hstack([np.repeat(space, len(times), axis=0), np.tile(times, len(space))[:, None]])
    return points, values.reshape(-1, 1)


def grid(lows: Sequence[float], highs: Sequence[float], counts: Sequence[int]) -> np.ndarray:
    """A tensor grid strictly inside the box (as PINNacle's test points, boundary excluded), (n, dim)."""
    axes = [np.linspace(lo, hi, k + 2)[1:-1] for lo, hi, k in zip(lows, highs, counts)]
    return np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)


def exact(points: np.ndarray, solution: Callable) -> tuple[np.ndarray, np.ndarray]:
    """The points (n, dim) and the solution there, (n, outputs); ``solution`` gives an array or a tuple."""
    values = solution(*points.T)
    values = values if isinstance(values, tuple) else (values,)
    return points, np.column_stack([np.broadcast_to(v, points.shape[:1]) for v in values])


def from_file(name: str, read: Callable[[Path], tuple[np.ndarray, np.ndarray]]) -> Callable:
    def reference(root: Path | None) -> tuple[np.ndarray, np.ndarray]:
        if root is None:
            raise FileNotFoundError(f"needs PINNacle's ref/{name} (pass --pinnacle)")
        return read(Path(root) / "ref" / name)

    return reference


def exact_on(lows, highs, counts, solution) -> Callable:
    return lambda root: exact(grid(lows, highs, counts), solution)
