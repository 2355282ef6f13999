"""Recurrent layers: ``RNN``, ``LSTM`` and ``GRU``, as MindSpore 2.10's (PyTorch's gate order and weights).

Each time step is a few matrix products and activations (MindSpore's ``_lstm_cell`` and
``_gru_cell``), unrolled over the sequence, so values and derivatives come from the rows they are
made of. Weights are named and shaped as MindSpore's: ``weight_ih_l{k}`` (gates * hidden, input),
``weight_hh_l{k}`` (gates * hidden, hidden), ``bias_ih_l{k}``, ``bias_hh_l{k}``, with ``_reverse``
for the backward direction, registered in MindSpore's order (every ``weight_ih`` first, then every
``weight_hh``, ``bias_ih``, ``bias_hh``), drawn uniformly in +-1/sqrt(hidden_size). ``seq_length``
(rows of different lengths) masks each step with selects, as MindSpore's ``variable_recurrent``; a
``dropout`` between layers acts in training only (``Dropout``'s mask).
"""

from __future__ import annotations

import math

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.nn.cell import Cell
from symgrad.nn.dropout import Dropout
from symgrad.nn.layers import generator
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor


def _lstm_step(x, state, w_ih, w_hh, b_ih, b_hh):
    """MindSpore's ``_lstm_cell``: gates in the order input, forget, cell, output."""
    h, c = state
    gates = ops.matmul(x, w_ih.T) + ops.matmul(h, w_hh.T)
    if b_ih is not None:
        gates = gates + b_ih + b_hh
    i, f, g, o = ops.split(gates, gates.shape[1] // 4, 1)
    c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
    return ops.sigmoid(o) * ops.tanh(c), c


def _gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    """MindSpore's ``_gru_cell``: reset, update (input) and new gates; ``n + z (h - n)``."""
    gi, gh = ops.matmul(x, w_ih.T), ops.matmul(h, w_hh.T)
    if b_ih is not None:
        gi, gh = gi + b_ih, gh + b_hh
    size = gi.shape[1] // 3
    i_r, i_z, i_n = ops.split(gi, size, 1)
    h_r, h_z, h_n = ops.split(gh, size, 1)
    r, z = ops.sigmoid(i_r + h_r), ops.sigmoid(i_z + h_z)
    n = ops.tanh(i_n + r * h_n)
    return n + z * (h - n)


def _rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity: str = "tanh"):
    """MindSpore's ``_rnn_tanh_cell`` / ``_rnn_relu_cell``: act(x W_ih^T + b_ih + h W_hh^T + b_hh)."""
    z = ops.matmul(x, w_ih.T) + ops.matmul(h, w_hh.T)
    if b_ih is not None:
        z = z + b_ih + b_hh
    return ops.tanh(z) if nonlinearity == "tanh" else ops.relu(z)


def _reversed_rows(steps: list, lengths: np.ndarray) -> list:
    """MindSpore's ReverseSequence on a list of (batch, features) steps: row b's first lengths[b]
    steps in reverse order, its later steps where they were."""
    rows = range(len(lengths))
    return [
        ops.stack([steps[lengths[b] - 1 - t if t < lengths[b] else t][b] for b in rows], 0)
        for t in range(len(steps))
    ]


def _check(value, name: str, kind: type, who: str, positive: bool = False) -> None:
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise TypeError(
            f"For '{who}', the type of '{name}' should be '{kind.__name__}', but got type '{type(value).__name__}'."
        )
    if positive and isinstance(value, int) and value <= 0:
        raise ValueError(f"For '{who}', the '{name}' must be a positive int, but got {value}.")


class _RNN(Cell):
    gates = 1
    is_lstm = False

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        has_bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        dtype=mstype.float32,
    ):
        super().__init__()
        who = type(self).__name__
        sizes = {"hidden_size": hidden_size, "input_size": input_size, "num_layers": num_layers}
        flags = {"has_bias": has_bias, "batch_first": batch_first, "bidirectional": bidirectional}
        for name, value in sizes.items():
            _check(value, name, int, who, positive=True)
        _check(dropout, "dropout", float, who)
        for name, value in flags.items():
            _check(value, name, bool, who)
        if not 0 <= dropout < 1:
            raise ValueError(
                f"For '{who}', the 'dropout' must be a number in range [0, 1), but got {dropout}."
            )
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.bidirectional = has_bias, batch_first, bidirectional
        self.dropout = dropout
        self.dropout_op = Dropout(p=float(dropout))
        self.num_directions = 2 if bidirectional else 1
        self._add_weights(input_size, mstype.to_dtype(dtype).np)

    def _add_weights(self, input_size: int, np_dtype) -> None:
        """MindSpore's weights in its order (kind by kind, then layer and direction), uniform in
        +-1/sqrt(hidden_size)."""
        rows, bound = self.gates * self.hidden_size, 1 / math.sqrt(self.hidden_size)
        kinds = ("weight_ih", "weight_hh", *(("bias_ih", "bias_hh") if self.has_bias else ()))
        for kind in kinds:
            for layer in range(self.num_layers):
                inputs = input_size if layer == 0 else self.hidden_size * self.num_directions
                shape = {"weight_ih": (rows, inputs), "weight_hh": (rows, self.hidden_size)}.get(
                    kind, (rows,)
                )
                for direction in range(self.num_directions):
                    name = f"{kind}_l{layer}{'_reverse' if direction else ''}"
                    initial = generator().uniform(-bound, bound, shape).astype(np.float32).astype(np_dtype)
                    setattr(self, name, Parameter(initial, name=name))

    def _weights(self, layer: int, direction: int, dtype) -> tuple:
        suffix = f"l{layer}{'_reverse' if direction else ''}"
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
        return tuple(
            getattr(self, f"{n}_{suffix}").astype(dtype) if self.has_bias or n.startswith("weight") else None
            for n in names
        )

    def _step(self, x, state, w_ih, w_hh, b_ih, b_hh):
        """One time step of the cell (the subclass's kind)."""
        return (_lstm_step if self.is_lstm else _gru_step)(x, state, w_ih, w_hh, b_ih, b_hh)

    def _run(self, xs: list, state, weights, backward: bool, lengths):
        """The cell over the time steps ``xs`` (backward: from the end), the outputs in time order and
        the last state. With ``lengths`` (one per batch row, MindSpore's ``seq_length``) a row's state
        stops changing and its outputs are zero past its length; backward runs over each row's own
        first ``length`` steps reversed (MindSpore's ReverseSequence)."""
        step = self._step
        if lengths is None:
            outputs = []
            for x in reversed(xs) if backward else xs:
                state = step(x, state, *weights)
                outputs.append(state[0] if self.is_lstm else state)
            return (outputs[::-1] if backward else outputs), state
        if backward:
            xs = _reversed_rows(xs, lengths)
        outputs = []
        for t, x in enumerate(xs):
            live = Tensor(np.broadcast_to((lengths > t)[:, None], (len(lengths), self.hidden_size)))
            new = step(x, state, *weights)
            if self.is_lstm:
                state = (ops.select(live, new[0], state[0]), ops.select(live, new[1], state[1]))
            else:
                state = ops.select(live, new, state)
            h = state[0] if self.is_lstm else state
            outputs.append(ops.select(live, h, ops.zeros_like(h)))
        return (_reversed_rows(outputs, lengths) if backward else outputs), state

    def construct(self, x, hx=None, seq_length=None):
        """The layers over the sequence: each direction of a layer runs its cell over the steps (the
        reverse one from the end), their outputs joined on the last axis feed the next layer."""
        who = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim != 3 or not x.dtype.is_float:
            raise TypeError(
                f"For '{who}', 'x' must be a float Tensor of rank 3, got {getattr(x, 'shape', type(x))}"
            )
        if self.batch_first:
            x = ops.transpose(x, (1, 0, 2))
        steps, batch = x.shape[0], x.shape[1]
        shape = (self.num_layers * self.num_directions, batch, self.hidden_size)
        hx = self._initial(hx, shape, x.dtype, who)
        lengths = self._lengths(seq_length, batch, who)
        layer_input = [x[t] for t in range(steps)]
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            per_direction = []
            for direction in range(self.num_directions):
                k = layer * self.num_directions + direction
                state = (hx[0][k], hx[1][k]) if self.is_lstm else hx[k]
                weights = self._weights(layer, direction, x.dtype)
                outputs, state = self._run(layer_input, state, weights, direction == 1, lengths)
                per_direction.append(outputs)
                h_n.append(state[0] if self.is_lstm else state)
                if self.is_lstm:
                    c_n.append(state[1])
            layer_input = [ops.concat([d[t] for d in per_direction], 1) for t in range(steps)]
            if self.dropout and layer < self.num_layers - 1:
                layer_input = self._dropped(layer_input)
        output = ops.stack(layer_input, 0)
        if self.batch_first:
            output = ops.transpose(output, (1, 0, 2))
        if self.is_lstm:
            return output, (ops.stack(h_n, 0), ops.stack(c_n, 0))
        return output, ops.stack(h_n, 0)

    def _dropped(self, steps: list) -> list:
        """Dropout between layers, one mask over the whole sequence (as MindSpore's on the stacked output)."""
        stacked = self.dropout_op(ops.stack(steps, 0))
        return [stacked[t] for t in range(len(steps))]

    @staticmethod
    def _lengths(seq_length, batch: int, who: str) -> np.ndarray | None:
        """``seq_length``'s values (data, read when the call is traced), checked as MindSpore does."""
        if seq_length is None:
            return None
        if not isinstance(seq_length, Tensor) or seq_length.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"For '{who}', 'seq_length' must be an int32 or int64 Tensor")
        if seq_length.shape != (batch,):
            raise ValueError(
                f"For '{who}' batch size of x and seq_length must be equal, but got {batch} of x and "
                f"{seq_length.shape} of seq_length."
            )
        return np.asarray(seq_length.asnumpy())

    def _initial(self, hx, shape, dtype, who: str):
        """The initial state(s): zeros, or ``hx`` checked (a tuple (h, c) for an LSTM)."""
        if hx is None:
            zeros = Tensor(np.zeros(shape, dtype.np))
            return (zeros, zeros) if self.is_lstm else zeros
        given = hx if self.is_lstm else (hx,)
        if self.is_lstm and (not isinstance(hx, tuple) or len(hx) != 2):
            raise TypeError(f"For '{who}', 'hx' must be a tuple (h, c) of 2 Tensors, got {type(hx).__name__}")
        for h in given:
            if not isinstance(h, Tensor) or h.dtype != dtype or dtype not in (mstype.float16, mstype.float32):
                raise TypeError(f"For '{who}', 'x' and 'hx' must be Tensors of one dtype, float16 or float32")
            if h.shape != shape:
                raise ValueError(f"For '{who}', 'hx' must have shape {shape}, got {h.shape}")
        return hx


class LSTM(_RNN):
    """Long short-term memory over (seq, batch, input) inputs ((batch, seq, input) with
    ``batch_first``): returns ``output, (h_n, c_n)``."""

    gates = 4
    is_lstm = True


class GRU(_RNN):
    """Gated recurrent unit over (seq, batch, input) inputs ((batch, seq, input) with
    ``batch_first``): returns ``output, h_n``."""

    gates = 3


class RNN(_RNN):
    """The Elman network over (seq, batch, input) inputs ((batch, seq, input) with
    ``batch_first``): h' = tanh (or relu) of x W_ih^T + b_ih + h W_hh^T + b_hh; returns
    ``output, h_n``. ``nonlinearity`` is keyword-only, as in MindSpore's ``nn.RNN``."""

    gates = 1

    def __init__(self, *args, nonlinearity: str = "tanh", **kwargs):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"For 'RNN', the 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}."
            )
        super().__init__(*args, **kwargs)
        self.nonlinearity = nonlinearity

    def _step(self, x, state, w_ih, w_hh, b_ih, b_hh):
        return _rnn_step(x, state, w_ih, w_hh, b_ih, b_hh, self.nonlinearity)


__all__ = ["GRU", "LSTM", "RNN"]
