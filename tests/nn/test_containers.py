"""MindSpore 2.10's containers (CellList, SequentialCell): Parameter names through their edits,
and training the cells they hold.

The numbers asserted directly were computed by real MindSpore 2.10 on the CPU, so these tests run
without it; where MindSpore is installed the ``*_as_mindspore`` tests also run both libraries on the
same inputs and weights and compare Parameter names.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from tests.nn.helpers import needs_mindspore

# ----- containers -----


def names(cell) -> list[str]:
    return [p.name for p in cell.get_parameters()]


def container_story(lib) -> list:
    """Parameter names through CellList/SequentialCell edits, as MindSpore 2.10 names them."""
    nn_ = lib.nn
    out: list = []
    cells = nn_.CellList([nn_.Dense(2, 3), nn_.ReLU(), nn_.Dense(3, 4)])
    out.append(names(cells))
    cells.append(nn_.Dense(4, 5))
    cells.extend([nn_.Dense(5, 6), nn_.Tanh()])
    cells.insert(1, nn_.Dense(3, 3))
    out.append(names(cells))
    out.append((len(cells), [type(c).__name__ for c in cells], type(cells[-1]).__name__))
    del cells[1]
    out.append(names(cells))
    del cells[0:2]
    out.append(names(cells))

    class Net(nn_.Cell):
        def __init__(self):
            super().__init__()
            self.layers = nn_.CellList([nn_.Dense(2, 3), nn_.Dense(3, 4)])
            self.seq = nn_.SequentialCell([nn_.Dense(4, 4), nn_.ReLU()])

        def construct(self, x):
            for layer in self.layers:
                x = layer(x)
            return self.seq(x)

    net = Net()
    net.layers.append(nn_.Dense(4, 4))
    net.seq.append(nn_.Dense(4, 2))
    out.append(names(net))
    net.layers.insert(0, nn_.Dense(2, 2))
    del net.layers[1]
    out.append(names(net))
    ordered = nn_.SequentialCell(
        OrderedDict([("fc", nn_.Dense(1, 2)), ("act", nn_.ReLU()), ("out", nn_.Dense(2, 1))])
    )
    ordered.append(nn_.Dense(1, 1))
    out.append(names(ordered))
    out.append(names(ordered[1:]))
    return out


def test_cell_lists_name_parameters_as_mindspore():
    story = container_story(symgrad)
    assert story[0] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    assert story[1] == [f"{i}.{w}" for i in (0, 1, 3, 4, 5) for w in ("weight", "bias")]
    assert story[2] == (7, ["Dense", "Dense", "ReLU", "Dense", "Dense", "Dense", "Tanh"], "Tanh")
    assert story[3] == [f"{i}.{w}" for i in (0, 2, 3, 4) for w in ("weight", "bias")]
    assert story[4] == [f"{i}.{w}" for i in (0, 1, 2) for w in ("weight", "bias")]
    assert story[5] == [f"layers.{i}.{w}" for i in (0, 1, 2) for w in ("weight", "bias")] + [
        "seq.0.weight",
        "seq.0.bias",
        "seq.2.weight",
        "seq.2.bias",
    ]
    assert story[6] == story[5]  # inserting then deleting the first cell renumbers back
    assert story[7] == ["fc.weight", "fc.bias", "out.weight", "out.bias", "3.weight", "3.bias"]
    assert story[8] == ["out.weight", "out.bias", "3.weight", "3.bias"]


def test_a_cell_list_trains_its_cells():
    nn.set_seed(0)
    cells = nn.CellList([nn.Dense(2, 3, activation="tanh"), nn.Dense(3, 1)])

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.cells = cells

        def construct(self, x):
            for cell in self.cells:
                x = cell(x)
            return x

    net = Net()
    x = Tensor(np.array([[0.5, -1.0]], np.float32))
    grads = ops.grad(lambda t: net(t).sum(), None, net.trainable_params())(x)
    assert [p.name for p in net.trainable_params()] == [
        "cells.0.weight",
        "cells.0.bias",
        "cells.1.weight",
        "cells.1.bias",
    ]
    assert [g.shape for g in grads] == [(3, 2), (3,), (1, 3), (1,)]
    with pytest.raises(NotImplementedError):
        cells(x)
    with pytest.raises(IndexError):
        cells[5]
    with pytest.raises(TypeError):
        cells.append(3)
    with pytest.raises(TypeError):
        nn.SequentialCell((nn.ReLU(),))  # MindSpore takes a list, an OrderedDict or cells


@needs_mindspore
def test_containers_as_mindspore(ms, quiet):
    assert container_story(symgrad) == container_story(ms)
