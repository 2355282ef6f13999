#!/usr/bin/env bash
# The device check for a lent NVIDIA GPU (issue 45; README "Backends"): the CuPy tests on the real
# GPU, then bench/gpu.py against PyTorch and JAX on the same GPU, with and without CUDA graphs, one
# process per width (JAX keeps the memory it grew, so a later width would run out of it), the
# crossover of the fused per-point kernel and the array program on a narrow network, and float32. Run from the repository root on
# the device machine (its image has CuPy, PyTorch, JAX, SymPy, pytest); logs go to $OUT.
# GPU_PROFILE=1 adds where the fused kernel's loss-gradient time goes; GPU_EXTRA=0 leaves out the
# crossover and float32; GPU_H and GPU_N choose the widths and point counts.
set -uo pipefail
out=${OUT:-/tmp/gpu_check}; mkdir -p "$out"
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 SYMGRAD_CACHE=/tmp/symgrad_cache
{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
    python3 -c "import sys, numpy, sympy, cupy, torch, jax; print(sys.version.split()[0], 'numpy', numpy.__version__, 'sympy', sympy.__version__, 'cupy', cupy.__version__, 'torch', torch.__version__, 'jax', jax.__version__, jax.devices())"
    python3 -c "import lowering, symgrad.context as c; print('backends', lowering.available_backends(), 'gpu', c.gpu_available())"
} 2>&1 | tee "$out/versions.txt"
timeout 180 python3 -m pytest -q -p no:cacheprovider tests/lowering/test_lowering.py tests/lowering/test_cupy_glue.py \
    tests/lowering/test_cuda_array_path.py tests/lowering/test_cuda_graphs.py -k "cupy or cuda or gpu" 2>&1 | tee "$out/tests.txt" | tail -15
if [ "${GPU_PROFILE:-0}" = 1 ]; then
    timeout 60 python3 bench/gpu.py --profile --H 16 64 --N 1e6 2>&1 | tee "$out/profile.txt"
fi
for H in ${GPU_H:-16 64 256}; do
    timeout 120 python3 bench/gpu.py --H "$H" --N ${GPU_N:-1e4 1e6} --dtype float64 \
        --frameworks symgrad symgrad-nographs torch jax 2>&1 | grep -v "^[WI][0-9]" | tee -a "$out/bench_f64.txt"
done
if [ "${GPU_EXTRA:-1}" = 1 ]; then
    timeout 60 python3 bench/gpu.py --H 16 --N 1e5 3e5 --frameworks symgrad-fused symgrad-array 2>&1 | tee "$out/crossover.txt"
    timeout 80 python3 bench/gpu.py --H 64 256 --N 1e6 --dtype float32 2>&1 | grep -v "^[WI][0-9]" | tee "$out/bench_f32.txt"
fi
