"""The PINNacle benchmark's problems written with symgrad.pinn, one module a PDE family (index: bench/pinnacle_problems.py)."""
