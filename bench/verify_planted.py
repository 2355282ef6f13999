"""Planted bugs in custom PyTorch derivative rules: does each checker flag the wrong ones, and only them?

Each case is a ``torch.autograd.Function`` with a hand-written backward, right or wrong (wrong sign,
missing term, wrong reduction over a broadcast axis, an error only at second order, a relative error
of 1e-6, an error visible only in float32, ...). In the same run:

- symgrad: ``symgrad.verify(fn, *inputs, order=2)``, torch.autograd against the exact closed form
  of the imported forward pass, in the case's dtype;
- ``torch.autograd.gradcheck`` and ``gradgradcheck`` with their defaults, called as a user would: in
  the case's dtype (PyTorch warns below float64), and again in float64 where the case is float32.

    python bench/verify_planted.py
"""

from __future__ import annotations

import time
import warnings

import torch

import symgrad


def function(forward, backward, name):
    """A custom autograd Function from a forward and a backward(ctx, grad, *inputs)."""

    def fwd(ctx, *xs):
        ctx.save_for_backward(*xs)
        return forward(*xs)

    def bwd(ctx, g):
        return backward(g, *ctx.saved_tensors)

    cls = type(
        name, (torch.autograd.Function,), {"forward": staticmethod(fwd), "backward": staticmethod(bwd)}
    )
    return cls.apply


def _sum_to(g, shape):
    return g.sum(0, keepdim=True) if shape[0] == 1 else g


def _cases():
    """(name, right?, program, inputs): each program sums its output, so it is a scalar."""
    x3 = torch.tensor([0.3, -0.7, 1.1], dtype=torch.float64)
    kink = torch.tensor([0.0, -0.7, 1.1], dtype=torch.float64)
    a = torch.tensor([[0.2, -0.5, 0.9], [1.1, 0.4, -0.3], [-0.8, 0.6, 0.1]], dtype=torch.float64)
    b = torch.tensor([[0.7, 0.1, -0.4], [0.3, -0.9, 0.5], [0.2, 0.8, -0.6]], dtype=torch.float64)
    wide = torch.tensor(
        [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.1, 0.2, 0.3], [-1.0, 1.0, 0.7]], dtype=torch.float64
    )
    row = torch.tensor([[0.3, -0.2, 1.2]], dtype=torch.float64)
    big32 = torch.tensor([100.0, -3.0, 0.5], dtype=torch.float32)

    def tanh_y(g, x):
        y = torch.tanh(x)
        return g * (1 - y * y)

    def tanh_detached(g, x):
        y = torch.tanh(x).detach()  # first order right; its own derivative is lost
        return g * (1 - y * y)

    def softmax(x):
        e = torch.exp(x - x.max())
        return e / e.sum()

    def lse(x):
        return torch.log(torch.exp(x).sum())

    def clamp01(x):
        return torch.clamp(x, 0.0, 1.0)

    cases = [
        ("square", True, function(lambda x: x * x, lambda g, x: 2 * x * g, "Square"), (x3,)),
        ("tanh", True, function(torch.tanh, tanh_y, "Tanh"), (x3,)),
        ("relu at its kink", True, function(torch.relu, lambda g, x: g * (x > 0), "ReLU"), (kink,)),
        ("abs at its kink", True, function(torch.abs, lambda g, x: g * torch.sign(x), "Abs"), (kink,)),
        ("sigmoid", True, function(torch.sigmoid, lambda g, x: g * torch.sigmoid(x) * torch.sigmoid(-x), "Sig"), (x3,)),
        ("exp", True, function(torch.exp, lambda g, x: g * torch.exp(x), "Exp"), (x3,)),
        ("sin", True, function(torch.sin, lambda g, x: g * torch.cos(x), "Sin"), (x3,)),
        ("logsumexp", True, function(lse, lambda g, x: g * softmax(x), "LSE"), (x3,)),
        ("norm", True, function(torch.linalg.norm, lambda g, x: g * x / torch.linalg.norm(x), "Norm"), (x3,)),
        ("matmul", True, function(torch.mm, lambda g, a, b: (g @ b.T, a.T @ g), "MM"), (a, b)),
        ("broadcast mul", True, function(torch.mul, lambda g, x, r: (g * r, _sum_to(g * x, r.shape)), "BMul"), (wide, row)),
        ("softplus float32, stable", True, function(torch.nn.functional.softplus, lambda g, x: g * torch.sigmoid(x), "SP"), (big32,)),
        ("tanh float32", True, function(torch.tanh, tanh_y, "Tanh32"), (x3.float(),)),
        ("clamp", True, function(clamp01, lambda g, x: g * ((x > 0) & (x < 1)), "Clamp"), (x3,)),
        ("square: wrong sign", False, function(lambda x: x * x, lambda g, x: -2 * x * g, "SquareW"), (x3,)),
        ("tanh: missing square", False, function(torch.tanh, lambda g, x: g * (1 - torch.tanh(x)), "TanhW"), (x3,)),
        ("tanh: detached in backward (2nd order)", False, function(torch.tanh, tanh_detached, "TanhD"), (x3,)),
        ("sin: relative error 1e-6", False, function(torch.sin, lambda g, x: g * torch.cos(x) * (1 + 1e-6), "SinW"), (x3,)),
        ("exp: wrong function", False, function(torch.exp, lambda g, x: g * x, "ExpW"), (x3,)),
        ("logsumexp: not normalised", False, function(lse, lambda g, x: g * torch.exp(x), "LSEW"), (x3,)),
        ("norm: wrong power", False, function(torch.linalg.norm, lambda g, x: g * x / torch.linalg.norm(x) ** 2, "NormW"), (x3,)),
        ("matmul: wrong transpose", False, function(torch.mm, lambda g, a, b: (g @ b.T, a @ g), "MMW"), (a, b)),
        ("broadcast mul: mean, not sum", False, function(torch.mul, lambda g, x, r: (g * r, (g * x).mean(0, keepdim=True)), "BMulW"), (wide, row)),
        ("two inputs: one gradient missing", False, function(torch.mm, lambda g, a, b: (g @ b.T, None), "MMN"), (a, b)),
        ("softplus: overflows in float32", False, function(torch.nn.functional.softplus, lambda g, x: g * torch.exp(x) / (1 + torch.exp(x)), "SPW"), (big32,)),
        ("clamp: upper bound ignored", False, function(clamp01, lambda g, x: g * (x > 0), "ClampW"), (x3,)),
    ]  # fmt: skip
    return cases


def _torch_check(check, program, inputs) -> str:
    xs = tuple(x.detach().clone().requires_grad_(True) for x in inputs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "pass" if check(program, xs, raise_exception=False) else "FLAG"
        except Exception as e:  # gradcheck raises for some failures despite raise_exception=False
            return f"FLAG ({type(e).__name__})"


def main() -> None:
    rows, seconds = [], []
    for name, right, op, inputs in _cases():

        def program(*xs, op=op):
            return op(*xs).sum()

        program.__name__ = name.split(":")[0].replace(" ", "_")
        start = time.perf_counter()
        report = symgrad.verify(program, *inputs, order=2)
        seconds.append(time.perf_counter() - start)
        ours = "pass" if report.ok else "FLAG"
        dtype = str(inputs[0].dtype).removeprefix("torch.")
        as_given = [
            _torch_check(c, program, inputs) for c in (torch.autograd.gradcheck, torch.autograd.gradgradcheck)
        ]
        doubles = tuple(x.double() for x in inputs)
        in_f64 = [
            _torch_check(c, program, doubles)
            for c in (torch.autograd.gradcheck, torch.autograd.gradgradcheck)
        ]
        rows.append((name, "right" if right else "WRONG", dtype, ours, *as_given, *in_f64))
    head = (
        "case",
        "truth",
        "dtype",
        "symgrad order<=2",
        "gradcheck",
        "gradgradcheck",
        "gradcheck f64",
        "gradgradcheck f64",
    )
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))

    def score(column: int) -> str:
        flagged = [r for r in rows if r[column].startswith("FLAG")]
        caught = sum(r[1] == "WRONG" for r in flagged)
        wrong = sum(r[1] == "WRONG" for r in rows)
        alarms = sum(r[1] == "right" for r in flagged)
        return f"{head[column]}: flags {caught}/{wrong} wrong, {alarms} false alarm(s) in {len(rows) - wrong} right"

    print()
    for column in range(3, len(head)):
        print(score(column))
    print(
        f"symgrad.verify (import + order-2 torch.autograd + 50-digit reference): {min(seconds):.2f}-{max(seconds):.2f} s "
        f"a case, {sum(seconds):.1f} s in all"
    )


if __name__ == "__main__":
    main()
