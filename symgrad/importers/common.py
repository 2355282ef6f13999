"""What every importer does with one recorded op: find it in the import table (the rows' spellings,
those with a framework's argument conventions from ``aten_structural``, ``aten_arithmetic``,
``aten_matmul``, ``aten_functions``, ``lax_structural`` and ``lax_rows`` among them, and the
compositions), build it from its row, check it against the record."""

from __future__ import annotations

import dataclasses

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.core.graph import Node, const
from symgrad.core.registry import OPS, Imported, OpDef, imports_of, lookup, make_node
from symgrad.errors import OpError
from symgrad.importers import (
    aten_arithmetic,
    aten_functions,
    aten_matmul,
    aten_structural,
    lax_rows,
    lax_structural,
)


def build(op: OpDef | None, entry: Imported, args, kwargs: dict, who: str) -> Node:
    """The node ``entry`` stands for: its ``build`` on the framework's arguments, or ``op`` on the
    positional ones (numbers as constants) where it has none and no keyword arguments are given."""
    if entry.build is not None:
        return entry.build(*args, **kwargs)
    if kwargs or op is None:
        raise OpError(
            f"{who}: the {entry.framework} op {entry.name!r} with arguments {sorted(kwargs)} has no row"
        )
    return make_node(op.name, tuple(a if isinstance(a, Node) else const(a) for a in args))


def as_recorded(node: Node, shape: tuple, dtype, who: str, what: str) -> Node:
    """``node`` checked against the shape the framework recorded, and cast to its dtype (the two
    promote Python numbers and 0-d tensors differently). A size the framework left symbolic (a
    boolean mask's count, found from constants here) is not compared."""
    recorded = tuple(shape)
    known = [i for i, d in enumerate(recorded) if isinstance(d, int | np.integer)]  # not data-dependent
    if len(node.shape) != len(recorded) or any(node.shape[i] != recorded[i] for i in known):
        raise OpError(
            f"{who}: {what} gives shape {node.shape} in symgrad and {tuple(shape)} in the framework"
        )
    return cast(node, np.dtype(dtype))


def add_imports(rows: dict[str, tuple[Imported, ...]]) -> None:
    """Put framework spellings on the op table's rows (``OpDef.imports``, which ``imports_of``
    reads): rows whose spellings need a framework's argument conventions get them from the importer
    module that knows those conventions, so the core knows no framework."""
    for row, entries in rows.items():
        op = lookup(row)
        OPS[row] = dataclasses.replace(op, imports=op.imports + entries)


def import_table(framework: str) -> dict[str, tuple[OpDef | None, Imported]]:
    """Every op ``framework`` can name: the rows' own spellings (``imports_of``) and the
    compositions of several rows (``aten_composites``, ``aten_scatter``, ``aten_linalg``; ``lax_composites``,
    ``lax_conv``), each name once."""
    from symgrad.importers import aten_composites, aten_linalg, aten_scatter, lax_composites, lax_conv

    table: dict[str, tuple[OpDef | None, Imported]] = dict(imports_of(framework))
    composed = {
        "aten": (*aten_composites.ATEN, *aten_scatter.ATEN, *aten_linalg.ATEN),
        "jax": (*lax_composites.LAX, *lax_conv.LAX),
    }
    for entry in composed.get(framework, ()):
        if entry.name in table:
            raise ValueError(f"{framework} op {entry.name!r} has a row and a composition")
        table[entry.name] = (None, entry)
    return table


add_imports(aten_structural.ATEN)
add_imports(aten_arithmetic.ATEN)
add_imports(aten_matmul.ATEN)
add_imports(aten_functions.ATEN)
add_imports(lax_structural.LAX)
add_imports(lax_rows.LAX)
