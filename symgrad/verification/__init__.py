"""``symgrad.verify``: check derivatives four ways against the exact closed form.

For every derivative block up to ``order`` the 50-digit closed form is the reference;
the compiled float kernel, central finite differences (float64, Richardson) and, when
installed, PyTorch's autograd on the lowered forward pass are compared with it, as are
a user's own derivatives (``expected=``) and vector-Jacobian product (``vjp=``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from symgrad.parameter import Parameter
from symgrad.verification.jax_program import is_jax_call, verify_jax
from symgrad.verification.report import Report, Row
from symgrad.verification.symgrad_program import verify_symgrad
from symgrad.verification.torch_program import is_torch_call, is_torch_module, verify_torch

__all__ = ["Report", "Row", "collect", "verify"]

_collected: list[Report] | None = None  # set by ``symgrad verify script.py``


def verify(
    fn: Callable,
    *inputs,
    order: int = 1,
    positions: Sequence[int] | None = None,
    weights: Sequence[Parameter] | Sequence[str] | bool = (),
    expected=None,
    vjp: Callable | None = None,
    rtol: float | None = None,
    use_frameworks: bool = True,
    seed: int = 0,
    directions: int | None = None,
    allow: Sequence = (),
) -> Report:
    """Compare ``fn``'s derivatives at ``inputs`` every way symgrad can, up to ``order``.

    A PyTorch program (a function of torch tensors called with them, or an ``nn.Module``) or a
    JAX function called with JAX arrays is imported into symgrad's graph, and its framework's
    derivatives (torch.autograd; nested ``jax.jacrev``) are compared with its exact ones
    (:mod:`symgrad.verification.torch_program`, :mod:`symgrad.verification.jax_program`;
    ``weights`` then names a PyTorch module's Parameters, or True for all).

    Args:
        fn: a function or Cell of Tensors returning a Tensor or a tuple of Tensors.
        inputs: the point (concrete Tensors).
        order: highest derivative order to check (each order is checked).
        positions: inputs to differentiate (default: every float Tensor input).
        weights: Parameters to differentiate as well.
        expected: your derivatives of order ``order``: arrays (or a function of the
            inputs returning them), one per block in the order of ``report.blocks``.
        vjp: your vector-Jacobian product ``vjp(v, *inputs) -> cotangents``, one per
            differentiated input; ``v`` is a Tensor, or a tuple of them when ``fn`` has
            several outputs.
        rtol: relative tolerance for ``expected``/``vjp`` (default 1e-6, 1e-4 in float32).
        use_frameworks: also compare with PyTorch when it is installed.
        seed: seed of the random vectors of the Jvp/Vjp identity (and of ``directions``).
        directions: PyTorch and JAX programs: compare J^T v for this many random cotangents v,
            entry by entry, with the exact reverse sweep in extended precision, instead of every
            entry of every block (order 1). None (default): so where the blocks would hold more
            than 200,000 entries (a real model with ``weights=True``); 0: every entry always.
        allow: PyTorch programs: custom autograd.Functions (classes or names) whose backward is
            intended not to be the derivative (straight-through estimators, gradient reversal);
            each is reported as allowed, and where they explain every difference the report is ok.

    Returns:
        A :class:`Report`; ``report.ok`` is False when a comparison failed.
    """
    if isinstance(allow, str) or not isinstance(allow, Sequence | set | frozenset):
        raise TypeError(f"verify: allow= takes a list of custom rules (classes or names), got {allow!r}")
    if allow and not (is_torch_call(inputs) or is_torch_module(fn)):
        raise TypeError("verify: allow= names custom autograd.Functions of a PyTorch program")
    if is_torch_call(inputs) or is_torch_module(fn) or is_jax_call(inputs):
        return _verify_framework(
            fn, inputs, order, positions, weights, expected, vjp, directions, seed, allow
        )
    if directions:
        raise TypeError("verify: directions= applies to PyTorch and JAX programs")
    report = verify_symgrad(fn, inputs, order, positions, weights, expected, vjp, rtol, use_frameworks, seed)
    if _collected is not None:
        _collected.append(report)
    return report


def _verify_framework(
    fn, inputs, order, positions, weights, expected, vjp, directions, seed, allow
) -> Report:
    """A PyTorch or JAX program: its framework's derivatives against the imported graph's closed form."""
    given = [
        name for name, v in (("positions", positions), ("expected", expected), ("vjp", vjp)) if v is not None
    ]
    if given:
        raise TypeError(
            f"verify: {', '.join(given)}= apply to symgrad programs; a PyTorch or JAX program is checked "
            "through its framework's derivatives (custom rules included), on every floating-point input"
        )
    if is_jax_call(inputs):
        if weights:
            raise TypeError(
                "verify: weights= names a PyTorch module's Parameters; a JAX function's are arguments"
            )
        report = verify_jax(fn, *inputs, order=order, directions=directions, seed=seed)
    else:
        report = verify_torch(
            fn, *inputs, order=order, weights=weights, directions=directions, seed=seed, allow=allow
        )
    if _collected is not None:
        _collected.append(report)
    return report


class collect:
    """Context manager gathering every report ``verify`` makes inside it (used by the CLI)."""

    def __enter__(self) -> list[Report]:
        global _collected
        self._previous, _collected = _collected, []
        return _collected

    def __exit__(self, *exc) -> None:
        global _collected
        _collected = self._previous
