"""Differentiation: tracing, the forward and reverse sweeps, and the transforms built on them (see README.md)."""
