"""``Cell``: MindSpore's module class. ``construct`` is the forward pass."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

from symgrad import observed
from symgrad.autodiff.custom_bprop import bprop_set_aside, with_bprop
from symgrad.parameter import Parameter


class Cell:
    """Base class of networks; sub-cells and Parameters assigned as attributes are tracked."""

    training: bool  # set_train() sets it; False until then, as in MindSpore
    _params: OrderedDict[str, Parameter]
    _cells: OrderedDict[str, Cell]
    _auto_prefix: bool

    def __init__(self, auto_prefix: bool = True, flags=None):
        # auto_prefix: a sub-cell's Parameters are renamed "<attribute>.<name>" when it is assigned
        # (MindSpore's wrappers, WithLossCell and TrainOneStepCell, leave their network's names alone)
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "training", False)

    def _ensure_init(self) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.__init__ must call super().__init__() before assigning "
                "Parameters or sub-cells"
            )

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, Parameter):
            self._ensure_init()
            if value.name == "Parameter":
                value.name, value._auto_name = name, True
            self._params[name] = value
        elif isinstance(value, Cell):
            self._ensure_init()
            self._cells[name] = value
            if self.__dict__.get("_auto_prefix", True):
                for path, p in value.parameters_and_names():
                    if getattr(p, "_auto_name", False) and p.name == path:
                        p.name = f"{name}.{path}"
        object.__setattr__(self, name, value)
        observed.note_state_change()

    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        out = self.construct(*args, **kwargs)
        if callable(getattr(self, "bprop", None)) and not kwargs and not bprop_set_aside(self):
            return with_bprop(self, args, out)
        return out

    def parameters_and_names(
        self, name_prefix: str = "", expand: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(qualified name, Parameter) pairs, each Parameter once."""
        seen: set[int] = set()
        for prefix, cell in self.cells_and_names(name_prefix):
            for attr, p in cell._params.items():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{prefix}.{attr}" if prefix else attr), p
            if not expand:
                break

    def cells_and_names(self, cell_prefix: str = "") -> Iterator[tuple[str, Cell]]:
        yield cell_prefix, self
        for name, cell in self._cells.items():
            yield from cell.cells_and_names(f"{cell_prefix}.{name}" if cell_prefix else name)

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(recurse) if not p.requires_grad]

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict:
        """MindSpore materialises lazily initialised Parameters here; symgrad's hold their data
        from the start, so nothing is replaced (an empty dict, as MindSpore returns then)."""
        return {}

    def cells(self) -> list[Cell]:
        return list(self._cells.values())

    def set_train(self, mode: bool = True) -> Cell:
        object.__setattr__(self, "training", mode)
        return self

    def set_grad(self, requires_grad: bool = True) -> Cell:
        return self

    def set_inputs(self, *inputs) -> None:
        """MindSpore declares dynamic input shapes for graph compilation; symgrad records them."""
        object.__setattr__(self, "inputs_declared", inputs)

    def add_flags(self, **flags) -> Cell:
        """Attach MindSpore compilation flags (recorded, no effect on symgrad's graphs)."""
        self.__dict__.setdefault("_flags", {}).update(flags)
        return self

    def add_flags_recursive(self, **flags) -> Cell:
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={type(c).__name__}" for n, c in self._cells.items())
        return f"{type(self).__name__}<{inner}>"
