"""MindSpore's op classes: ``ops.MatMul()(x, y)``, ``ops.Sin()(x)``, ...

Classes of ops called on tensors alone are generated from the op table
(``Api.classes`` of each record); the others are written below by hand.
"""

from __future__ import annotations

from symgrad.core.registry import OPS
from symgrad.errors import OpError
from symgrad.ops import built_from_rows as C
from symgrad.ops import functional as F


class Primitive:
    """An op object: configure in ``__init__``, call on tensors."""

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


def generated_class(class_name: str, fn) -> type:
    """An op class whose call is ``fn`` (so its arguments keep their names, x and y)."""
    call = staticmethod(fn)
    return type(class_name, (Primitive,), {"__call__": call, "construct": call, "__doc__": fn.__doc__})


GENERATED = {
    name: generated_class(
        name, F.generated_function(op, op.api.functions[0] if op.api.functions else op.name)
    )
    for op in OPS.values()
    if op.api.generated
    for name in op.api.classes
}
globals().update(GENERATED)


class AddN(Primitive):
    """``AddN()(x)``: the sum of a tuple of tensors."""

    def __call__(self, x):
        return F.addn(x)


class Shape(Primitive):
    """``Shape()(x)``: the shape as a tuple of ints."""

    def __call__(self, input_x):
        return F.as_tensor(input_x, "Shape", "input_x").shape


class Split(Primitive):
    """``Split(axis=0, output_num=1)(x)``: ``output_num`` equal pieces along ``axis``."""

    def __init__(self, axis: int = 0, output_num: int = 1):
        self.axis, self.output_num = axis, output_num

    def __call__(self, x):
        t = F.as_tensor(x, "Split", "x")
        if t.shape[self.axis] % self.output_num:
            raise ValueError(
                f"Split: axis {self.axis} of shape {t.shape} does not split into {self.output_num}"
            )
        return F.split(t, t.shape[self.axis] // self.output_num, self.axis)


class Concat(Primitive):
    """``Concat(axis=0)(tensors)``."""

    def __init__(self, axis: int = 0):
        self.axis = axis

    def __call__(self, tensors):
        return F.concat(tensors, self.axis)


class OnesLike(Primitive):
    """``OnesLike()(x)``."""

    def __call__(self, x):
        return F.ones_like(x)


class ZerosLike(Primitive):
    """``ZerosLike()(x)``."""

    def __call__(self, x):
        return F.zeros_like(x)


class _Reduction(Primitive):
    """A reduction op: ``Op(keep_dims=False)(x, axis=())``, all axes when ``axis`` is empty."""

    def __init__(self, keep_dims: bool = False):
        self.keep_dims = keep_dims


class ReduceMax(_Reduction):
    """``ReduceMax(keep_dims=False)(x, axis=())``."""

    def __call__(self, x, axis=()):
        return F.reduce_max(x, axis, self.keep_dims)


class GeLU(Primitive):
    """``GeLU()(x)``: the exact (error-function) GeLU."""

    def __call__(self, x):
        return C.gelu(x)


class Elu(Primitive):
    """``Elu(alpha=1.0)(x)``."""

    def __init__(self, alpha: float = 1.0):
        self.alpha = alpha

    def __call__(self, input_x):
        return C.elu(input_x, self.alpha)


class Conv2D(Primitive):
    """``Conv2D(out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1, dilation=1,
    group=1)(x, weight)``, as MindSpore's (NCHW)."""

    def __init__(self, out_channel: int, kernel_size, mode: int = 1, pad_mode: str = "valid", pad=0,
                 stride=1, dilation=1, group: int = 1, data_format: str = "NCHW"):  # fmt: skip
        if data_format != "NCHW":
            raise ValueError(f"Conv2D: data_format {data_format!r} is not supported; symgrad takes NCHW")
        self.out_channel, self.kernel_size = out_channel, kernel_size
        self.pad_mode, self.pad, self.stride, self.dilation, self.group = (
            pad_mode,
            pad,
            stride,
            dilation,
            group,
        )

    def __call__(self, x, weight):
        w = F.as_tensor(weight, "Conv2D", "weight")
        if w.ndim == 4 and w.shape[0] != self.out_channel:
            raise ValueError(
                f"Conv2D: weight has {w.shape[0]} output channels, out_channel is {self.out_channel}"
            )
        return C.conv2d(x, w, None, self.stride, self.pad_mode, self.pad, self.dilation, self.group)


class Gather(Primitive):
    """``Gather(batch_dims=0)(input_params, input_indices, axis)``: see ``built_from_rows.gather``."""

    def __init__(self, batch_dims: int = 0):
        self.batch_dims = batch_dims

    def __call__(self, input_params, input_indices, axis):
        return C.gather(input_params, input_indices, axis, self.batch_dims)


class CumSum(Primitive):
    """``CumSum(exclusive=False, reverse=False)(input, axis)``: running sums along ``axis``."""

    def __init__(self, exclusive: bool = False, reverse: bool = False):
        self.exclusive, self.reverse = bool(exclusive), bool(reverse)

    def __call__(self, input, axis):  # noqa: A002 - MindSpore's name
        return C.running_sum(input, axis, self.exclusive, self.reverse)


class BiasAdd(Primitive):
    """``BiasAdd(data_format="NCHW")(input_x, bias)``: see ``built_from_rows.add_channel_bias``."""

    def __init__(self, data_format: str = "NCHW"):
        self.data_format = data_format

    def __call__(self, input_x, bias):
        return C.add_channel_bias(input_x, bias, self.data_format)


class BesselI0(Primitive):
    """``BesselI0()(x)``: I0(x)."""

    def __call__(self, x):
        return C.bessel_i0(x)


class Digamma(Primitive):
    """``Digamma()(x)``: psi(x)."""

    def __call__(self, x):
        return C.digamma(x)


class Polygamma(Primitive):
    """``Polygamma()(n, x)``: the order-``n`` derivative of digamma."""

    def __call__(self, n, x):
        return C.polygamma(n, x)


class BesselI1(Primitive):
    """``BesselI1()(x)``: I1(x)."""

    def __call__(self, x):
        return C.bessel_i1(x)


class Select(Primitive):
    """``Select()(cond, x, y)``: ``x`` where ``cond`` holds, else ``y``."""

    def __call__(self, cond, x, y):
        return C.select(cond, x, y)


class Softmax(Primitive):
    """``Softmax(axis=-1)(x)``."""

    def __init__(self, axis: int = -1):
        self.axis = axis

    def __call__(self, x):
        return C.softmax(x, self.axis)


class LogSoftmax(Softmax):
    """``LogSoftmax(axis=-1)(logits)``."""

    def __call__(self, logits):
        return C.log_softmax(logits, self.axis)


class ReduceProd(_Reduction):
    """``ReduceProd(keep_dims=False)(x, axis=())``."""

    def __call__(self, x, axis=()):
        return C.prod(x, axis, self.keep_dims)


class ReduceMin(_Reduction):
    """``ReduceMin(keep_dims=False)(x, axis=())``."""

    def __call__(self, x, axis=()):
        return C.reduce_min(x, axis, self.keep_dims)


class Tile(Primitive):
    """``Tile()(x, multiples)``."""

    def __call__(self, input_x, multiples):
        return C.tile(input_x, multiples)


class Einsum(Primitive):
    """``Einsum(equation)(operands)``: einsum over a tuple of tensors."""

    def __init__(self, equation: str):
        self.equation = equation

    def __call__(self, operands):
        return C.einsum(self.equation, *operands)


class Squeeze(Primitive):
    """``Squeeze(axis=())(x)``: without the size-1 axes in ``axis`` (all when empty)."""

    def __init__(self, axis=()):
        self.axis = axis

    def __call__(self, x):
        return F.squeeze(x, self.axis if self.axis != () else None)


class ExpandDims(Primitive):
    """``ExpandDims()(x, axis)``."""

    def __call__(self, input_x, axis):
        return F.expand_dims(input_x, axis)


class Cast(Primitive):
    """``Cast()(x, dtype)``."""

    def __call__(self, input_x, dtype):
        return F.cast(input_x, dtype)


class MatMul(Primitive):
    """``MatMul(transpose_a=False, transpose_b=False)(x, y)``."""

    def __init__(self, transpose_a: bool = False, transpose_b: bool = False):
        self.transpose_a, self.transpose_b = transpose_a, transpose_b

    def __call__(self, x, y):
        for name, value in (("x", x), ("y", y)):
            shape = tuple(getattr(value, "shape", ()))
            if len(shape) > 2:  # MindSpore's MatMul primitive takes matrices; ops.matmul takes batches
                raise OpError(
                    f"MatMul: {name} must have rank 1 or 2, got shape {shape} (ops.matmul and "
                    "ops.BatchMatMul take batch axes)"
                )
        return F.matmul(x, y, self.transpose_a, self.transpose_b)


class BatchMatMul(MatMul):
    """``BatchMatMul(transpose_a=False, transpose_b=False)(x, y)``: matrix products over the leading axes."""

    def __call__(self, x, y):
        return F.batch_matmul(x, y, self.transpose_a, self.transpose_b)


class ReduceSum(_Reduction):
    """``ReduceSum(keep_dims=False)(x, axis=())``: all axes when ``axis`` is empty."""

    def __call__(self, x, axis=()):
        return F.reduce_sum(x, axis, self.keep_dims)


class BatchNorm(Primitive):
    """``BatchNorm(is_training=False, epsilon=1e-5, momentum=0.1, data_format="NCHW")(x, scale,
    bias, mean, variance)``: five outputs as MindSpore's (see ``built_from_rows.batch_norm``)."""

    def __init__(
        self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1, data_format="NCHW"
    ):
        self.is_training, self.epsilon, self.momentum, self.data_format = (
            is_training,
            epsilon,
            momentum,
            data_format,
        )

    def __call__(self, input_x, scale, bias, mean, variance):
        return C._batch_norm(
            input_x, scale, bias, mean, variance, self.is_training, self.epsilon, self.momentum,
            self.data_format, "BatchNorm",
        )  # fmt: skip


class ReduceMean(_Reduction):
    """``ReduceMean(keep_dims=False)(x, axis=())``."""

    def __call__(self, x, axis=()):
        return F.mean(x, axis, self.keep_dims)


class Transpose(Primitive):
    """``Transpose()(x, perm)``."""

    def __call__(self, x, perm):
        return F.transpose(x, perm)


class Reshape(Primitive):
    """``Reshape()(x, shape)``."""

    def __call__(self, x, shape):
        return F.reshape(x, shape)


class BroadcastTo(Primitive):
    """``BroadcastTo(shape)(x)``."""

    def __init__(self, shape):
        self.shape = tuple(shape)

    def __call__(self, x):
        return F.broadcast_to(x, self.shape)


class Stack(Primitive):
    """``Stack(axis=0)(tensors)``."""

    def __init__(self, axis: int = 0):
        self.axis = axis

    def __call__(self, tensors):
        return F.stack(tensors, self.axis)


class StopGradient(Primitive):
    """``StopGradient()(x)``: ``x``, with no derivative flowing through it."""

    def __call__(self, x):
        return F.stop_gradient(x)


__all__ = sorted(
    [
        *GENERATED,
        "AddN",
        "BatchNorm",
        "BatchMatMul",
        "BiasAdd",
        "Einsum",
        "BesselI0",
        "BesselI1",
        "Conv2D",
        "Digamma",
        "Polygamma",
        "CumSum",
        "Gather",
        "Elu",
        "ExpandDims",
        "GeLU",
        "LogSoftmax",
        "ReduceMin",
        "ReduceProd",
        "Select",
        "Softmax",
        "Squeeze",
        "Tile",
        "ReduceMax",
        "BroadcastTo",
        "Cast",
        "Concat",
        "MatMul",
        "OnesLike",
        "Shape",
        "Split",
        "ZerosLike",
        "Primitive",
        "ReduceMean",
        "ReduceSum",
        "Reshape",
        "Stack",
    ]
    + ["StopGradient", "Transpose"]
)
