"""solve with and without its first-layer input scaling (``symgrad.pinn.input_scaling``), in turn.

For one gallery problem (bench/gallery_problems.py) and each seed, symgrad alone: ``solve`` as
shipped (scaled: an input moving a typical first-layer unit past ``SATURATED``) and with the rule
off (raw), at the given wall time each (DeepXDE's, from bench/pinn_gallery.py), alternating the
order from seed to seed. Every run is printed.

    python bench/pinn_input_scaling.py Klein_Gordon --seconds 150 150 --seeds 0 1
"""

from __future__ import annotations

import argparse
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gallery_problems as gallery  # noqa: E402
import pinn_gallery  # noqa: E402

import symgrad.pinn.input_scaling as scaling  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", choices=list(gallery.PROBLEMS))
    parser.add_argument("--seconds", type=float, nargs="+", default=[150.0], help="wall time, one per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    seconds = args.seconds * len(args.seeds) if len(args.seconds) == 1 else args.seconds
    if len(seconds) != len(args.seeds):
        parser.error(f"--seconds takes one time or one per seed ({len(args.seeds)}), got {len(seconds)}")
    shipped = scaling.SATURATED
    for k, (seed, wall) in enumerate(zip(args.seeds, seconds)):
        for arm in ("scaled", "raw") if k % 2 == 0 else ("raw", "scaled"):
            scaling.SATURATED = shipped if arm == "scaled" else math.inf
            run = pinn_gallery.run_symgrad(args.problem, gallery.PROBLEMS[args.problem], seed, wall)
            unknowns = ", ".join(f"{name} {error:.2e}" for name, error in run.unknowns.items())
            print(f"{args.problem} seed {seed} {arm:6s} {run.error:.3e} {unknowns} | {run.note}", flush=True)
    scaling.SATURATED = shipped


if __name__ == "__main__":
    main()
