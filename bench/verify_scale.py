"""verify at the size of real models (issue 41): symgrad.verify(model, x, weights=True) against
torch.autograd.gradcheck (full and fast_mode) on the same model and input, in one run.

symgrad compares torch.autograd's J^T v for two random cotangents with the exact reverse sweep in
extended precision, entry by entry; gradcheck compares the analytical Jacobian with finite
differences (full: one column per input entry; fast_mode: one random projection). Full gradcheck
is run only where the weights are few enough to finish in minutes (--full-limit).

    python bench/verify_scale.py [--models mlp transformer resnet big] [--full-limit 25000]
"""

from __future__ import annotations

import argparse
import resource
import time

import torch

import symgrad

torch.set_num_threads(2)


class ResNetBlock(torch.nn.Module):
    """Two 3x3 convolutions with BatchNorm (eval) and a skip connection, then pooling and a head."""

    def __init__(self, channels: int = 32):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(channels)
        self.conv2 = torch.nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(channels)
        self.head = torch.nn.Linear(channels, 10)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = torch.relu(self.bn2(self.conv2(y)) + x)
        return self.head(torch.nn.functional.adaptive_avg_pool2d(y, 1).flatten(1))


def models() -> dict:
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(
        torch.nn.Linear(64, 512),
        torch.nn.Tanh(),
        torch.nn.Linear(512, 512),
        torch.nn.GELU(),
        torch.nn.Linear(512, 10),
    )
    encoder = torch.nn.TransformerEncoderLayer(
        d_model=128, nhead=4, dim_feedforward=512, dropout=0.0, batch_first=True
    )
    block = ResNetBlock()
    big = torch.nn.Sequential(
        torch.nn.Linear(1024, 2048), torch.nn.GELU(), torch.nn.Linear(2048, 2048), torch.nn.Tanh(),
        torch.nn.Linear(2048, 2048), torch.nn.ReLU(), torch.nn.Linear(2048, 1024),
    )  # fmt: skip
    return {
        "mlp": (mlp, (8, 64)),
        "transformer": (encoder, (2, 16, 128)),
        "resnet": (block, (2, 32, 8, 8)),
        "big": (big, (4, 1024)),
    }


def gradcheck_seconds(model, x, fast: bool) -> tuple[float, bool]:
    params = [p for p in model.parameters()]

    def fn(x, *weights):
        return torch.func.functional_call(model, dict(zip(dict(model.named_parameters()), weights)), (x,))

    started = time.perf_counter()
    ok = torch.autograd.gradcheck(fn, (x.requires_grad_(), *params), fast_mode=fast, raise_exception=False)
    return time.perf_counter() - started, ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["mlp", "transformer", "resnet", "big"])
    parser.add_argument(
        "--full-limit", type=int, default=25_000, help="weights up to which full gradcheck runs"
    )
    args = parser.parse_args()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float64")
    print(
        f"{'model':12} {'weights':>10} {'symgrad s':>10} {'ok':>4} {'gradcheck fast s':>17} {'ok':>4} {'full s':>8}"
    )
    for name in args.models:
        model, shape = models()[name]
        model = model.double().eval()
        x = torch.randn(*shape, dtype=torch.float64)
        weights = sum(p.numel() for p in model.parameters())
        started = time.perf_counter()
        report = symgrad.verify(model, x, weights=True)
        ours = time.perf_counter() - started
        fast, fast_ok = gradcheck_seconds(model, x.clone(), fast=True)
        full = (
            "skipped" if weights > args.full_limit else f"{gradcheck_seconds(model, x.clone(), False)[0]:.1f}"
        )
        print(
            f"{name:12} {weights:>10} {ours:>10.1f} {str(report.ok):>4} {fast:>17.1f} {str(fast_ok):>4} {full:>8}",
            flush=True,
        )
    print(f"peak memory {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e6:.2f} GB")


if __name__ == "__main__":
    main()
