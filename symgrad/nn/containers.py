"""Containers: ``SequentialCell`` and ``CellList``, with MindSpore 2.10's Parameter names.

A cell placed at position ``i`` has its Parameters renamed ``<prefix>i.<path>`` (MindSpore's
``update_parameters_name``), where ``<prefix>`` is the container's own place in a bigger network,
read back from the names of the Parameters it already holds (MindSpore's ``_get_prefix_and_index``);
inserting or deleting renumbers the cells after it and their Parameters.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

from symgrad import observed
from symgrad.nn.cell import Cell


def _rename(cell: Cell, prefix: str) -> None:
    """MindSpore's ``cell.update_parameters_name(prefix)``: each Parameter becomes prefix + its path."""
    for path, p in cell.parameters_and_names():
        p.name = prefix + path


def _renumber(cell: Cell, prefix: str, number: int, key_index: int) -> None:
    """Rename ``cell``'s Parameters for position ``number``, keeping the part of each name after the old key."""
    for _, p in cell.parameters_and_names():
        p.name = f"{prefix}{number}." + ".".join(p.name.split(".")[key_index + 1 :])


def _prefix_and_index(cells: OrderedDict[str, Cell]) -> tuple[str, int]:
    """The prefix the container's Parameter names carry and where its keys sit in them, read from the
    first (and second) cell with Parameters, as MindSpore's ``_get_prefix_and_index``."""
    found = []
    for key, cell in cells.items():
        first = next(iter(cell.parameters_and_names()), None)
        if first is not None:
            found.append((key, first[1]))
            if len(found) == 2:
                break
    if not found:
        return "", 0
    (first_key, first_param), second = found[0], found[1] if len(found) > 1 else None
    prefix, index = "", 0
    names = first_param.name.split(".")
    for i, name in enumerate(names):
        if name == first_key:
            prefix, index = ".".join(names[:i]) + "." if i else "", i
            if second is not None and second[1].name.split(".")[i] == second[0]:
                break
    return prefix, index


def _valid_index(count: int, index, who: str, inserting: bool = False) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"For '{who}', the type of 'index' must be int, but got {type(index).__name__}.")
    top = count + 1 if inserting else count
    if not -count <= index < top:
        end = f"{count}]" if inserting else f"{count})"
        raise IndexError(
            f"For '{who}', the value of 'index' must be a number in range [{-count}, {end}, but got {index}."
        )
    if inserting:
        return index % count if count and index != count else index
    return index % count


def _checked(cell, who: str) -> Cell:
    if not isinstance(cell, Cell):
        raise TypeError(f"For '{who}', each cell must be subclass of Cell, but got {type(cell).__name__}.")
    return cell


class SequentialCell(Cell):
    """Cells applied in order: ``SequentialCell([a, b])``, ``SequentialCell(a, b)`` or an
    ``OrderedDict`` of named cells; each cell's Parameters are named by its key (``"0.weight"``)."""

    _is_dynamic_name: list[bool]  # per cell: named by its position (renumbered on deletion), or by its key

    def __init__(self, *args):
        super().__init__()
        object.__setattr__(self, "_is_dynamic_name", [])
        who = type(self).__name__
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            items, dynamic = list(args[0].items()), False
        elif len(args) == 1 and not isinstance(args[0], Cell):
            if not isinstance(args[0], list):
                raise TypeError(
                    f"For '{who}', the 'args[0]' must be Cell, list or orderedDict, but got {type(args[0]).__name__}"
                )
            items, dynamic = [(str(i), c) for i, c in enumerate(args[0])], True
        else:
            items, dynamic = [(str(i), c) for i, c in enumerate(args)], True
        for key, cell in items:
            self._cells[key] = _checked(cell, who)
            _rename(cell, key + ".")
            self._is_dynamic_name.append(dynamic)

    @property
    def cell_list(self) -> list[Cell]:
        return list(self._cells.values())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(OrderedDict(list(self._cells.items())[index]))
        return self.cell_list[_valid_index(len(self), index, type(self).__name__)]

    def __setitem__(self, index: int, cell: Cell) -> None:
        who = type(self).__name__
        _checked(cell, who)
        prefix, _ = _prefix_and_index(self._cells)
        key = list(self._cells)[_valid_index(len(self), index, who)]
        self._cells[key] = cell
        _rename(cell, prefix + key + ".")
        observed.note_state_change()

    def __delitem__(self, index) -> None:
        who = type(self).__name__
        if isinstance(index, int) and not isinstance(index, bool):
            keys = [list(self._cells)[_valid_index(len(self), index, who)]]
            del self._is_dynamic_name[index]
        elif isinstance(index, slice):
            keys = list(self._cells)[index]
            del self._is_dynamic_name[index]
        else:
            raise TypeError(
                f"For '{who}', the type of index must be int type or slice type, but got {type(index).__name__}"
            )
        for key in keys:
            del self._cells[key]
        prefix, key_index = _prefix_and_index(self._cells)
        renamed: OrderedDict[str, Cell] = OrderedDict()
        for i, (key, cell) in enumerate(self._cells.items()):
            if self._is_dynamic_name[i]:
                _renumber(cell, prefix, i, key_index)
                key = str(i)
            renamed[key] = cell
        object.__setattr__(self, "_cells", renamed)
        observed.note_state_change()

    def __len__(self) -> int:
        return len(self._cells)

    def __bool__(self) -> bool:
        return bool(self._cells)

    def append(self, cell: Cell) -> None:
        """Add ``cell`` at the end (its Parameters named ``<prefix><len>.<path>``)."""
        _checked(cell, type(self).__name__)
        prefix, _ = _prefix_and_index(self._cells)
        _rename(cell, f"{prefix}{len(self)}.")
        self._is_dynamic_name.append(True)
        self._cells[str(len(self))] = cell
        observed.note_state_change()

    def construct(self, x):
        for cell in self._cells.values():
            x = cell(x)
        return x


class CellList(Cell):
    """Cells held in a list (not connected: ``construct`` is the user's); ``append``, ``extend``,
    ``insert``, indexing, slicing, ``del``, ``len`` and iteration as in MindSpore."""

    def __init__(self, *args, **kwargs):
        super().__init__(kwargs.get("auto_prefix", True))
        if len(args) == 1:
            self.extend(args[0])

    def __getitem__(self, index):
        who = type(self).__name__
        if isinstance(index, slice):
            return CellList(list(self._cells.values())[index])
        if isinstance(index, int) and not isinstance(index, bool):
            return self._cells[str(_valid_index(len(self), index, who))]
        raise TypeError(
            f"For '{who}', the type of 'index' must be int or slice, but got {type(index).__name__}."
        )

    def __setitem__(self, index: int, cell: Cell) -> None:
        who = type(self).__name__
        _checked(cell, who)
        index = _valid_index(len(self), index, who)
        if self._auto_prefix:
            prefix, _ = _prefix_and_index(self._cells)
            _rename(cell, f"{prefix}{index}.")
        self._cells[str(index)] = cell
        observed.note_state_change()

    def __delitem__(self, index) -> None:
        who = type(self).__name__
        if isinstance(index, int) and not isinstance(index, bool):
            keys = [str(_valid_index(len(self), index, who))]
        elif isinstance(index, slice):
            keys = list(self._cells)[index]
        else:
            raise TypeError(
                f"For '{who}', the type of 'index' must be int or slice, but got {type(index).__name__}."
            )
        for key in keys:
            del self._cells[key]
        prefix, key_index = _prefix_and_index(self._cells)
        renumbered: OrderedDict[str, Cell] = OrderedDict()
        for i, cell in enumerate(self._cells.values()):
            if self._auto_prefix:
                _renumber(cell, prefix, i, key_index)
            renumbered[str(i)] = cell
        object.__setattr__(self, "_cells", renumbered)
        observed.note_state_change()

    def __len__(self) -> int:
        return len(self._cells)

    def __bool__(self) -> bool:
        return bool(self._cells)

    def __iter__(self) -> Iterator[Cell]:
        return iter(list(self._cells.values()))

    def __iadd__(self, cells: list[Cell]) -> CellList:
        return self.extend(cells)

    def insert(self, index: int, cell: Cell) -> None:
        """Put ``cell`` before position ``index``; the cells after it move up one (and are renamed)."""
        who = type(self).__name__
        at = _valid_index(len(self), index, who, inserting=True)
        _checked(cell, who)
        prefix, key_index = _prefix_and_index(self._cells)
        for i in range(len(self), at, -1):
            moved = self._cells[str(i - 1)]
            if self._auto_prefix:
                _renumber(moved, prefix, i, key_index)
            self._cells[str(i)] = moved
        self._cells[str(at)] = cell
        if self._auto_prefix:
            _rename(cell, f"{prefix}{at}.")
        observed.note_state_change()

    def extend(self, cells: list[Cell]) -> CellList:
        """Append each of ``cells`` (a list)."""
        who = type(self).__name__
        if not isinstance(cells, list):
            raise TypeError(
                f"For '{who}', the new cells wanted to append should be instance of list, but got {type(cells).__name__}."
            )
        prefix, _ = _prefix_and_index(self._cells)
        for cell in cells:
            _checked(cell, who)
            if self._auto_prefix:
                _rename(cell, f"{prefix}{len(self)}.")
            self._cells[str(len(self))] = cell
        observed.note_state_change()
        return self

    def append(self, cell: Cell) -> None:
        """Add ``cell`` at the end."""
        _checked(cell, type(self).__name__)
        if self._auto_prefix:
            prefix, _ = _prefix_and_index(self._cells)
            _rename(cell, f"{prefix}{len(self)}.")
        self._cells[str(len(self))] = cell
        observed.note_state_change()

    def construct(self, *inputs):
        raise NotImplementedError(f"{type(self).__name__} holds cells; call them from your own construct")


__all__ = ["CellList", "SequentialCell"]
