"""``Cell``: MindSpore's module class. ``construct`` is the forward pass."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator

from symgrad import observed
from symgrad.autodiff.custom_bprop import bprop_set_aside, with_bprop
from symgrad.parameter import Parameter


def _precision_of(cell: Cell):
    """The dtype ``to_float`` set on ``cell`` (by its flags), or None."""
    from symgrad import dtype as mstype

    flags = cell.__dict__
    if flags.get("fp16"):
        return mstype.float16
    return mstype.float32 if flags.get("fp32") else None


def _cast_float(value, dst):
    """A float Tensor (or Parameter) cast to ``dst``; anything else unchanged."""
    from symgrad.tensor import Tensor

    if isinstance(value, Tensor) and value.dtype.is_float and value.dtype != dst:
        return value.astype(dst)
    return value


class Cell:
    """Base class of networks; sub-cells and Parameters assigned as attributes are tracked."""

    training: bool  # set_train() sets it on the cell and every sub-cell; False until then
    requires_grad: bool  # set_grad() sets it (on this cell only, as MindSpore)
    _params: OrderedDict[str, Parameter]
    _cells: OrderedDict[str, Cell]
    _auto_prefix: bool
    _flags: dict
    _phase: str

    def __init__(self, auto_prefix: bool = True, flags: dict | None = None):
        # auto_prefix: a sub-cell's Parameters are renamed "<attribute>.<path>" when it is assigned
        # (MindSpore's wrappers, WithLossCell and TrainOneStepCell, leave their network's names alone)
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "requires_grad", False)
        object.__setattr__(self, "_phase", "train")
        if flags:
            self.add_flags(**flags)

    def _ensure_init(self) -> None:
        if "_params" not in self.__dict__:
            raise AttributeError(
                f"{type(self).__name__}.__init__ must call super().__init__() before assigning "
                "Parameters or sub-cells"
            )

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, Parameter):
            self._ensure_init()
            if value.name == "Parameter":  # no name given: the attribute's
                value.name = name
            self._params[name] = value
        elif isinstance(value, Cell):
            self._ensure_init()
            # MindSpore's update_parameters_name(name + "."): given names are prefixed too
            if self.__dict__.get("_auto_prefix", True):
                for path, p in value.parameters_and_names():
                    p.name = f"{name}.{path}"
            self._cells[name] = value
        object.__setattr__(self, name, value)
        observed.note_state_change()

    def construct(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        dst = _precision_of(self)
        if dst is not None:  # to_float: float inputs and this cell's float Parameters in dst
            args = tuple(_cast_float(a, dst) for a in args)
            cast = {name: _cast_float(p, dst) for name, p in self._params.items()}
            saved = {name: self.__dict__[name] for name in cast}
            self.__dict__.update(cast)
            try:
                return self._call_construct(args, kwargs)
            finally:
                self.__dict__.update(saved)
        return self._call_construct(args, kwargs)

    def _call_construct(self, args: tuple, kwargs: dict):
        out = self.construct(*args, **kwargs)
        if callable(getattr(self, "bprop", None)) and not kwargs and not bprop_set_aside(self):
            return with_bprop(self, args, out)
        return out

    def to_float(self, dst_type) -> Cell:
        """Run this cell and every sub-cell in ``dst_type`` (``float16`` or ``float32``): on each call
        their float Tensor inputs and float Parameters are cast to it (the Parameters themselves
        keep their dtype), as MindSpore's mixed precision; sets the flags ``fp16``/``fp32``/``bf16``."""
        from symgrad import dtype as mstype

        if dst_type not in (mstype.float16, mstype.float32):
            raise ValueError(
                "For 'to_float', the argument 'dst_type' must be mstype.float32 or mstype.float16 "
                f"(symgrad has no bfloat16), but got {dst_type!r}"
            )
        return self.add_flags_recursive(
            fp16=dst_type == mstype.float16, fp32=dst_type == mstype.float32, bf16=False
        )

    def parameters_and_names(
        self, name_prefix: str = "", expand: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """(qualified name, Parameter) pairs, each Parameter once."""
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else iter([(name_prefix, self)])
        for prefix, cell in cells:
            for attr, p in cell._params.items():
                if id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{prefix}.{attr}" if prefix else attr), p

    def cells_and_names(self, cells: set | None = None, name_prefix: str = "") -> Iterator[tuple[str, Cell]]:
        """(qualified name, Cell) pairs of this cell and its sub-cells, each Cell once."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

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

    @property
    def phase(self) -> str:
        """``"train"``, or ``"predict"`` after ``set_train(False)`` (this cell only, as MindSpore)."""
        return self.__dict__.get("_phase", "train")

    @phase.setter
    def phase(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"Cell.phase must be a str, got {type(value).__name__}")
        object.__setattr__(self, "_phase", value)

    def set_train(self, mode: bool = True) -> Cell:
        """Training mode (``mode``) for this cell and every sub-cell, as MindSpore's
        ``add_flags_recursive(training=mode)``; cells added later keep their own."""
        object.__setattr__(self, "_phase", "train" if mode else "predict")
        return self.add_flags_recursive(training=mode)

    def set_grad(self, requires_grad: bool = True) -> Cell:
        """MindSpore's flag for building the backward graph (this cell only); symgrad needs none."""
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    def set_inputs(self, *inputs) -> None:
        """MindSpore declares dynamic input shapes for graph compilation; symgrad records them."""
        object.__setattr__(self, "inputs_declared", inputs)

    def add_flags(self, **flags) -> Cell:
        """Set ``flags`` as attributes of this cell and record them (``get_flags()``), as MindSpore."""
        self.__dict__.setdefault("_flags", {}).update(flags)
        self.__dict__.update(flags)
        observed.note_state_change()
        return self

    def add_flags_recursive(self, **flags) -> Cell:
        """``add_flags`` on this cell and every sub-cell."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        return self.__dict__.setdefault("_flags", {})

    def __repr__(self) -> str:
        inner = ", ".join(f"{n}={type(c).__name__}" for n, c in self._cells.items())
        return f"{type(self).__name__}<{inner}>"
