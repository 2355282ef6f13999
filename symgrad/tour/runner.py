"""Runs the guide's examples, prints each derivative's closed form and checks its numbers."""

from __future__ import annotations

import contextlib
import io
import warnings

import numpy as np

from symgrad.tensor import Tensor
from symgrad.tour.guide import BY_KEY, EXAMPLES, Example

SECTIONS = [e.key for e in EXAMPLES]


def run_example(example: Example) -> tuple[dict, str]:
    """Execute an example; return its namespace and what it printed."""
    namespace: dict = {"__name__": f"symgrad_tour_{example.key}"}
    printed = io.StringIO()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"set_context\(device_target='GPU'\)")
        with contextlib.redirect_stdout(printed):
            exec(compile(example.code, f"<guide:{example.key}>", "exec"), namespace)
    return namespace, printed.getvalue()


def check_example(example: Example, namespace: dict) -> list[tuple[str, Tensor, np.ndarray, bool]]:
    """(name, tensor, guide value, matches) for every documented result."""
    rows = []
    for name, expected in example.expected.items():
        got = eval(name, {}, namespace)
        ok = np.allclose(np.asarray(got, dtype=np.float64), expected, rtol=1e-5, atol=example.atol)
        rows.append((name, got, np.asarray(expected), ok))
    return rows


def run_tour(section: str | None = None, out=None) -> bool:
    """Print the tour (all sections, or one); True if every number matches the guide."""
    out = out or __import__("sys").stdout
    all_ok = True
    for example in [BY_KEY[section]] if section else EXAMPLES:
        namespace, _ = run_example(example)
        print(f"== {example.key}: {example.title}", file=out)
        if example.note:
            print(f"   {example.note}", file=out)
        for name, tensor, expected, ok in check_example(example, namespace):
            all_ok &= ok
            print(f"   {name} = {tensor.expr}", file=out)
            value = np.array2string(tensor.asnumpy(), precision=7, separator=", ")
            mark = "matches the guide" if ok else f"DIFFERS from the guide {expected.tolist()}"
            print(f"     = {value}   [{mark}]", file=out)
        print(file=out)
    print("all values match the guide" if all_ok else "SOME VALUES DIFFER FROM THE GUIDE", file=out)
    return all_ok
