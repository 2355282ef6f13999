"""The guide's examples, verbatim with ``mindspore`` renamed ``symgrad``, and its printed numbers.

Each example's ``code`` runs on its own; ``expected`` maps a variable of the
executed namespace to the values the guide prints for it.

The examples live one section a module (``first_order``, ``higher_order``, ``jvp_vjp``), their
shared code in ``snippets`` and the record in ``example``; this module lists them in the guide's order.
"""

from __future__ import annotations

from symgrad.tour.example import TITLES_ZH, Example
from symgrad.tour.first_order import FIRST_ORDER
from symgrad.tour.higher_order import HIGHER_ORDER
from symgrad.tour.jvp_vjp import JVP_VJP

EXAMPLES: list[Example] = [*FIRST_ORDER, *HIGHER_ORDER, *JVP_VJP]

BY_KEY = {e.key: e for e in EXAMPLES}

__all__ = ["BY_KEY", "EXAMPLES", "TITLES_ZH", "Example"]
