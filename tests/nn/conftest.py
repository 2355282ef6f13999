"""Fixtures of the nn tests (and of tests/train, which imports them): real MindSpore, warmed up; a
scratch working directory for it; its warnings silenced."""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest


@pytest.fixture(scope="module")
def ms():
    """Real MindSpore, warmed up: under NumPy 2 its first op that converts a shape fails once (an
    import inside MindSpore 2.10), later ones work."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindspore

        mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
        with contextlib.suppress(Exception):
            mindspore.ops.reshape(mindspore.Tensor(np.zeros(2, np.float32)), (-1,))
    return mindspore


@pytest.fixture
def quiet():
    """MindSpore warns and logs freely; the comparisons are about numbers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run MindSpore from a scratch directory (it writes its compiler's failure reports to the cwd)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
