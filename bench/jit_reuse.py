"""What ``@jit``'s trace reuse saves (issue 31): a jitted MLP construct ([2, 64, 64, 1], tanh,
float32, a batch of 256 points) called again and again with new inputs, and its gradient with
respect to the weights (ops.grad inside the loop). Rows: symgrad with traces reused, symgrad
running every call in full (the same Cell with a Python read that forbids reuse), and real
MindSpore 2.10 PyNative with the same ``@ms.jit`` (where installed), all in the same run.

    python bench/jit_reuse.py [--calls 200] [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import time

import numpy as np

SOURCE = """
class MLP(nn.Cell):
    def __init__(self, weights, reuse):
        super().__init__()
        self.reuse = reuse
        self.w1, self.b1, self.w2, self.b2, self.w3, self.b3 = (
            Parameter(Tensor(w), name=f"p{k}") for k, w in enumerate(weights)
        )

    @jit
    def construct(self, x):
        if not self.reuse:
            float(self.w1[0, 0])  # a weight read into Python: every call runs in full
        h = ops.tanh(ops.MatMul()(x, self.w1) + self.b1)
        h = ops.tanh(ops.MatMul()(h, self.w2) + self.b2)
        return ops.mul(ops.MatMul()(h, self.w3) + self.b3, ops.MatMul()(h, self.w3) + self.b3).sum()
"""


def build(lib, weights, reuse: bool):
    namespace = {
        "nn": lib.nn, "ops": lib.ops, "Tensor": lib.Tensor, "Parameter": lib.Parameter, "jit": lib.jit,
    }  # fmt: skip
    if lib.__name__ == "mindspore":  # MindSpore's jit parses the source: it must be in a file
        import os
        import sys
        import tempfile

        folder = tempfile.mkdtemp()
        with open(os.path.join(folder, "ms_mlp.py"), "w") as f:
            f.write("from mindspore import nn, ops, Tensor, Parameter, jit\n" + SOURCE)
        sys.path.insert(0, folder)
        return importlib.import_module("ms_mlp").MLP(weights, reuse)
    exec(compile(SOURCE, "<bench mlp>", "exec"), namespace)
    return namespace["MLP"](weights, reuse)


def per_call(lib, net, inputs, with_grad: bool) -> float:
    """Seconds per call of ``net`` (or of its weights' gradient) over ``inputs``."""
    grad = lib.ops.grad(net, None, net.trainable_params()) if with_grad else net
    grad(inputs[0])  # the first call traces (and compiles)
    start = time.perf_counter()
    for x in inputs:
        out = grad(x)
        np.asarray((out[0] if with_grad else out).asnumpy())
    return (time.perf_counter() - start) / len(inputs)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    import symgrad

    rng = np.random.default_rng(0)
    sizes = [2, 64, 64, 1]
    weights = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        weights += [rng.uniform(-1, 1, (a, b)).astype(np.float32) * np.float32(np.sqrt(6 / (a + b))),
                    np.zeros(b, np.float32)]  # fmt: skip
    libs = [symgrad]
    if importlib.util.find_spec("mindspore") is not None:
        import mindspore

        mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
        libs.append(mindspore)
    print(
        f"{platform.processor() or platform.machine()}; {args.calls} calls of a batch of 256, best of {args.rounds}"
    )
    rows = {}
    for _round in range(args.rounds):
        for lib in libs:
            for reuse in (True, False) if lib is symgrad else (True,):
                net = build(lib, weights, reuse)
                inputs = [
                    lib.Tensor(rng.standard_normal((256, 2)).astype(np.float32)) for _ in range(args.calls)
                ]
                for with_grad in (False, True):
                    key = (lib.__name__, "reused" if reuse else "in full", "grad" if with_grad else "value")
                    seconds = per_call(lib, net, inputs, with_grad)
                    rows[key] = min(rows.get(key, np.inf), seconds)
    print(f"{'library':10} {'traces':8} {'call':6} {'ms/call':>8}")
    for (name, mode, what), seconds in rows.items():
        print(f"{name:10} {mode:8} {what:6} {seconds * 1e3:8.3f}")
    for what in ("value", "grad"):
        full, reused = rows[("symgrad", "in full", what)], rows[("symgrad", "reused", what)]
        line = f"{what}: symgrad in full / reused = {full / reused:.1f}x"
        if ("mindspore", "reused", what) in rows:
            line += f"; MindSpore jit / symgrad reused = {rows[('mindspore', 'reused', what)] / reused:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
