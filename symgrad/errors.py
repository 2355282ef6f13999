"""Exceptions symgrad raises; each message names the op, the argument and the shapes."""


class SymgradError(Exception):
    """Base class of symgrad's errors."""


class OpError(SymgradError, ValueError):
    """An op got arguments it cannot take (shapes, dtypes, parameters)."""


class GradError(SymgradError, ValueError):
    """A differentiation request that cannot be honoured (wrong sens, positions, weights)."""


class PositionError(GradError, IndexError):
    """A grad_position past the inputs the function was called with."""


class UnboundError(SymgradError, ValueError):
    """A graph was evaluated while one of its variables had no value."""
