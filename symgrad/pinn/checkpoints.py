"""Checkpoints: weights (and the optimizer's state) in one ``.npz`` archive, written atomically.

A save goes to a temporary file in the same folder and is renamed over the old checkpoint only once
it is whole, so a failed save (disk full, a size limit) leaves the old one intact. A load checks
every name, shape and the optimizer's state before it changes anything.
"""

from __future__ import annotations

import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from symgrad.files import atomic_file
from symgrad.parameter import Parameter, all_parameters


def _keys(params: Sequence[Parameter], where: str) -> list[str]:
    keys = [f"param:{p.name}" for p in params]
    repeated = sorted({p.name for p in params if keys.count(f"param:{p.name}") > 1})
    if repeated:
        raise ValueError(
            f"{where}: several Parameters are named {repeated}; give each a distinct name "
            "(Parameter(..., name=...)) so the checkpoint can tell them apart"
        )
    return keys


def save_checkpoint(path: str | Path, params, optimizer=None) -> Path:
    """Write the weights of ``params`` (a network or Parameters) and ``optimizer``'s state to ``path``
    exactly (no suffix is added); returns the path. Reloads bit for bit."""
    params = all_parameters(params)
    arrays = {key: p._value() for key, p in zip(_keys(params, "save_checkpoint"), params)}
    if optimizer is not None:
        arrays.update(optimizer.state())
    path = Path(path)
    with atomic_file(path) as file:
        np.savez(file, **arrays)
    return path


def load_checkpoint(path: str | Path, params, optimizer=None) -> None:
    """Restore what :func:`save_checkpoint` wrote into ``params`` (and ``optimizer``). Nothing is
    changed unless every weight is there with its shape."""
    params = all_parameters(params)
    keys = _keys(params, "load_checkpoint")
    path = Path(path)
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        raise ValueError(f"load_checkpoint: cannot read {path} ({exc})") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ValueError(
            f"load_checkpoint: {path} is a single array, not a checkpoint (.npz archive of named weights)"
        )
    with data:
        values = {}
        for key, p in zip(keys, params):
            if key not in data.files:
                raise KeyError(f"load_checkpoint: {path} has no weights for parameter {p.name!r}")
            value = data[key]
            if value.shape != p.shape:
                raise ValueError(
                    f"load_checkpoint: {path} holds {p.name!r} with shape {value.shape}, the network's "
                    f"has shape {p.shape}; nothing was loaded"
                )
            values[p.name] = value
        state = {k: data[k] for k in data.files if not k.startswith("param:")}
    if optimizer is not None:
        optimizer.load_state(state)  # checks its own shapes before changing anything
    for p in params:
        p.set_data(values[p.name])


__all__ = ["load_checkpoint", "save_checkpoint"]
