"""Planted bugs in MindSpore ``Cell.bprop`` rules: does each checker flag the wrong ones, and only them?

Each case is a MindSpore script with a Cell whose ``bprop`` is right or wrong (wrong sign, a
missing term, a mean where the broadcast needs a sum, a relative error of 1e-6, a transposed
factor, the input used where the rule needs the output, ...), and a ``GradOperation`` call. In
the same run:

- symgrad: ``symgrad verify --against-mindspore`` (``verify_mindspore_script``): the script on
  MindSpore and on symgrad, MindSpore's gradients against symgrad's exact ones;
- central differences of MindSpore's own forward pass in the case's dtype, judged with
  ``torch.autograd.gradcheck``'s defaults (eps 1e-6 in float64, 1e-3 in float32; atol 1e-5,
  rtol 1e-3): what a MindSpore user checks by hand, since MindSpore ships no gradient checker.

    python bench/verify_planted_mindspore.py
"""

from __future__ import annotations

import runpy
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from symgrad.verification.mindspore_script import verify_mindspore_script

TEMPLATE = """
import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor

class Rule(nn.Cell):
    def construct(self, {args}):
        return {forward}
    def bprop(self, {args}, out, dout):
        return {backward}

net = Rule()
inputs = {inputs}
grads = ops.GradOperation(get_all=True)(net)(*inputs)
"""

X = "Tensor(np.array([0.3, -0.7, 1.1], DT))"
KINK = "Tensor(np.array([0.0, -0.7, 1.1], DT))"
A = "Tensor(np.array([[0.2, -0.5, 0.9], [1.1, 0.4, -0.3]], DT))"
B = "Tensor(np.array([0.7, 0.1, -0.4], DT))"
W = "Tensor(np.array([[0.7, 0.1, -0.4], [0.3, -0.9, 0.5], [0.2, 0.8, -0.6]], DT))"
S = "Tensor(np.array([[0.2, -0.5, 0.9], [1.1, 0.4, -0.3], [-0.8, 0.6, 0.1]], DT))"
TWO = "Tensor(np.array([2.0], DT))"
ONE = "Tensor(np.array([1.0], DT))"

# name: (right?, arguments, forward, backward, inputs); DT is the case's dtype
CASES = {
    "square": (True, "x", "ops.square(x)", f"(ops.mul(ops.mul(dout, x), {TWO}),)", f"({X},)"),
    "mul_add": (True, "x, y", "ops.add(ops.mul(x, y), x)", "(ops.add(ops.mul(dout, y), dout), ops.mul(dout, x))", f"({X}, {X})"),
    "relu_at_its_kink": (True, "x", "ops.relu(x)", "(ops.mul(dout, ops.cast(ops.gt(x, ops.zeros_like(x)), x.dtype)),)", f"({KINK},)"),
    "sigmoid_from_out": (True, "x", "ops.sigmoid(x)", f"(ops.mul(dout, ops.mul(out, ops.sub({ONE}, out))),)", f"({X},)"),
    "broadcast_bias_summed": (True, "a, b", "ops.add(a, b)", "(dout, ops.reduce_sum(dout, 0))", f"({A}, {B})"),
    "tanh_float64": (True, "x", "ops.tanh(x)", f"(ops.mul(dout, ops.sub({ONE}, ops.square(out))),)", f"({X},)"),
    "matmul": (True, "x, w", "ops.matmul(x, w)", "(ops.MatMul(transpose_b=True)(dout, w), ops.MatMul(transpose_a=True)(x, dout))", f"({S}, {W})"),
    "exp_large": (True, "x", "ops.exp(ops.mul(x, Tensor(np.array([8.0], DT))))", "(ops.mul(ops.mul(dout, out), Tensor(np.array([8.0], DT))),)", f"({X},)"),
    "wrong_sign": (False, "x", "ops.square(x)", f"(ops.neg(ops.mul(ops.mul(dout, x), {TWO})),)", f"({X},)"),
    "missing_term": (False, "x, y", "ops.add(ops.mul(x, y), x)", "(ops.mul(dout, y), ops.mul(dout, x))", f"({X}, {X})"),
    "mean_where_a_sum_belongs": (False, "a, b", "ops.add(a, b)", "(dout, ops.reduce_mean(dout, 0))", f"({A}, {B})"),
    "relative_error_1e-6_float64": (False, "x", "ops.square(x)", "(ops.mul(ops.mul(dout, x), Tensor(np.array([2.000002], DT))),)", f"({X},)"),
    "transposed_factor": (False, "x, w", "ops.matmul(x, w)", "(ops.matmul(dout, w), ops.MatMul(transpose_a=True)(x, dout))", f"({S}, {W})"),
    "input_where_output_belongs": (False, "x", "ops.tanh(x)", f"(ops.mul(dout, ops.sub({ONE}, ops.square(x))),)", f"({X},)"),
    "sigmoid_wrong_sign_inside": (False, "x", "ops.sigmoid(x)", f"(ops.mul(dout, ops.mul(out, ops.add({ONE}, out))),)", f"({X},)"),
}  # fmt: skip


def _dtype(name: str) -> str:
    return "np.float64" if "float64" in name else "np.float32"


def _script(directory: Path, name: str) -> Path:
    _, args, forward, backward, inputs = CASES[name]
    text = TEMPLATE.format(args=args, forward=forward, backward=backward, inputs=inputs).replace(
        "DT", _dtype(name)
    )
    path = directory / f"{name}.py"
    path.write_text(text)
    return path


def central_differences(path: Path) -> str:
    """MindSpore's bprop gradients against central differences of its forward, gradcheck's tolerances."""
    import mindspore

    scope = runpy.run_path(str(path))
    net, inputs, grads = scope["net"], scope["inputs"], scope["grads"]
    arrays = [t.asnumpy() for t in inputs]
    eps = 1e-6 if arrays[0].dtype == np.float64 else 1e-3

    def forward(values) -> float:
        return float(net.construct(*[mindspore.Tensor(v) for v in values]).asnumpy().sum())

    for k, (array, grad) in enumerate(zip(arrays, grads)):
        numeric = np.zeros(array.shape)
        for index in np.ndindex(array.shape):
            plus, minus = [a.copy() for a in arrays], [a.copy() for a in arrays]
            plus[k][index] += eps
            minus[k][index] -= eps
            numeric[index] = (forward(plus) - forward(minus)) / (2 * eps)
        if not np.allclose(grad.asnumpy(), numeric, rtol=1e-3, atol=1e-5):
            return "flags"
    return "passes"


def main() -> None:
    rows, seconds = [], {"symgrad": 0.0, "central differences": 0.0}
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, (right, *_rest) in CASES.items():
            path = _script(Path(directory), name)
            start = time.perf_counter()
            ours = "passes" if verify_mindspore_script(path).ok else "flags"
            seconds["symgrad"] += time.perf_counter() - start
            start = time.perf_counter()
            theirs = central_differences(path)
            seconds["central differences"] += time.perf_counter() - start
            rows.append((name, "right" if right else "WRONG", ours, theirs))
    width = max(len(r[0]) for r in rows)
    print(f"{'case'.ljust(width)}  rule   symgrad  central differences")
    for name, truth, ours, theirs in rows:
        print(f"{name.ljust(width)}  {truth:5}  {ours:7}  {theirs}")
    wrong = [r for r in rows if r[1] == "WRONG"]
    right = [r for r in rows if r[1] == "right"]
    for column, label in ((2, "symgrad"), (3, "central differences")):
        caught = sum(r[column] == "flags" for r in wrong)
        alarms = sum(r[column] == "flags" for r in right)
        print(
            f"{label}: flags {caught}/{len(wrong)} wrong rules, {alarms} false alarm(s) on {len(right)} right ones "
            f"({seconds[label]:.1f} s)"
        )


if __name__ == "__main__":
    main()
