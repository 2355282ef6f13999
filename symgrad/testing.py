"""Gradient checks for a project's own test suite.

``assert_grads_match(fn, *inputs, order=2)`` raises an AssertionError carrying the
full report when any comparison fails. With symgrad installed, pytest also gets a
``grad_check`` fixture (this module is registered as a pytest plugin)::

    def test_my_layer(grad_check):
        grad_check(my_layer, x, order=2)

``assert_mindspore_script_matches("train.py")`` does the same for a MindSpore script
(``symgrad verify --against-mindspore``): every gradient it computes on MindSpore, custom
bprops included, against symgrad's exact one.
"""

from __future__ import annotations

from collections.abc import Callable

from symgrad.verification import Report, verify

try:  # the fixture needs pytest; assert_grads_match does not
    import pytest
except ImportError:  # pragma: no cover - exercised where pytest is absent
    pytest = None  # type: ignore[assignment]


def assert_grads_match(fn: Callable, *inputs, order: int = 1, **options) -> Report:
    """Verify ``fn`` at ``inputs``; raise AssertionError with the report on any failure."""
    report = verify(fn, *inputs, order=order, **options)
    if not report.ok:
        raise AssertionError("gradient check failed\n" + str(report))
    return report


def assert_mindspore_script_matches(path) -> Report:
    """Run a MindSpore script on MindSpore and on symgrad; raise AssertionError with the report when
    any gradient it computes differs from the exact one."""
    from symgrad.verification.mindspore_script import verify_mindspore_script

    report = verify_mindspore_script(path)
    if not report.ok:
        raise AssertionError("MindSpore gradient check failed\n" + str(report))
    return report


if pytest is not None:

    @pytest.fixture
    def grad_check() -> Callable[..., Report]:
        """``grad_check(fn, *inputs, order=1, **options)``: :func:`assert_grads_match` as a fixture."""
        return assert_grads_match
