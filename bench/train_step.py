"""A MindSpore user's training step (issue 42): ms per step for symgrad (eager and ``@jit``), MindSpore
PyNative and GRAPH_MODE and PyTorch eager, in the same run, with the same weights and data.

Models: the MLP [64, 256, 256, 10] (ReLU) on batches of 128, and a LeNet with stride-2 convolutions
(1x28x28 -> conv 6@5x5/2 -> conv 16@5x5/2 -> 120 -> 84 -> 10) on batches of 32; softmax
cross-entropy with integer labels (``--labels onehot`` gives float one-hot rows instead), optimizer
Momentum(0.01, 0.9) or Adam(1e-3). Every library runs on one thread (OMP/MKL/OpenBLAS threads,
``torch.set_num_threads(1)``, MindSpore's CPU kernel threads); the libraries take turns, run after
run, and every run is printed. Each step's loss is read back as a number (so lazy libraries finish
the step). All libraries take the same steps on the same batches, so their last losses must agree
(printed at the end, with symgrad's jit traces, reuses and full runs). The ratios to MindSpore
GRAPH_MODE and to PyTorch are taken round by round (each run against the peer's run of that round)
and given as their range.

    python bench/train_step.py [--model mlp|lenet|both] [--optimizer momentum|adam] [--steps 50] [--rounds 3]
"""

from __future__ import annotations

import os

for _name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_name] = "1"  # before NumPy, PyTorch or MindSpore load their thread pools

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

BATCHES = 4  # distinct batches, taken in turn


def weights_of(model: str, rng: np.random.Generator) -> list[np.ndarray]:
    """(weight, bias) pairs in PyTorch's and MindSpore's layouts (out first), float32."""
    if model == "mlp":
        shapes = [((256, 64), 64), ((256, 256), 256), ((10, 256), 256)]
    else:
        shapes = [
            ((6, 1, 5, 5), 25),
            ((16, 6, 5, 5), 150),
            ((120, 256), 256),
            ((84, 120), 120),
            ((10, 84), 84),
        ]
    out = []
    for shape, fan_in in shapes:
        bound = 1 / np.sqrt(fan_in)
        out += [
            rng.uniform(-bound, bound, shape).astype(np.float32),
            rng.uniform(-bound, bound, shape[0]).astype(np.float32),
        ]
    return out


def data_of(model: str, rng: np.random.Generator) -> list[tuple[np.ndarray, np.ndarray]]:
    shape = (128, 64) if model == "mlp" else (32, 1, 28, 28)
    return [
        (rng.standard_normal(shape).astype(np.float32), rng.integers(0, 10, shape[0]).astype(np.int32))
        for _ in range(BATCHES)
    ]


def labels_as(labels: np.ndarray, kind: str) -> np.ndarray:
    return labels if kind == "sparse" else np.eye(10, dtype=np.float32)[labels]


def mindspore_style(lib, model: str, weights: list[np.ndarray], optimizer: str, labels: str):
    """The network, loss and optimizer in MindSpore's API (symgrad's or MindSpore's own)."""
    nn = lib.nn
    if model == "mlp":
        layers = [nn.Dense(64, 256), nn.ReLU(), nn.Dense(256, 256), nn.ReLU(), nn.Dense(256, 10)]
    else:
        conv = dict(stride=2, pad_mode="valid", has_bias=True)
        layers = [nn.Conv2d(1, 6, 5, **conv), nn.ReLU(), nn.Conv2d(6, 16, 5, **conv), nn.ReLU(), nn.Flatten()]
        layers += [nn.Dense(256, 120), nn.ReLU(), nn.Dense(120, 84), nn.ReLU(), nn.Dense(84, 10)]
    net = nn.SequentialCell(layers)
    for p, w in zip(net.trainable_params(), weights):
        p.set_data(lib.Tensor(w))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=labels == "sparse", reduction="mean")
    params = net.trainable_params()
    opt = nn.Momentum(params, 0.01, 0.9) if optimizer == "momentum" else nn.Adam(params, 1e-3)
    return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)


def symgrad_steps(model, weights, batches, optimizer, labels, jitted: bool):
    import symgrad

    train = mindspore_style(symgrad, model, weights, optimizer, labels)
    data = [(symgrad.Tensor(x), symgrad.Tensor(labels_as(y, labels))) for x, y in batches]
    step = symgrad.jit(lambda x, y: train(x, y)) if jitted else train
    return (lambda k: float(step(*data[k]).asnumpy())), step


def mindspore_steps(model, weights, batches, optimizer, labels, graph: bool):
    import mindspore

    train = mindspore_style(mindspore, model, weights, optimizer, labels)
    data = [(mindspore.Tensor(x), mindspore.Tensor(labels_as(y, labels))) for x, y in batches]
    mode = mindspore.GRAPH_MODE if graph else mindspore.PYNATIVE_MODE

    def step(k: int) -> float:
        mindspore.set_context(mode=mode)
        return float(train(*data[k]).asnumpy())

    return step, None


def torch_steps(model, weights, batches, optimizer, labels):
    import torch

    torch.set_num_threads(1)
    F = torch.nn.functional
    ws = [torch.tensor(w, requires_grad=True) for w in weights]

    def forward(x):
        if model == "lenet":
            x = F.relu(F.conv2d(x, ws[0], ws[1], stride=2))
            x = F.relu(F.conv2d(x, ws[2], ws[3], stride=2)).flatten(1)
            rest = ws[4:]
        else:
            rest = ws
        for k in range(0, len(rest) - 2, 2):
            x = F.relu(F.linear(x, rest[k], rest[k + 1]))
        return F.linear(x, rest[-2], rest[-1])

    opt = torch.optim.SGD(ws, 0.01, momentum=0.9) if optimizer == "momentum" else torch.optim.Adam(ws, 1e-3)
    data = [
        (torch.tensor(x), torch.tensor(labels_as(y, labels) if labels != "sparse" else y.astype(np.int64)))
        for x, y in batches
    ]

    def step(k: int) -> float:
        x, y = data[k]
        opt.zero_grad()
        loss = F.cross_entropy(forward(x), y)
        loss.backward()
        opt.step()
        return float(loss.detach().numpy())

    return step, None


def _one_mindspore_thread() -> None:
    """MindSpore on the CPU with one kernel thread (it may be set once per process)."""
    import mindspore

    if not getattr(_one_mindspore_thread, "done", False):
        mindspore.set_device("CPU")
        mindspore.device_context.cpu.op_tuning.threads_num(1)
        _one_mindspore_thread.done = True  # type: ignore[attr-defined]


def contenders(model, weights, batches, optimizer, labels) -> dict[str, tuple[Callable, object]]:
    found = {
        "symgrad eager": symgrad_steps(model, weights, batches, optimizer, labels, False),
        "symgrad jit": symgrad_steps(model, weights, batches, optimizer, labels, True),
    }
    if importlib.util.find_spec("mindspore") is not None:
        _one_mindspore_thread()
        found["MindSpore PyNative"] = mindspore_steps(model, weights, batches, optimizer, labels, False)
        found["MindSpore GRAPH_MODE"] = mindspore_steps(model, weights, batches, optimizer, labels, True)
    if importlib.util.find_spec("torch") is not None:
        found["PyTorch eager"] = torch_steps(model, weights, batches, optimizer, labels)
    return found


def bench(model: str, optimizer: str, labels: str, steps: int, rounds: int) -> None:
    rng = np.random.default_rng(0)
    weights, batches = weights_of(model, rng), data_of(model, rng)
    runners = contenders(model, weights, batches, optimizer, labels)
    done = dict.fromkeys(runners, 0)
    last: dict[str, float] = {}
    for name, (step, _) in list(runners.items()):  # warm up: traces, compiles, first allocations
        try:
            for _ in range(3):
                last[name] = step(done[name] % BATCHES)
                done[name] += 1
        except Exception as exc:  # a peer that cannot run this configuration here is left out, with why
            print(f"  {name} left out: {type(exc).__name__}: {str(exc).strip().splitlines()[-1][:120]}")
            del runners[name], done[name]
            last.pop(name, None)
    times: dict[str, list[float]] = {name: [] for name in runners}
    print(f"\n{model}, {optimizer}, {labels} labels: ms per step, {steps} steps a run")
    for r in range(rounds):
        for name, (step, _) in runners.items():
            start = time.perf_counter()
            for _ in range(steps):
                last[name] = step(done[name] % BATCHES)
                done[name] += 1
            times[name].append((time.perf_counter() - start) / steps * 1e3)
            print(f"  run {r + 1} {name:22} {times[name][-1]:8.3f}")
    graph = times.get("MindSpore GRAPH_MODE")
    torch_times = times.get("PyTorch eager")
    print(f"{'':24} {'min':>8} {'max':>8} {'/GRAPH':>14} {'/PyTorch':>14} {'last loss':>12}")
    for name, ts in times.items():
        ratio = ""
        for peer in (graph, torch_times):  # run by run: each run against the peer's run of that round
            each = [t / q for t, q in zip(ts, peer)] if peer else []
            ratio += f" {min(each):5.2f}-{max(each):5.2f}x" if each else f" {'':13}"
        print(f"  {name:22} {min(ts):8.3f} {max(ts):8.3f}{ratio} {last[name]:12.7f}")
    spread = max(last.values()) - min(last.values())
    print(f"  last losses after {max(done.values())} steps agree to {spread:.2e}")
    jitted = runners["symgrad jit"][1]
    if jitted is not None:
        c = jitted.cache
        print(f"  symgrad jit: {c.traces} trace(s), {c.reuses} reuses, {c.full_runs} full runs")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=["mlp", "lenet", "both"], default="both")
    parser.add_argument("--optimizer", choices=["momentum", "adam"], default="momentum")
    parser.add_argument("--labels", choices=["sparse", "onehot"], default="sparse")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{platform.processor() or platform.machine()}, one thread per library")
    for model in ("mlp", "lenet") if args.model == "both" else (args.model,):
        bench(model, args.optimizer, args.labels, args.steps, args.rounds)


if __name__ == "__main__":
    main()
