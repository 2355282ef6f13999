"""Ops built from table ops: softmax, logsumexp, norm, prod, tile, clip, batched matmul, einsum, ...

Their derivatives come from the rows they are made of, so they need no rule of their own;
each is written the way MindSpore defines it where that decides a gradient (clip_by_value
is a minimum then a maximum, so a value on a bound gets half the gradient, as in MindSpore).
Ops with parameters that are table rows (leaky_relu, elu, gelu, select) get their MindSpore
signatures here.
"""

from __future__ import annotations

import string

import numpy as np

from symgrad.core.families import activations, linalg, structural, transcendental
from symgrad.errors import OpError
from symgrad.ops import functional as F
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor, merge_env

_exp, _log, _sqrt, _abs = F.GENERATED["exp"], F.GENERATED["log"], F.GENERATED["sqrt"], F.GENERATED["abs"]


# ----- rows with parameters -----
def leaky_relu(input, alpha: float = 0.2) -> Tensor:  # noqa: A002 - MindSpore's name
    """``x`` where x > 0, else ``alpha * x``."""
    return F.as_tensor(input, "LeakyReLU", "input")._op("leaky_relu", params=(float(alpha),))


def elu(input_x, alpha: float = 1.0) -> Tensor:
    """``x`` where x > 0, else ``alpha * (exp(x) - 1)``."""
    return F.as_tensor(input_x, "ELU", "input_x")._op("elu", params=(float(alpha),))


def gelu(input_x, approximate: str = "none") -> Tensor:
    """GeLU: ``x Φ(x)`` (the error function), or its tanh approximation (``approximate="tanh"``)."""
    x = F.as_tensor(input_x, "GeLU", "input_x")
    return Tensor._wrap(activations.gelu(x._node, approximate), x._env)


# ----- convolution -----
def _pair(value, name: str) -> tuple[int, int]:
    """An int, or a 2- or 4-tuple whose last two entries are (height, width), as MindSpore takes them."""
    values = (value, value) if isinstance(value, int) else tuple(value)
    if len(values) == 4:
        values = values[2:]
    if len(values) != 2 or not all(isinstance(v, int) and v >= 1 for v in values):
        raise ValueError(
            f"Conv2D: {name} must be a positive int or a tuple of 2 (or 4) of them, got {value!r}"
        )
    return values


def _padding(pad_mode: str, padding, size, kernel, stride, dilation) -> tuple[int, int, int, int]:
    """(top, bottom, left, right) zeros for MindSpore's pad modes: 'valid' none, 'same' enough for
    an output of ceil(size / stride) (the odd one at the bottom/right), 'pad' as given."""
    mode = pad_mode.lower()
    if mode == "valid":
        return (0, 0, 0, 0)
    if mode == "same":
        pads = []
        for n, k, s, d in zip(size, kernel, stride, dilation):
            total = max((-(-n // s) - 1) * s + (k - 1) * d + 1 - n, 0)
            pads += [total // 2, total - total // 2]
        return tuple(pads)
    if mode != "pad":
        raise ValueError(f"Conv2D: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    values = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
    if len(values) == 2:
        values = (values[0], values[0], values[1], values[1])
    if len(values) != 4 or not all(isinstance(v, int) and v >= 0 for v in values):
        raise ValueError(f"Conv2D: padding must be an int >= 0 or a tuple of 2 or 4 of them, got {padding!r}")
    return values


def conv2d(
    input, weight, bias=None, stride=1, pad_mode: str = "valid", padding=0, dilation=1, groups: int = 1
) -> Tensor:  # noqa: A002
    """2-D convolution (cross-correlation) of ``input`` (N, C, H, W) with ``weight`` (O, C / groups, kh, kw),
    as MindSpore's ``ops.conv2d``; its derivatives come from the matrix products it is made of."""
    x, w = F.as_tensor(input, "Conv2D", "input"), F.as_tensor(weight, "Conv2D", "weight")
    strides, dilations = _pair(stride, "stride"), _pair(dilation, "dilation")
    if x.ndim != 4 or w.ndim != 4:
        raise OpError(
            f"Conv2D: input and weight must have rank 4 (NCHW, OIHW), got shapes {x.shape} and {w.shape}"
        )
    pads = _padding(
        pad_mode, padding if pad_mode == "pad" else 0, x.shape[2:], w.shape[2:], strides, dilations
    )
    out = Tensor._wrap(linalg.conv2d(x._node, w._node, strides, pads, dilations, groups), merge_env(x, w))
    if bias is not None:
        out = out + F.as_tensor(bias, "Conv2D", "bias").reshape(1, -1, 1, 1)
    return out


def bias_add(input_x, bias) -> Tensor:
    """``input_x`` plus the 1-D ``bias`` along axis 1 (NCHW), as MindSpore's ``ops.bias_add``."""
    return add_channel_bias(input_x, bias, "NCHW")


def add_channel_bias(input_x, bias, data_format: str) -> Tensor:
    """``input_x`` plus the 1-D ``bias`` along the channel axis (1 for NCHW and NCDHW, the last for
    NHWC), as MindSpore's BiasAdd; the bias's gradient is the sum over the other axes."""
    x, b = F.as_tensor(input_x, "BiasAdd", "input_x"), F.as_tensor(bias, "BiasAdd", "bias")
    if data_format not in ("NCHW", "NHWC", "NCDHW"):
        raise ValueError(f"BiasAdd: data_format must be 'NCHW', 'NHWC' or 'NCDHW', got {data_format!r}")
    axis = x.ndim - 1 if data_format == "NHWC" else 1
    if x.ndim < 2 or b.ndim != 1 or b.shape[0] != x.shape[axis]:
        raise OpError(
            f"BiasAdd: input_x of shape {x.shape} ({data_format}) and bias of shape {b.shape}: need rank >= 2 "
            "and a 1-D bias as long as the channel axis"
        )
    return x + b.reshape(tuple(b.shape[0] if a == axis else 1 for a in range(x.ndim)))


def bessel_i0(x) -> Tensor:
    """The modified Bessel function of the first kind of order 0, I0(x)."""
    return F.as_tensor(x, "BesselI0", "x")._op("bessel_i", params=(0,))


def digamma(input) -> Tensor:  # noqa: A002 (MindSpore's name)
    """psi(x) = d/dx log Gamma(x) (``mindspore.ops.digamma``)."""
    return F.as_tensor(input, "Digamma", "input")._op("polygamma", params=(0,))


def polygamma(n, input) -> Tensor:  # noqa: A002 (MindSpore's name)
    """The order-``n`` derivative of digamma (``mindspore.ops.polygamma(n, input)``; n a whole
    number >= 0, a Python int or a one-element Tensor)."""
    order = n.asnumpy().item() if hasattr(n, "asnumpy") else n
    if isinstance(order, float) and order.is_integer():
        order = int(order)
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 0:
        raise TypeError(f"Polygamma: n must be a whole number >= 0, got {n!r}")
    return F.as_tensor(input, "Polygamma", "input")._op("polygamma", params=(int(order),))


def bessel_i1(x) -> Tensor:
    """The modified Bessel function of the first kind of order 1, I1(x)."""
    return F.as_tensor(x, "BesselI1", "x")._op("bessel_i", params=(1,))


def select(cond, x, y) -> Tensor:
    """``x`` where ``cond`` holds, else ``y`` (broadcast); the gradient goes to the chosen side."""
    return F.as_tensor(cond, "Select", "cond")._op("select", x, y)  # the record checks that cond is bool


where = select


# ----- reductions -----
def reduce_min(x, axis=(), keep_dims: bool = False) -> Tensor:
    """The minimum over ``axis`` (all axes when empty): -max(-x), so ties share the gradient."""
    return -F.reduce_max(-F.as_tensor(x, "ReduceMin", "x"), axis, keep_dims)


def prod(input, axis=(), keep_dims: bool = False) -> Tensor:  # noqa: A002 - MindSpore's name
    """The product over ``axis``, as a chain of multiplications (exact gradients where an entry is 0)."""
    return F.fold_axes(F.as_tensor(input, "ReduceProd", "input"), axis, "mul", keep_dims, "ReduceProd")


def logsumexp(input, axis, keep_dims: bool = False) -> Tensor:  # noqa: A002 - MindSpore's name
    """``log(sum(exp(x)))`` over ``axis``, shifted by the (constant) maximum so it cannot overflow."""
    t = F.as_tensor(input, "LogSumExp", "input")
    axes = tuple(F.reduction_axes(t, axis, "LogSumExp"))
    shift = F.stop_gradient(F.reduce_max(t, axes, keep_dims=True))
    total = _log(F.reduce_sum(_exp(t - shift), axes, keep_dims=True)) + shift
    return total if keep_dims else total.squeeze(axes)


def softmax(x, axis: int = -1) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``axis`` (shifted by the maximum)."""
    t = F.as_tensor(x, "Softmax", "x")
    e = _exp(t - F.stop_gradient(F.reduce_max(t, axis, keep_dims=True)))
    return e / F.reduce_sum(e, axis, keep_dims=True)


def log_softmax(logits, axis: int = -1) -> Tensor:
    """``x - logsumexp(x)`` along ``axis``."""
    t = F.as_tensor(logits, "LogSoftmax", "logits")
    return t - logsumexp(t, axis, keep_dims=True)


def norm(A, ord=None, dim=None, keepdim: bool = False) -> Tensor:  # noqa: A002, N803 - MindSpore's names
    """The 2-norm (``ord`` None or 2) or the p-norm for a number ``ord`` >= 1 over ``dim`` (all axes when None).

    Computed as ``m * norm(A / m)`` with ``m`` a power of two near the mean of |A| (``pow2_scale``,
    meaning 1 in closed forms), so neither the norm nor its derivatives overflow or underflow
    where the true values are finite (A = [1e200, 1e200] or [1e-200, 1e-200]). The 2-norm's
    gradient at 0 is NaN (0/0), where MindSpore returns 0: a documented difference.
    """
    t = F.as_tensor(A, "Norm", "A")
    axes = tuple(F.reduction_axes(t, dim, "Norm"))
    return Tensor._wrap(transcendental.vector_norm(t._node, 2 if ord is None else ord, axes, keepdim), t._env)


def clip_by_value(x, clip_value_min=None, clip_value_max=None) -> Tensor:
    """``x`` limited to [min, max]: ``maximum(minimum(x, max), min)``, as MindSpore computes it."""
    t = F.as_tensor(x, "clip_by_value", "x")
    if clip_value_max is not None:
        t = F.GENERATED["minimum"](t, clip_value_max)
    if clip_value_min is not None:
        t = F.GENERATED["maximum"](t, clip_value_min)
    return t


def clamp(input, min=None, max=None) -> Tensor:  # noqa: A002 - MindSpore's names
    """``input`` limited to [min, max] as MindSpore's ``ops.clamp``/``ops.clip``: the gradient is 1 on the
    closed interval (a value on a bound keeps all of it, unlike ``clip_by_value``), 0 outside, where a
    Tensor bound gets it."""
    t = F.as_tensor(input, "clamp", "input")
    inside = None
    for bound, compare in ((min, F.GENERATED["greater_equal"]), (max, F.GENERATED["less_equal"])):
        if bound is not None:
            ok = compare(t, bound)
            inside = ok if inside is None else select(inside, ok, False)
    return t if inside is None else select(inside, t, clip_by_value(t, min, max))


# ----- structural -----
def tile(input, dims) -> Tensor:  # noqa: A002 - MindSpore's name
    """``input`` repeated ``dims[i]`` times along axis i: a broadcast and a reshape."""
    t = F.as_tensor(input, "Tile", "input")
    reps = tuple(int(r) for r in dims)
    if any(r < 1 for r in reps):
        raise OpError(f"Tile: every multiple must be >= 1, got {reps}")
    shape = (1,) * (len(reps) - t.ndim) + t.shape
    reps = (1,) * (len(shape) - len(reps)) + reps
    interleaved = tuple(v for r, s in zip(reps, shape) for v in (1, s))
    spread = F.broadcast_to(t.reshape(interleaved), tuple(v for r, s in zip(reps, shape) for v in (r, s)))
    return spread.reshape(tuple(r * s for r, s in zip(reps, shape)))


def _diagonal(t: Tensor, term: str) -> tuple[Tensor, str]:
    """A letter repeated in one term (``"ii"``) takes the diagonal: times the identity, summed over the repeat."""
    for q in range(len(term) - 1, 0, -1):
        p = term.find(term[q])
        if p < q:
            n = t.shape[q]
            eye = np.eye(n).reshape(tuple(n if i in (p, q) else 1 for i in range(t.ndim)))
            t = F.reduce_sum(t * Tensor(eye.astype(t.dtype.np)), q)
            term = term[:q] + term[q + 1 :]
    return t, term


def einsum(equation: str, *operands) -> Tensor:
    """Einstein summation (``"ij,jk->ik"``; no ellipsis): operands aligned on one axis per letter, multiplied, summed."""
    ts = [F.as_tensor(t, "Einsum", f"operands[{i}]") for i, t in enumerate(operands)]
    text = equation.replace(" ", "")
    inputs, _, output = text.partition("->")
    terms = inputs.split(",")
    if "." in text or len(terms) != len(ts) or not set(text) <= set(string.ascii_letters + ",->"):
        raise OpError(
            f"Einsum: equation {equation!r} does not fit {len(ts)} operand(s); "
            "supported: letters per operand, optional '->output', no ellipsis"
        )
    if not _:
        output = "".join(sorted(c for c in set(inputs) - {","} if inputs.count(c) == 1))
    if not set(output) <= set(inputs) or len(set(output)) != len(output):
        raise OpError(f"Einsum: output {output!r} must name distinct letters of the inputs {inputs!r}")
    letters = list(dict.fromkeys(output + inputs.replace(",", "")))
    sizes: dict[str, int] = {}
    product = None
    for term, t in zip(terms, ts):
        if len(term) != t.ndim:
            raise OpError(f"Einsum: term {term!r} does not name each axis of shape {t.shape}")
        for c, n in zip(term, t.shape):
            if sizes.setdefault(c, n) != n:
                raise OpError(f"Einsum: letter {c!r} has sizes {sizes[c]} and {n}")
        t, term = _diagonal(t, term)
        order = sorted(range(len(term)), key=lambda i: letters.index(term[i]))
        aligned = t.transpose(tuple(order)) if order != sorted(order) else t
        placed = tuple(sizes[c] if c in term else 1 for c in letters)
        aligned = aligned.reshape(placed)
        product = aligned if product is None else product * aligned
    assert product is not None
    summed = tuple(range(len(output), len(letters)))
    return F.reduce_sum(product, summed) if summed else product


def _index_values(indices, size: int, who: str, arg: str) -> np.ndarray:
    """Integer ``indices`` (a Tensor, an array, a list or an int) as an array, each in [0, size)."""
    value = indices.asnumpy() if isinstance(indices, Tensor) else np.asarray(indices)
    if value.dtype.kind not in "iu":
        raise TypeError(f"{who}: {arg} must hold integers, got dtype {value.dtype}")
    if value.size and (value.min() < 0 or value.max() >= size):
        raise OpError(
            f"{who}: {arg} must lie in [0, {size}) for an axis of size {size}, "
            f"got values from {value.min()} to {value.max()}"
        )
    return value


def gather(input_params, input_indices, axis: int, batch_dims: int = 0) -> Tensor:
    """Slices of ``input_params`` along ``axis`` picked by integer ``input_indices``: the result has
    shape ``params.shape[:axis] + indices.shape + params.shape[axis + 1:]``, as MindSpore's.

    The indices are data (integers carry no gradient): their values are read when the call is
    traced. The gradient adds each output slice back where it was taken from (repeats add up).
    """
    t = F.as_tensor(input_params, "Gather", "input_params")
    if batch_dims != 0:
        raise OpError(f"Gather: batch_dims={batch_dims} is not supported (symgrad gathers with batch_dims=0)")
    if not -t.ndim <= axis < t.ndim:
        raise OpError(f"Gather: axis {axis} is out of range for input_params of shape {t.shape}")
    axis %= t.ndim
    index = _index_values(input_indices, t.shape[axis], "Gather", "input_indices")
    lead = (slice(None),) * axis
    picked = [t[lead + (int(i),)] for i in index.ravel()]
    shape = t.shape[:axis] + index.shape + t.shape[axis + 1 :]
    if not picked:
        return Tensor(np.zeros(shape, t.dtype.np))
    return F.stack(picked, axis).reshape(shape)


def cumsum(x, axis: int, dtype=None) -> Tensor:
    """Running sums along ``axis`` (in ``dtype`` when given), as MindSpore's ``ops.cumsum``."""
    t = F.as_tensor(x, "cumsum", "x")
    return running_sum(t if dtype is None else t.astype(dtype), axis)


def running_sum(x, axis: int, exclusive: bool = False, reverse: bool = False) -> Tensor:
    """Running sums along ``axis`` (``exclusive``: each leaves out its own entry; ``reverse``: from
    the end), as MindSpore's ``CumSum``: one addition per entry, so the gradient is the running sum
    of the cotangent the other way."""
    t = F.as_tensor(x, "CumSum", "x")
    if t.ndim == 0 or not -t.ndim <= axis < t.ndim:
        raise OpError(f"CumSum: axis {axis} is out of range for x of shape {t.shape}")
    return Tensor._wrap(structural.running_sum(t._node, axis, exclusive, reverse), t._env)


# ----- normalisation -----
def batch_norm(
    input_x,
    running_mean,
    running_var,
    weight,
    bias,
    training=False,
    momentum=0.1,
    eps=1e-5,
    data_format="NCHW",
):
    """``weight * (x - mean) / sqrt(var + eps) + bias`` per channel (axis 1, or the last for
    "NHWC"). In training the batch's mean and biased variance are used (the gradient flows
    through them), and Parameter running statistics become ``(1 - momentum) * old + momentum *
    batch`` (the unbiased variance), as MindSpore updates them."""
    return _batch_norm(
        input_x, weight, bias, running_mean, running_var, training, eps, momentum, data_format, "batch_norm"
    )[0]


def _batch_norm(x, scale, bias, mean, variance, training, eps, momentum, data_format, who) -> tuple:
    """MindSpore's BatchNorm outputs: y, then zeros, zeros, and the batch mean and biased
    variance in training (zeros in inference), as MindSpore 2.10 returns them."""
    x = F.as_tensor(x, who, "input_x")
    if data_format not in ("NCHW", "NHWC") or x.ndim < 2:
        raise OpError(
            f"{who}: input_x of shape {x.shape} with data_format {data_format!r}: need rank >= 2, NCHW or NHWC"
        )
    axis = 1 if data_format == "NCHW" else x.ndim - 1
    channels = x.shape[axis]
    per_channel = tuple(channels if a == axis else 1 for a in range(x.ndim))
    stats = {
        n: F.as_tensor(v, who, n)
        for n, v in (("scale", scale), ("bias", bias), ("mean", mean), ("variance", variance))
    }
    for name, value in stats.items():
        if value.shape != (channels,):
            raise OpError(
                f"{who}: {name} must have shape ({channels},) for input_x of shape {x.shape}, got {value.shape}"
            )
    scale_c, bias_c, mean_c, var_c = (v.reshape(per_channel) for v in stats.values())
    zeros = F.zeros_like(stats["mean"].astype(x.dtype))
    if not training:
        y = (x - mean_c) / _sqrt(var_c + eps) * scale_c + bias_c
        return y, zeros, zeros, zeros, zeros
    axes = tuple(a for a in range(x.ndim) if a != axis)
    batch_mean = F.mean(x, axes, True)
    batch_var = F.mean(F.square(x - batch_mean), axes, True)
    y = (x - batch_mean) / _sqrt(batch_var + eps) * scale_c + bias_c
    batch_mean, batch_var = batch_mean.reshape((channels,)), batch_var.reshape((channels,))
    count = x.size // channels
    unbiased = batch_var.asnumpy() * (count / max(count - 1, 1))
    for running, batch in ((mean, batch_mean.asnumpy()), (variance, unbiased)):
        if isinstance(running, Parameter):
            running.set_data((1 - momentum) * running.asnumpy() + momentum * batch)
    return y, zeros, zeros, batch_mean, batch_var


__all__ = sorted(
    [
        "bessel_i0",
        "bessel_i1",
        "bias_add",
        "digamma",
        "polygamma",
        "conv2d",
        "cumsum",
        "gather",
        "batch_norm",
        "clamp",
        "clip_by_value",
        "einsum",
        "elu",
        "gelu",
        "leaky_relu",
        "log_softmax",
        "logsumexp",
        "norm",
        "prod",
        "reduce_min",
        "select",
        "softmax",
        "tile",
        "where",
    ]
)
