"""GPU benchmark: the Burgers residual and loss gradient on an NVIDIA GPU, symgrad's fused CuPy
kernel against PyTorch (CUDA, autograd.grad) and JAX (jit of vmap of per-point grad) in one run.

Workload as ``bench/pinn.py``: tanh MLP [2, H, H, H, 1] at N points; every framework gets its
inputs and weights already on the GPU and is timed to the end of its GPU work (synchronised),
without the copy back. Results are checked against each other (1e-8 relative in float64).

    python bench/gpu.py --H 16 64 256 --N 1e4 1e5 1e6 --dtype float64
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from peers import agree, jax_burgers_functions, layer_weights, tanh_mlp  # noqa: E402

NU = 0.01 / np.pi
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # JAX would take 75% of the GPU first


def release() -> None:
    """Give the GPU memory cached by CuPy's and PyTorch's pools back between frameworks."""
    if "cupy" in sys.modules and hasattr(sys.modules["cupy"], "get_default_memory_pool"):
        sys.modules["cupy"].get_default_memory_pool().free_all_blocks()
    if "torch" in sys.modules:
        sys.modules["torch"].cuda.empty_cache()


def best_time(fn, sync, repeat: int) -> tuple[float, object]:
    """Best wall time of ``repeat`` synchronised calls of ``fn`` after one warm-up (one call when
    the warm-up took over a second, so that a slow size costs seconds, not minutes)."""
    start = time.perf_counter()
    out = fn()
    sync()
    best = time.perf_counter() - start
    if best > 1.0:
        repeat = 1
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        sync()
        best = min(best, time.perf_counter() - start)
    return best, out


def symgrad_gpu(weights, xs, ts, path: str = "auto", graphs: bool = True):
    """symgrad's backend "cupy" for the residual terms and the loss gradient: its own choice between
    the fused per-point kernel and the array program (``path="auto"``), or ``"fused"`` or ``"array"``;
    ``graphs=False``: never a CUDA graph (every call launches its kernels from Python)."""
    import cupy

    import symgrad
    from lowering.cupy import functions as cuda
    from symgrad.models import PointMLP, burgers_terms

    start = time.perf_counter()
    dtype = weights[0].dtype
    net = PointMLP([2] + [w.shape[1] for w in weights[0::2]], dtype=dtype)
    x, t = symgrad.placeholder("x", dtype=dtype), symgrad.placeholder("t", dtype=dtype)
    terms = burgers_terms(net, x, t)
    inputs = [x, t, *net.params]
    grads = [terms[f"d(r^2)/d{p.name}"] for p in net.params]
    default = cuda.ARRAY_ELEMENTS
    cuda.ARRAY_ELEMENTS = {"auto": default, "fused": 10**12, "array": 0}[path]
    try:
        residual = symgrad.kernel([terms[k] for k in ("u", "ut", "ux", "uxx", "r")], inputs, "cupy")
        reduce = [None, "mean"] + ["mean"] * len(grads)
        loss = symgrad.kernel([terms["r"], terms["r"] ** 2, *grads], inputs, "cupy", reduce=reduce)
    finally:
        cuda.ARRAY_ELEMENTS = default
    W = [cupy.asarray(w) for w in weights]
    X, T = cupy.asarray(xs), cupy.asarray(ts)
    for k in (residual, loss):
        if path == "fused":
            k._fn.arrays = None  # never handed to the array program, at any batch size
        if not graphs and k._fn.graphs is not None:  # a fused kernel's are its array program's
            k._fn.graphs.replay = False
    residual(X, T, *W)
    loss(X, T, *W)
    cupy.cuda.Device().synchronize()
    setup = time.perf_counter() - start

    def loss_call():
        return loss(X, T, *W)

    loss_call.kernel = loss  # type: ignore[attr-defined]  # for --profile and graph_note
    loss_call.residual_kernel = residual  # type: ignore[attr-defined]
    return setup, (lambda: residual(X, T, *W)), loss_call, cupy.cuda.Device().synchronize


def torch_gpu(weights, xs, ts):
    """PyTorch on CUDA: autograd.grad with create_graph, as bench/peers.py on the CPU."""
    import torch

    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")  # the CPU only to try the script
    W = [torch.tensor(w, device=dev) for w in weights]
    X, T = torch.tensor(xs, device=dev), torch.tensor(ts, device=dev)

    def terms(Ws, graph):
        x, t = X.clone().requires_grad_(True), T.clone().requires_grad_(True)
        a = torch.stack([x, t], dim=1)
        for k in range(0, len(Ws) - 2, 2):
            a = torch.tanh(a @ Ws[k] + Ws[k + 1])
        u = (a @ Ws[-2] + Ws[-1])[..., 0]
        u_x, u_t = torch.autograd.grad(u.sum(), (x, t), create_graph=True)
        (u_xx,) = torch.autograd.grad(u_x.sum(), x, create_graph=graph)
        return u, u_t, u_x, u_xx, u_t + u * u_x - NU * u_xx

    def residual():
        return [v.detach() for v in terms(W, False)]

    def loss():
        Ws = [w.clone().requires_grad_(True) for w in W]
        r = terms(Ws, True)[-1]
        value = torch.mean(r**2)
        return [r.detach(), value.detach(), *torch.autograd.grad(value, Ws)]

    return 0.0, residual, loss, (torch.cuda.synchronize if dev.type == "cuda" else lambda: None)


def jax_gpu(weights, xs, ts):
    """JAX on its default (GPU) device: jit of vmap of per-point jax.grad, as on the CPU."""
    import jax
    import jax.numpy as jnp

    batched, grad_fn = jax_burgers_functions(tanh_mlp, NU)
    W = [jnp.asarray(w) for w in weights]
    X, T = jnp.asarray(xs), jnp.asarray(ts)
    holder: list = []

    def residual():
        holder[:] = [batched(W, X, T)]
        return holder[0]

    def loss():
        (value, r), grads = grad_fn(W, X, T)
        holder[:] = [(r, value, grads)]
        return [r, value, *grads]

    def sync():
        jax.block_until_ready(holder)

    return 0.0, residual, loss, sync


def profile_finish(H: int, N: int, dtype) -> None:
    """Where symgrad's loss-gradient call spends its time on the GPU: the fused kernel against the
    batch sums CuPy finishes (each rt.batch_sum / rt.batch_outer synchronised and timed), and the
    two ways a batch sum can run (a column reduction against a product with a ones vector: the
    product is what lowering/runtime.py does on CuPy since this profile's first run)."""
    import cupy

    weights = [w.astype(dtype) for w in layer_weights([2, H, H, H, 1], 0)]
    rng = np.random.default_rng(1)
    xs, ts = rng.uniform(-1, 1, N).astype(dtype), rng.uniform(0, 1, N).astype(dtype)
    _setup, _residual, loss, sync = symgrad_gpu(weights, xs, ts, path="fused")
    spent: dict[str, float] = {"batch_sum": 0.0, "batch_outer": 0.0}
    kernel = loss.kernel._fn
    rt = kernel._finish.__globals__["rt"]
    untimed = {name: getattr(rt, name) for name in spent}
    for name in spent:
        original = getattr(rt, name)

        def timed_call(*a, _original=original, _name=name):
            sync()
            start = time.perf_counter()
            out = _original(*a)
            sync()
            spent[_name] += time.perf_counter() - start
            return out

        setattr(rt, name, timed_call)
    loss()
    sync()
    for name in spent:
        spent[name] = 0.0
    start = time.perf_counter()
    loss()
    sync()
    total = time.perf_counter() - start
    print(
        f"# profile H={H} N={N:.0e} {np.dtype(dtype).name}: res+grad {1e3 * total:.2f} ms, of which "
        f"batch_sum {1e3 * spent['batch_sum']:.2f} ms, batch_outer {1e3 * spent['batch_outer']:.2f} ms"
    )
    for name, method in untimed.items():
        setattr(rt, name, method)
    for k in (16, 64, 256):
        a = cupy.asarray(rng.normal(size=(N, k)).astype(dtype))
        ones = cupy.ones(N, dtype=dtype)
        t_sum, _ = best_time(lambda a=a: a.sum(0), sync, 5)
        t_dot, _ = best_time(lambda a=a, ones=ones: ones @ a, sync, 5)
        t_outer, _ = best_time(lambda a=a: a.T @ a, sync, 5)
        print(
            f"#   (N, {k}): column sum {1e3 * t_sum:.3f} ms, ones @ a {1e3 * t_dot:.3f} ms, "
            f"a.T @ a {1e3 * t_outer:.3f} ms",
            flush=True,
        )


def graph_note(name: str, loss) -> str:
    """How many CUDA graphs symgrad's two kernels replay (and why not, where recording failed)."""
    parts = []
    for label, kernel in (("residual", loss.residual_kernel), ("res+grad", loss.kernel)):
        cache = kernel._fn.graphs
        if cache is None:  # the fused kernel alone (no array program): never a graph
            parts.append(f"{label} no graphs")
            continue
        held = sum(recorded.nbytes for recorded in cache.graphs.values()) / 2**20
        text = f"{label} {len(cache.graphs)} graph(s)" + (f" holding {held:.1f} MiB" if cache.graphs else "")
        text += f", refused: {cache.refused}" if cache.refused else ""
        text += "".join(f", plain: {why}" for why in cache.plain.values())
        parts.append(text)
    return f"# {name}: " + "; ".join(parts)


def host(values) -> list[np.ndarray]:
    """Every array of a result list on the host, as float64."""
    out = []
    for v in values:
        if hasattr(v, "get"):
            v = v.get()
        elif hasattr(v, "detach"):
            v = v.detach().cpu().numpy()
        out.append(np.asarray(v, dtype=np.float64))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--H", type=int, nargs="+", default=[16, 64, 256])
    parser.add_argument("--N", type=float, nargs="+", default=[1e4, 1e5, 1e6])
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument(
        "--frameworks",
        nargs="+",
        default=["symgrad", "torch", "jax"],
        help="also symgrad-fused and symgrad-array: the cupy backend held to one of its two paths",
    )
    parser.add_argument("--profile", action="store_true", help="where symgrad's res+grad time goes")
    args = parser.parse_args()
    dtype = np.dtype(args.dtype).type
    if args.profile:
        for H in args.H:
            profile_finish(H, int(max(args.N)), dtype)
        return
    if dtype == np.float64:
        import jax

        jax.config.update("jax_enable_x64", True)
    runners = {
        "symgrad": symgrad_gpu,
        "symgrad-fused": lambda *a: symgrad_gpu(*a, path="fused"),
        "symgrad-array": lambda *a: symgrad_gpu(*a, path="array"),
        "symgrad-nographs": lambda *a: symgrad_gpu(*a, graphs=False),
        "torch": torch_gpu,
        "jax": jax_gpu,
    }
    chosen = [f for f in args.frameworks if f in runners]
    print(
        f"# GPU Burgers, {args.dtype}; ms per call (best of repeats, synchronised); "
        f"ratio = {chosen[0]} / each other column"
    )
    print(
        "| H | N | " + " | ".join(f"{f} residual ms | {f} res+grad ms" for f in chosen) + " | max rel diff |"
    )
    print("|" + "---|" * (3 + 2 * len(chosen)), flush=True)
    tolerance = 1e-8 if dtype == np.float64 else 2e-2
    for H in args.H:
        weights = [w.astype(dtype) for w in layer_weights([2, H, H, H, 1], 0)]
        for N in [int(n) for n in args.N]:
            rng = np.random.default_rng(1)
            xs, ts = rng.uniform(-1, 1, N).astype(dtype), rng.uniform(0, 1, N).astype(dtype)
            row, reference, diff = [str(H), f"{N:.0e}"], None, 0.0
            notes: list[str] = []
            mine = None
            for name in chosen:
                try:
                    _setup, residual, loss, sync = runners[name](weights, xs, ts)
                    t_res, res = best_time(residual, sync, 5)
                    t_loss, lo = best_time(loss, sync, 5)
                    if hasattr(loss, "kernel"):
                        notes.append(graph_note(name, loss))
                except Exception as error:  # a peer that fails on this GPU is reported, not fatal
                    row += [f"failed: {type(error).__name__}: {str(error)[:80]}", "-"]
                    release()
                    continue
                finally:
                    _setup = residual = loss = sync = None  # type: ignore[assignment]
                res_h, loss_h = host(res), host(lo)
                res = lo = None
                release()
                if reference is None:
                    reference = res_h, loss_h
                else:
                    diff = max(diff, agree(res_h, reference[0]), agree(loss_h, reference[1]))
                if mine is None:
                    mine = t_res, t_loss
                    row += [f"{1e3 * t_res:.2f}", f"{1e3 * t_loss:.2f}"]
                elif mine:
                    row += [
                        f"{1e3 * t_res:.2f} ({mine[0] / t_res:.2f})",
                        f"{1e3 * t_loss:.2f} ({mine[1] / t_loss:.2f})",
                    ]
                else:
                    row += [f"{1e3 * t_res:.2f}", f"{1e3 * t_loss:.2f}"]
            flag = "" if diff < tolerance else " DISAGREE"
            print("| " + " | ".join(row) + f" | {diff:.1e}{flag} |", flush=True)
            for note in notes:
                print(note, flush=True)


if __name__ == "__main__":
    main()
