"""Exceptions symgrad raises; each message names the op, the argument and the shapes."""


class SymgradError(Exception):
    """Base class of symgrad's errors."""


class OpError(SymgradError, ValueError):
    """An op got arguments it cannot take (shapes, dtypes, parameters)."""


class GradError(SymgradError, ValueError):
    """A differentiation request that cannot be honoured (wrong sens, positions, weights)."""


class GradTypeError(GradError, TypeError):
    """An argument of a differentiation call has the wrong type (MindSpore raises TypeError)."""


class PositionError(GradError, IndexError):
    """A grad_position past the inputs the function was called with."""


class EmptyPositionError(GradError, RuntimeError):
    """An empty grad_position (MindSpore raises RuntimeError)."""


class BpropResultError(GradError, RuntimeError):
    """A custom bprop returned the wrong number, kind or shape of gradients (MindSpore raises RuntimeError)."""


class GradNotFoundError(GradError, RuntimeError):
    """``get_grad`` was asked for a position or Parameter that has no gradient in the result."""


class SensCountError(GradError, RuntimeError):
    """A sens (``v``) whose count, nesting or kind does not match the network's outputs (MindSpore
    raises RuntimeError: "The given sens gradient's size should be same as out of network")."""


class UnboundError(SymgradError, ValueError):
    """A graph was evaluated while one of its variables had no value."""


class FrameworkMissing(SymgradError, ImportError):
    """A check needs a framework (MindSpore, PyTorch, JAX) that is not installed."""


class CannotCompare(SymgradError, RuntimeError):
    """Two runs of a script cannot be compared (their Parameters do not match, for one)."""
