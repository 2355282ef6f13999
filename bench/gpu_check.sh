#!/usr/bin/env bash
# The device check for a lent NVIDIA GPU (issue 45; README "Backends"): the CuPy tests on the real
# GPU, where symgrad's loss-gradient time goes, then bench/gpu.py against PyTorch and JAX on the
# same GPU. Run from the repository root on the device machine (its image has CuPy, PyTorch, JAX,
# SymPy, pytest); logs go to $OUT.
set -uo pipefail
out=${OUT:-/tmp/gpu_check}; mkdir -p "$out"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 SYMGRAD_CACHE=/tmp/symgrad_cache
{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    python3 -c "import sys, numpy, sympy, cupy, torch, jax; print(sys.version.split()[0], 'numpy', numpy.__version__, 'sympy', sympy.__version__, 'cupy', cupy.__version__, 'torch', torch.__version__, 'jax', jax.__version__, jax.devices())"
    python3 -c "import lowering, symgrad.context as c; print('backends', lowering.available_backends(), 'gpu', c.gpu_available())"
} 2>&1 | tee "$out/versions.txt"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests/test_lowering.py tests/test_cupy_glue.py -k "cupy or cuda" 2>&1 | tee "$out/tests.txt" | tail -15
timeout 60 python3 bench/gpu.py --profile --H 16 64 --N 1e6 2>&1 | tee "$out/profile.txt"
timeout 170 python3 bench/gpu.py --H ${GPU_H:-16 64 256} --N ${GPU_N:-1e4 1e6} --dtype float64 2>&1 | tee "$out/bench_f64.txt"
timeout 80 python3 bench/gpu.py --H 64 256 --N 1e6 --dtype float32 2>&1 | tee "$out/bench_f32.txt"
