"""Loss and gradient over collocation sets that outgrow one machine: Dask arrays, by blocks.

Each block of points goes to the compiled kernel on whichever worker holds it; the per-block
sums are added by Dask's tree reduction. Works unchanged on a ``dask.distributed`` cluster:
create a ``Client`` for it before calling, and Dask sends the work there (kernels are pickled as
their graphs and rebuilt on the workers). Dask is an optional extra (``pip install 'dask[array]'
distributed``): it is a well-kept distributed engine, so symgrad does not write its own.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.pinn.residual_loss import ResidualLoss


def _block_sums(kernel, values: list[np.ndarray], size: int, *block: np.ndarray) -> np.ndarray:
    """[sum of the loss over the block, sums of each gradient entry] (``size`` entries), as one
    vector; ``values``: every Parameter the kernel reads."""
    count = block[0].size
    if count == 0:
        return np.zeros(size)
    loss, *grads = kernel(*block, *values)  # means over the block
    return np.concatenate(
        [[float(loss) * count], *(np.asarray(g, np.float64).ravel() * count for g in grads)]
    )


def loss_and_gradient(loss: ResidualLoss, *coordinates) -> tuple[float, list[np.ndarray]]:
    """``loss(*coordinates)`` for Dask arrays of points (1-D, one per input, chunked alike).

    Equals the in-process result up to the order of floating-point additions.
    """
    try:
        import dask
        import dask.array as da
    except ImportError:
        raise ImportError("distributed evaluation uses Dask: pip install 'dask[array]' distributed") from None
    if not coordinates or any(not isinstance(c, da.Array) or c.ndim != 1 for c in coordinates):
        raise TypeError("loss_and_gradient: pass one 1-D dask.array per input of the loss")
    if len({c.chunks for c in coordinates}) != 1:
        raise ValueError(
            f"loss_and_gradient: the coordinate arrays must be chunked alike, got {[c.chunks for c in coordinates]}"
        )
    if len(coordinates) != len(loss.inputs):
        raise ValueError(
            f"loss_and_gradient: the loss takes {len(loss.inputs)} inputs, got {len(coordinates)} arrays"
        )
    loss.wait_until_compiled()
    weights = [np.asarray(p.asnumpy()) for p in loss.params]
    size = 1 + sum(w.size for w in weights)
    values = [np.asarray(p.asnumpy()) for p in loss.read]  # the weights, then any fixed Parameter
    kernel, values_ref = dask.delayed(loss.kernel), dask.delayed(values)
    blocks = zip(*(c.to_delayed().ravel() for c in coordinates))
    parts = [
        da.from_delayed(dask.delayed(_block_sums)(kernel, values_ref, size, *b), (size,), np.float64)
        for b in blocks
    ]
    total = da.stack(parts).sum(axis=0).compute() / coordinates[0].shape[0]
    grads, offset = [], 1
    for w in weights:
        grads.append(total[offset : offset + w.size].reshape(w.shape).astype(w.dtype))
        offset += w.size
    return float(total[0]), grads


def as_dask(points: np.ndarray | Sequence[np.ndarray], chunk: int = 100_000):
    """Point arrays (dim, n) as a tuple of 1-D Dask arrays of ``chunk`` points each."""
    import dask.array as da

    return tuple(da.from_array(np.asarray(row), chunks=chunk) for row in points)


__all__ = ["as_dask", "loss_and_gradient"]
