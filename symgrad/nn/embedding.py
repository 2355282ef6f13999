"""``Embedding``: a lookup table, as MindSpore 2.10's ``nn.Embedding``."""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.errors import OpError
from symgrad.nn.cell import Cell
from symgrad.nn.layers import initial_value
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor


class IndexRangeError(OpError, RuntimeError):
    """An id outside the table (MindSpore's Gather raises RuntimeError on the CPU)."""


class Embedding(Cell):
    """Rows of ``embedding_table`` (vocab_size, embedding_size) picked by integer ids: the output has
    shape ``ids.shape + (embedding_size,)`` and the table's gradient adds up the rows' cotangents
    (repeated ids add). The ``padding_idx`` row starts at zero and is trained like the others, as in
    MindSpore. The table's default initializer is 'normal' (N(0, 0.01)); ``use_one_hot`` gives the
    same values and gradients (MindSpore multiplies by a one-hot matrix)."""

    def __init__(
        self,
        vocab_size: int,
        embedding_size: int,
        use_one_hot: bool = False,
        embedding_table="normal",
        dtype=mstype.float32,
        padding_idx: int | None = None,
    ):
        super().__init__()
        for name, value, kind in (
            ("vocab_size", vocab_size, int),
            ("embedding_size", embedding_size, int),
            ("use_one_hot", use_one_hot, bool),
        ):
            if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
                raise TypeError(
                    f"For 'Embedding', the type of '{name}' should be '{kind.__name__}', but got type '{type(value).__name__}'."
                )
        table = initial_value(embedding_table, (vocab_size, embedding_size), embedding_size, "Embedding")
        if padding_idx is not None:
            if (
                isinstance(padding_idx, bool)
                or not isinstance(padding_idx, int)
                or not 0 <= padding_idx < vocab_size
            ):
                raise ValueError(
                    f"For 'Embedding', the 'padding_idx' must be in range of [0, {vocab_size}), but got {padding_idx}."
                )
            table = table.copy()
            table[padding_idx] = 0
        self.vocab_size, self.embedding_size = vocab_size, embedding_size
        self.use_one_hot, self.dtype, self.padding_idx = use_one_hot, mstype.to_dtype(dtype), padding_idx
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if not isinstance(ids, Tensor) or ids.dtype.np.kind not in "iu":
            got = f"Tensor[{ids.dtype}]" if isinstance(ids, Tensor) else type(ids).__name__
            raise TypeError(f"For 'Embedding', the ids must be an int32 or int64 Tensor, but got {got}.")
        values = np.asarray(ids.asnumpy())  # data, as in ops.gather: read when the call is traced
        if values.size and (values.min() < 0 or values.max() >= self.vocab_size):
            bad = values[(values < 0) | (values >= self.vocab_size)].ravel()[0]
            raise IndexRangeError(
                f"For 'Embedding', the ids should be in the range [0, {self.vocab_size}), but got {bad}"
            )
        return ops.gather(self.embedding_table, values.reshape(-1), 0).reshape(
            (*values.shape, self.embedding_size)
        )


__all__ = ["Embedding"]
