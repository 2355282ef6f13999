"""Planted bugs in custom derivative rules: does each checker flag the wrong ones, and only them?

Each case is a PyTorch ``torch.autograd.Function`` or a JAX ``jax.custom_vjp`` with a hand-written
backward, right or wrong (wrong sign, missing term, wrong reduction over a broadcast axis, an error
only at second order, a relative error of 1e-6, an error visible only in float32, ...). In the
same run:

- symgrad: ``symgrad.verify(fn, *inputs, order=2)``, the framework's derivatives against the exact
  closed form of the imported forward pass, in the case's dtype;
- PyTorch: ``torch.autograd.gradcheck`` and ``gradgradcheck`` with their defaults, called as a user
  would: in the case's dtype (PyTorch warns below float64), and again in float64;
- JAX (where installed): ``jax.test_util.check_grads(f, args, order=2, modes=["rev"])`` with its
  defaults, in the case's dtype.

    python bench/verify_planted.py
"""

from __future__ import annotations

import importlib.util
import time
import warnings

import numpy as np
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


def _jax_cases():
    """The same cases as ``jax.custom_vjp`` functions."""
    import jax
    import jax.numpy as jnp

    def custom(forward, backward):
        f = jax.custom_vjp(forward)
        f.defvjp(lambda *xs: (forward(*xs), xs), lambda xs, g: tuple(backward(g, *xs)))
        return f

    def tanh_y(g, x):
        y = jnp.tanh(x)
        return (g * (1 - y * y),)

    def tanh_detached(g, x):
        y = jax.lax.stop_gradient(jnp.tanh(x))
        return (g * (1 - y * y),)

    def lse(x):
        return jnp.log(jnp.exp(x).sum())

    def softmax(x):
        e = jnp.exp(x)
        return e / e.sum()

    def clamp01(x):
        return jnp.clip(x, 0.0, 1.0)

    def norm(x):
        return jnp.sqrt((x * x).sum())

    def softplus(x):
        return jnp.log1p(jnp.exp(-jnp.abs(x))) + jnp.maximum(x, 0.0)

    x3 = jnp.array([0.3, -0.7, 1.1], dtype=jnp.float64)
    kink = jnp.array([0.0, -0.7, 1.1], dtype=jnp.float64)
    a = jnp.array([[0.2, -0.5, 0.9], [1.1, 0.4, -0.3], [-0.8, 0.6, 0.1]], dtype=jnp.float64)
    b = jnp.array([[0.7, 0.1, -0.4], [0.3, -0.9, 0.5], [0.2, 0.8, -0.6]], dtype=jnp.float64)
    wide = jnp.array(
        [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [0.1, 0.2, 0.3], [-1.0, 1.0, 0.7]], dtype=jnp.float64
    )
    row = jnp.array([[0.3, -0.2, 1.2]], dtype=jnp.float64)
    big32 = jnp.array([100.0, -3.0, 0.5], dtype=jnp.float32)
    relu = lambda x: jnp.maximum(x, 0.0)  # noqa: E731
    return [
        ("square", True, custom(lambda x: x * x, lambda g, x: (2 * x * g,)), (x3,)),
        ("tanh", True, custom(jnp.tanh, tanh_y), (x3,)),
        ("relu at its kink", True, custom(relu, lambda g, x: (g * (x > 0),)), (kink,)),
        ("abs at its kink", True, custom(jnp.abs, lambda g, x: (g * jnp.sign(x),)), (kink,)),
        ("sigmoid", True, custom(jax.nn.sigmoid, lambda g, x: (g * jax.nn.sigmoid(x) * jax.nn.sigmoid(-x),)), (x3,)),
        ("exp", True, custom(jnp.exp, lambda g, x: (g * jnp.exp(x),)), (x3,)),
        ("sin", True, custom(jnp.sin, lambda g, x: (g * jnp.cos(x),)), (x3,)),
        ("logsumexp", True, custom(lse, lambda g, x: (g * softmax(x),)), (x3,)),
        ("norm", True, custom(norm, lambda g, x: (g * x / norm(x),)), (x3,)),
        ("matmul", True, custom(jnp.matmul, lambda g, a, b: (g @ b.T, a.T @ g)), (a, b)),
        ("broadcast mul", True, custom(jnp.multiply, lambda g, x, r: (g * r, (g * x).sum(0, keepdims=True))), (wide, row)),
        ("softplus float32, stable", True, custom(softplus, lambda g, x: (g * jax.nn.sigmoid(x),)), (big32,)),
        ("tanh float32", True, custom(jnp.tanh, tanh_y), (x3.astype(jnp.float32),)),
        ("clamp", True, custom(clamp01, lambda g, x: (g * ((x > 0) & (x < 1)),)), (x3,)),
        ("square: wrong sign", False, custom(lambda x: x * x, lambda g, x: (-2 * x * g,)), (x3,)),
        ("tanh: missing square", False, custom(jnp.tanh, lambda g, x: (g * (1 - jnp.tanh(x)),)), (x3,)),
        ("tanh: detached in backward (2nd order)", False, custom(jnp.tanh, tanh_detached), (x3,)),
        ("sin: relative error 1e-6", False, custom(jnp.sin, lambda g, x: (g * jnp.cos(x) * (1 + 1e-6),)), (x3,)),
        ("exp: wrong function", False, custom(jnp.exp, lambda g, x: (g * x,)), (x3,)),
        ("logsumexp: not normalised", False, custom(lse, lambda g, x: (g * jnp.exp(x),)), (x3,)),
        ("norm: wrong power", False, custom(norm, lambda g, x: (g * x / norm(x) ** 2,)), (x3,)),
        ("matmul: wrong transpose", False, custom(jnp.matmul, lambda g, a, b: (g @ b.T, a @ g)), (a, b)),
        ("broadcast mul: mean, not sum", False, custom(jnp.multiply, lambda g, x, r: (g * r, (g * x).mean(0, keepdims=True))), (wide, row)),
        ("two inputs: one gradient zero", False, custom(jnp.matmul, lambda g, a, b: (g @ b.T, jnp.zeros_like(b))), (a, b)),
        ("softplus: overflows in float32", False, custom(softplus, lambda g, x: (g * jnp.exp(x) / (1 + jnp.exp(x)),)), (big32,)),
        ("clamp: upper bound ignored", False, custom(clamp01, lambda g, x: (g * (x > 0),)), (x3,)),
    ]  # fmt: skip


def _check_grads(program, inputs) -> str:
    from jax.test_util import check_grads

    try:
        check_grads(program, inputs, order=2, modes=["rev"])
        return "pass"
    except AssertionError:
        return "FLAG"
    except Exception as e:  # a NaN, or a transform JAX cannot do
        return f"FLAG ({type(e).__name__})"


def _table(head, rows) -> None:
    widths = [max(len(str(r[i])) for r in [head, *rows]) for i in range(len(head))]
    print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in rows:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)))
    print()
    for column in range(3, len(head)):
        flagged = [r for r in rows if r[column].startswith("FLAG")]
        caught = sum(r[1] == "WRONG" for r in flagged)
        wrong = sum(r[1] == "WRONG" for r in rows)
        alarms = sum(r[1] == "right" for r in flagged)
        print(
            f"{head[column]}: flags {caught}/{wrong} wrong, {alarms} false alarm(s) in {len(rows) - wrong} right"
        )


def _run(cases, others) -> tuple[list[tuple], list[float]]:
    """symgrad's verdict and each other checker's (``others(program, inputs) -> list[str]``) on
    every case, each case's program being its op summed to a scalar."""
    rows, seconds = [], []
    for name, right, op, inputs in cases:

        def program(*xs, op=op):
            return op(*xs).sum()

        program.__name__ = name.split(":")[0].replace(" ", "_")
        start = time.perf_counter()
        report = symgrad.verify(program, *inputs, order=2)
        seconds.append(time.perf_counter() - start)
        dtype = str(np.asarray(inputs[0]).dtype)
        truth = "right" if right else "WRONG"
        rows.append((name, truth, dtype, "pass" if report.ok else "FLAG", *others(program, inputs)))
    return rows, seconds


def _pytorch_checks(program, inputs) -> list[str]:
    checks = (torch.autograd.gradcheck, torch.autograd.gradgradcheck)
    doubles = tuple(x.double() for x in inputs)
    return [_torch_check(c, program, inputs) for c in checks] + [
        _torch_check(c, program, doubles) for c in checks
    ]


def jax_main() -> None:
    import jax

    jax.config.update("jax_enable_x64", True)
    rows, seconds = _run(_jax_cases(), lambda program, inputs: [_check_grads(program, inputs)])
    print(f"\nJAX {jax.__version__}: jax.custom_vjp cases")
    _table(("case", "truth", "dtype", "symgrad order<=2", "check_grads order 2"), rows)
    print(f"symgrad.verify: {min(seconds):.2f}-{max(seconds):.2f} s a case, {sum(seconds):.1f} s in all")


def main() -> None:
    rows, seconds = _run(_cases(), _pytorch_checks)
    print(f"PyTorch {torch.__version__}: torch.autograd.Function cases")
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
    _table(head, rows)
    print(
        f"symgrad.verify (import + order-2 torch.autograd + 50-digit reference): {min(seconds):.2f}-{max(seconds):.2f} s "
        f"a case, {sum(seconds):.1f} s in all"
    )


if __name__ == "__main__":
    main()
    if importlib.util.find_spec("jax") is not None:
        jax_main()
    else:
        print("\nJAX is not installed (pip install jax): no jax.custom_vjp cases")
