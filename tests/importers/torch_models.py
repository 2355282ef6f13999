"""Shared by the PyTorch model tests: float64 inputs from a seed, and a module in float64 eval mode."""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("torch") is not None:
    import torch
    from torch import nn


def _data(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


def _eval(module: nn.Module) -> nn.Module:
    torch.manual_seed(0)
    return module.double().eval()
