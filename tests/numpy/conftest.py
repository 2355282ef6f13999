"""Fixtures of the symgrad.numpy tests: real MindSpore's names (``library("mindspore")``), warmed up."""

from __future__ import annotations

import warnings

import pytest

from tests.numpy.helpers import library


@pytest.fixture(scope="module")
def ms():
    """MindSpore, warmed up: under NumPy 2 its first Tensor-and-number op fails once (SystemError)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib = library("mindspore")
        try:
            lib.np.linspace(0, 1, 3)
        except SystemError:
            pass
    return lib
