"""Shared test settings: seeded randomness, paths to the shared guide and data."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

import lowering

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
GUIDE = SHARED / "seeds" / "000_b6042d210900a91b.txt"
PINN_REFERENCE = ROOT / "tests" / "data" / "pinn_reference_H32_N1000.npz"

settings.register_profile(
    "symgrad", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("symgrad")

# Probe the backends once, before any test: the probe imports PyTorch where it is installed, and that
# import raises the recursion limit, which Hypothesis reports as a warning inside whichever test
# happened to probe first.
lowering.available_backends()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _context_restored():
    """Each test starts from and leaves symgrad's default run settings (mode, device)."""
    from symgrad import context

    saved = dict(context._settings)
    yield
    context._settings.clear()
    context._settings.update(saved)
