"""Optimizers over Parameters, driven by the gradient arrays a kernel returns."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from symgrad.parameter import Parameter


class Adam:
    """Adam (Kingma & Ba), the PyTorch/MindSpore formulation with bias correction."""

    def __init__(self, params: Sequence[Parameter], lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8):
        self.params = list(params)
        self.lr, self.betas, self.eps = lr, tuple(betas), eps
        self.step_count = 0
        self.m = [np.zeros_like(p.asnumpy()) for p in self.params]
        self.v = [np.zeros_like(p.asnumpy()) for p in self.params]

    def step(self, grads: Sequence[np.ndarray]) -> None:
        """Update every parameter from its gradient (same order as ``params``)."""
        if len(grads) != len(self.params):
            raise ValueError(f"Adam.step: {len(grads)} gradients for {len(self.params)} parameters")
        b1, b2 = self.betas
        self.step_count += 1
        c1, c2 = 1 - b1**self.step_count, 1 - b2**self.step_count
        for i, (p, g) in enumerate(zip(self.params, grads)):
            g = np.asarray(g)
            if g.shape != p.shape:
                raise ValueError(f"Adam.step: gradient of {p.name!r} has shape {g.shape}, expected {p.shape}")
            self.m[i] = b1 * self.m[i] + (1 - b1) * g
            self.v[i] = b2 * self.v[i] + (1 - b2) * g * g
            p.set_data(p.asnumpy() - self.lr * (self.m[i] / c1) / (np.sqrt(self.v[i] / c2) + self.eps))

    def state(self) -> dict[str, np.ndarray]:
        """Everything needed to resume exactly (for checkpoints)."""
        state = {"adam_step": np.array(self.step_count), "adam_lr": np.array(self.lr)}
        for i, (m, v) in enumerate(zip(self.m, self.v)):
            state[f"adam_m{i}"], state[f"adam_v{i}"] = m, v
        return state

    def load_state(self, state) -> None:
        self.step_count = int(state["adam_step"])
        self.lr = float(state["adam_lr"])
        self.m = [np.array(state[f"adam_m{i}"]) for i in range(len(self.params))]
        self.v = [np.array(state[f"adam_v{i}"]) for i in range(len(self.params))]
