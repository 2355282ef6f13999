"""The verification report: one row per (derivative, method) comparison, and notes."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

OK, FAIL, KINK = "ok", "FAIL", "explained: kink"
ALLOWED = "explained: allowed rule"  # a difference made by a custom rule marked intended (allow=)


@dataclass
class Row:
    """``got`` compared with the 50-digit reference for one derivative block."""

    derivative: str
    method: str
    max_abs: float
    max_rel: float
    where: tuple
    got: float
    reference: float
    rtol: float
    atol: float
    verdict: str


def compare(
    derivative: str, method: str, got, reference: np.ndarray, rtol: float, atol: float, judged=None
) -> Row:
    """A row: the largest error, where it is, and whether every element is within tolerance.

    Elements where both sides are the same non-finite value (NaN and NaN, inf and inf)
    agree; elements outside ``judged`` (a boolean mask) are not compared.
    """
    got = np.broadcast_to(np.asarray(got, dtype=np.float64), reference.shape)
    same = (got == reference) | (np.isnan(got) & np.isnan(reference))
    skip = same if judged is None else same | ~np.broadcast_to(judged, reference.shape)
    got = np.where(skip, reference, got)
    reference = np.where(skip & ~np.isfinite(reference), 0.0, reference)
    got = np.where(skip & ~np.isfinite(got), 0.0, got)
    with np.errstate(invalid="ignore"):
        err = np.abs(got - reference)
    nonzero = np.abs(reference) > atol
    rel = np.where(nonzero, err / np.where(nonzero, np.abs(reference), 1.0), 0.0)
    with np.errstate(invalid="ignore"):
        excess = np.nan_to_num(err - (atol + rtol * np.abs(reference)), nan=np.inf)
    if reference.size == 0:
        return Row(derivative, method, 0.0, 0.0, (), 0.0, 0.0, rtol, atol, OK)
    worst = np.unravel_index(int(np.argmax(excess if np.any(excess > 0) else err)), reference.shape)
    verdict = OK if np.all(np.isfinite(got)) and np.all(excess <= 0) else FAIL
    return Row(
        derivative, method, float(err.max()), float(rel.max()), tuple(int(i) for i in worst),
        float(got[worst]), float(reference[worst]), rtol, atol, verdict,
    )  # fmt: skip


def magnitude(array: np.ndarray) -> float:
    """The largest finite |element| (0 for an empty or all-non-finite array)."""
    finite = np.abs(array[np.isfinite(array)])
    return float(finite.max(initial=0.0))


@dataclass
class Report:
    """Everything ``symgrad.verify`` compared, with verdicts a person can act on."""

    title: str
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    blocks: list = field(default_factory=list)  # the derivative blocks compared, in order
    rules: dict = field(default_factory=dict)  # custom rule name -> its own report (where checked)

    @property
    def ok(self) -> bool:
        """True when no comparison failed (explained kink differences are not failures)."""
        return all(r.verdict != FAIL for r in self.rows)

    @property
    def failures(self) -> list[Row]:
        return [r for r in self.rows if r.verdict == FAIL]

    def __str__(self) -> str:
        head = (
            "derivative",
            "compared with",
            "max abs err",
            "max rel err",
            "where",
            "got",
            "reference",
            "tolerance",
            "verdict",
        )
        body = [
            (
                r.derivative, r.method, f"{r.max_abs:.2e}", f"{r.max_rel:.2e}", str(list(r.where)),
                f"{r.got:.10g}", f"{r.reference:.10g}", f"rtol {r.rtol:.0e}, atol {r.atol:.1e}", r.verdict,
            )
            for r in self.rows
        ]  # fmt: skip
        widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
        lines = [self.title, "  ".join(h.ljust(w) for h, w in zip(head, widths))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)) for row in body]
        lines += [f"note: {n}" for n in self.notes]
        failed = len(self.failures)
        lines.append(
            "verdict: all comparisons agree" if not failed else f"verdict: {failed} comparison(s) FAILED"
        )
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return "```\n" + str(self) + "\n```"
