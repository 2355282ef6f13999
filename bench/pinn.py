"""PINN benchmark (issue 6): Burgers residual and loss gradient, symgrad vs its peers in one run.

Workload: tanh MLP [2, H, H, H, 1], float64 (or --dtype float32), at N points:
  residual      u, u_t, u_x, u_xx and r = u_t + u*u_x - nu*u_xx
  residual+grad the residual, mean(r^2) and its gradient for every weight
Peers, when installed: PyTorch (autograd.grad with create_graph), JAX (jit + vmap), CasADi.
symgrad runs on NumPy and, where a C compiler is found, on the fused C backend.
All must agree to 1e-8 (relative; 1e-2 in float32); the script prints times and ratios (symgrad / peer).

    python bench/pinn.py                    # the table
    python bench/pinn.py --dtype float32    # every framework in float32 (DeepXDE's default)
    python bench/pinn.py --memory           # peak memory at H=32, N=1e5 (fresh processes)
"""

from __future__ import annotations

import argparse
import importlib.util
import platform
import subprocess
import sys
import time

import numpy as np
from peers import agree, jax_burgers, layer_weights, tanh_mlp, timed, torch_burgers

NU = 0.01 / np.pi


def init_weights(H: int, seed: int = 0, dtype=np.float64) -> list[np.ndarray]:
    return [w.astype(dtype) for w in layer_weights([2, H, H, H, 1], seed)]


def symgrad_runner(weights, backend: str = "numpy"):
    import symgrad
    from symgrad.models import PointMLP, burgers_terms

    start = time.perf_counter()
    dtype = weights[0].dtype
    net = PointMLP([2] + [w.shape[1] for w in weights[0::2]], dtype=dtype)
    net.set_flat(np.concatenate([w.ravel() for w in weights]))
    x, t = symgrad.placeholder("x", dtype=dtype), symgrad.placeholder("t", dtype=dtype)
    terms = burgers_terms(net, x, t)
    residual = symgrad.kernel([terms[k] for k in ("u", "ut", "ux", "uxx", "r")], [x, t, *net.params], backend)
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    loss = symgrad.kernel(
        [terms["r"], terms["r"] ** 2, *grads],
        [x, t, *net.params],
        backend,
        reduce=[None, "mean"] + ["mean"] * len(grads),
    )
    setup = time.perf_counter() - start
    return setup, (lambda xs, ts: residual(xs, ts, *weights)), (lambda xs, ts: loss(xs, ts, *weights))


def torch_runner(weights):
    start = time.perf_counter()
    residual, loss = torch_burgers(tanh_mlp, weights, NU)
    return time.perf_counter() - start, residual, loss


def jax_runner(weights):
    start = time.perf_counter()
    residual, loss = jax_burgers(tanh_mlp, weights, NU)
    return time.perf_counter() - start, residual, loss


def symgrad_c_runner(weights):
    """The fused C backend (one compiled OpenMP loop over the points)."""
    return symgrad_runner(weights, "c")


PEERS = {"torch": torch_runner, "jax": jax_runner}


def table(Hs, Ns, dtype=np.float64) -> None:
    import lowering

    peers = [p for p in PEERS if importlib.util.find_spec(p) is not None]
    ours = {"numpy": symgrad_runner}
    if "c" in lowering.available_backends():
        ours["c"] = symgrad_c_runner
    versions = {"numpy": np.__version__}
    for p in peers:
        versions[p] = __import__(p).__version__
    print(
        f"# {platform.machine()}, {platform.processor() or ''} Python {platform.python_version()}, "
        + ", ".join(f"{k} {v}" for k, v in versions.items())
        + f"; {np.dtype(dtype).name}; symgrad backends: {', '.join(ours)}; (x) = fastest symgrad backend / peer"
    )
    print(
        "| H | N | "
        + " | ".join(f"{b} setup s | {b} residual ms | {b} res+grad ms" for b in ours)
        + " | "
        + " | ".join(f"{p} setup s | {p} residual ms (x) | {p} res+grad ms (x)" for p in peers)
        + " | max rel diff |"
    )
    print("|" + "---|" * (3 + 3 * len(ours) + 3 * len(peers)))
    for H in Hs:
        weights = init_weights(H, dtype=dtype)
        mine = {b: runner(weights) for b, runner in ours.items()}
        others = {p: PEERS[p](weights) for p in peers}
        for N in Ns:
            rng = np.random.default_rng(1)
            xs, ts = rng.uniform(-1, 1, N).astype(dtype), rng.uniform(0, 1, N).astype(dtype)
            reps = 10 if N <= 10_000 else 3 if N <= 100_000 else 1  # more calls let other pools go idle
            row, diff = [f"{H}", f"{N:.0e}"], 0.0
            best_res = best_loss = float("inf")
            reference = None
            for setup, residual, lossf in mine.values():
                t_res, res = timed(residual, xs, ts, repeat=reps)
                t_loss, loss = timed(lossf, xs, ts, repeat=reps)
                best_res, best_loss = min(best_res, t_res), min(best_loss, t_loss)
                if reference is None:
                    reference = res, loss
                diff = max(diff, agree(res, reference[0]), agree(loss, reference[1]))
                row += [f"{setup:.3f}", f"{1e3 * t_res:.1f}", f"{1e3 * t_loss:.1f}"]
            for p in peers:
                setup, residual, lossf = others[p]
                p_res_t, p_res = timed(residual, xs, ts, repeat=reps)
                p_loss_t, p_loss = timed(lossf, xs, ts, repeat=reps)
                diff = max(diff, agree(reference[0], p_res), agree(reference[1], p_loss))
                row += [
                    f"{setup:.3f}",
                    f"{1e3 * p_res_t:.1f} ({best_res / p_res_t:.2f})",
                    f"{1e3 * p_loss_t:.1f} ({best_loss / p_loss_t:.2f})",
                ]
            assert diff < (1e-8 if dtype == np.float64 else 1e-2), f"frameworks disagree: {diff:.2e}"
            print("| " + " | ".join(row) + f" | {diff:.1e} |", flush=True)


def peak_memory(framework: str, H: int, N: int) -> float:
    """MiB of peak resident memory added by one residual+gradient call, in a fresh process."""
    code = f"""
import resource, numpy as np, sys
sys.path.insert(0, {repr(str(__file__.rsplit("/", 1)[0]))})
import pinn
w = pinn.init_weights({H})
setup, residual, loss = pinn.{framework}_runner(w)
rng = np.random.default_rng(1)
xs, ts = rng.uniform(-1, 1, {N}), rng.uniform(0, 1, {N})
loss(xs[:10], ts[:10])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
loss(xs, ts)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--H", type=int, nargs="+", default=[16, 32, 64])
    parser.add_argument("--N", type=float, nargs="+", default=[1e3, 1e4, 1e5, 1e6])
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    args = parser.parse_args()
    if args.memory:
        for fw in ["symgrad", "symgrad_c"] + [p for p in PEERS if importlib.util.find_spec(p)]:
            print(f"{fw}: peak +{peak_memory(fw, 32, 100_000):.0f} MiB for residual+gradient at H=32, N=1e5")
        return
    table(args.H, [int(n) for n in args.N], np.dtype(args.dtype).type)


if __name__ == "__main__":
    main()
