"""Derivative blocks of a traced call: d^k output / d in_i1 ... d in_ik, as graph nodes.

A block for output ``o`` and inputs ``(i1, ..., ik)`` has shape
``out_o.shape + in_i1.shape + ... + in_ik.shape`` (the layout of ``jacrev`` and of
PyTorch's ``autograd.functional.jacobian`` nested k times).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from symgrad.autodiff.jacobian import jacobian_node
from symgrad.core.graph import Node, Var


@dataclass(frozen=True)
class Block:
    """One derivative block."""

    output: int
    path: tuple[int, ...]  # which inputs, in the order of differentiation
    node: Node
    label: str


def derivative_blocks(
    outputs: Sequence[Node], inputs: Sequence[Var], names: Sequence[str], order: int
) -> list[list[Block]]:
    """Blocks of every order 1..order: ``result[k - 1]`` lists the order-k blocks."""
    levels: list[list[Block]] = []
    current = [Block(o, (), node, f"out{o}" if len(outputs) > 1 else "out") for o, node in enumerate(outputs)]
    for _ in range(order):
        nxt = []
        for block, (i, x) in itertools.product(current, enumerate(inputs)):
            label = _label(block, names[i])
            nxt.append(Block(block.output, block.path + (i,), jacobian_node(block.node, x), label))
        levels.append(nxt)
        current = nxt
    return levels


def _label(block: Block, name: str) -> str:
    if not block.path:
        return f"d {block.label} / d {name}"
    head, _, tail = block.label.partition(" / ")
    k = len(block.path) + 1
    head = head.replace("d ", f"d{k} ", 1) if k == 2 else head.replace(f"d{k - 1} ", f"d{k} ", 1)
    return f"{head} / {tail} d {name}"
