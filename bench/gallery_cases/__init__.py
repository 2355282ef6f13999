"""DeepXDE's example gallery, each problem written for DeepXDE and for symgrad (index: bench/gallery_problems.py)."""
