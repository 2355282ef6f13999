"""A picture of a 2-D field: the prediction, and the exact field and the error when given."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from symgrad.files import atomic_file


def plot_solution(
    path: str | Path,
    grid_a: np.ndarray,
    grid_b: np.ndarray,
    predicted: np.ndarray,
    exact: np.ndarray | None = None,
    labels=("x", "y"),
) -> Path:
    """A PNG of the predicted field, and of the exact one and the error when given."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = [("prediction", predicted)] + (
        [("exact", exact), ("|error|", np.abs(predicted - exact))] if exact is not None else []
    )
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
    for ax, (title, field) in zip(axes[0], panels):
        image = ax.pcolormesh(
            grid_a, grid_b, field, shading="auto", cmap="viridis" if title != "|error|" else "magma"
        )
        ax.set_title(title)
        ax.set_xlabel(labels[0])
        ax.set_ylabel(labels[1])
        fig.colorbar(image, ax=ax)
    fig.tight_layout()
    path = Path(path)
    try:
        with atomic_file(path) as file:  # the format from the name, as savefig(path) would choose
            fig.savefig(file, dpi=110, format=path.suffix.lstrip(".").lower() or "png")
    finally:
        plt.close(fig)
    return path


__all__ = ["plot_solution"]
