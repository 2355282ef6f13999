"""``TorchProgram``: an imported PyTorch program as a symgrad Cell with the module's Parameters."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from symgrad.core.families.conversion import cast
from symgrad.errors import OpError
from symgrad.importers.torch_convert import _identifier, _numpy, _torch
from symgrad.importers.torch_replay import _Replay
from symgrad.importers.torch_trace import _Traced
from symgrad.nn.cell import Cell
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor, merge_env


class TorchProgram(Cell):
    """An imported PyTorch program as a symgrad Cell: calling it replays its ATen ops.

    Its inputs have the PyTorch program's argument names; its Parameters are the module's,
    kept under their PyTorch names (``parameter("0.weight")``) and shown in formulas as
    identifiers (``layer0_weight``).
    """

    name: str
    _graph: Any
    _inputs: list[tuple[str, str, tuple, np.dtype]]
    _bound: dict[str, Tensor]
    _tokens: list[str]
    _replay: _Replay

    def __init__(self, traced: _Traced, name: str):
        super().__init__()
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "_graph", traced.graph)
        object.__setattr__(self, "_inputs", traced.inputs)
        bound: dict[str, Tensor] = {p: Tensor(_numpy(v)) for p, v in traced.constants.items()}
        for torch_name, (placeholder, value) in traced.params.items():
            param = Parameter(
                _numpy(value), name=_identifier(torch_name), requires_grad=bool(value.requires_grad)
            )
            self._params[torch_name] = param
            bound[placeholder] = param
        object.__setattr__(self, "_bound", bound)
        object.__setattr__(self, "_tokens", traced.tokens)
        object.__setattr__(self, "_replay", _Replay(_torch()))

        def construct(*inputs):
            return self._construct(*inputs)

        # derivatives and closed forms name the inputs as the PyTorch program does
        positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
        construct.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [inspect.Parameter(display, positional) for _, display, _, _ in self._inputs]
        )
        object.__setattr__(self, "construct", construct)

    @property
    def input_names(self) -> list[str]:
        """The program's tensor inputs, by their argument names."""
        return [display for _, display, _, _ in self._inputs]

    def parameter(self, torch_name: str) -> Parameter:
        """The Parameter PyTorch calls ``torch_name`` (``"0.weight"``; in formulas ``layer0_weight``)."""
        try:
            return self._params[torch_name]
        except KeyError:
            raise KeyError(
                f"{self.name} has no Parameter {torch_name!r}; it has {sorted(self._params)}"
            ) from None

    def _construct(self, *inputs):
        if len(inputs) != len(self._inputs):
            raise TypeError(f"{self.name}: takes {len(self._inputs)} tensor input(s), got {len(inputs)}")
        tensors = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs]
        env: dict = {}
        for (placeholder, display, shape, dtype), x in zip(self._inputs, tensors):
            if x.shape != shape:
                raise OpError(
                    f"{self.name}: input {display!r} has shape {x.shape}; the program was traced for "
                    f"{shape} (import it again with inputs of the new shape)"
                )
            env[placeholder] = cast(x._node, dtype)
        env.update({p: t._node for p, t in self._bound.items()})
        env.update(dict.fromkeys(self._tokens))
        outputs = self._replay.run(self._graph, env, {placeholder for placeholder, *_ in self._inputs})
        context = merge_env(*tensors, *self._bound.values())
        wrapped = [Tensor._wrap(n, context) for n in outputs]
        return wrapped[0] if len(wrapped) == 1 else tuple(wrapped)
