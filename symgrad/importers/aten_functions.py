"""PyTorch's spellings with a ``build`` of the function rows (transcendental, special, activations,
rounding, cast): ``rsqrt``, ``log2``, PyTorch's norms (``linalg_vector_norm`` with any ``ord``,
batch norm in eval mode, group norm) on the sqrt row, the Bessel, gamma and erfinv families'
other names, ``gelu``/``leaky_relu``/``elu`` with PyTorch's arguments, rounding that passes
integers unchanged, ``_to_copy``. ``ATEN`` maps each row to them; ``importers.common`` puts them
on the rows (``OpDef.imports``) after the rows' own plain ones (``aten("sin")``)."""

from __future__ import annotations

import math

import numpy as np

from symgrad.core.families.activations import gelu
from symgrad.core.families.conversion import cast
from symgrad.core.families.structural import aten_dims, fold, full, reduce_sum, reshape
from symgrad.core.families.transcendental import vector_norm
from symgrad.core.graph import Node
from symgrad.core.registry import Imported, apply, aten

ATEN: dict[str, tuple[Imported, ...]] = {}  # each function row's ATen spellings with a build

# ----- sqrt: rsqrt, and PyTorch's norms -----


def _aten_vector_norm(x: Node, ord=2, dim=None, keepdim: bool = False, dtype=None) -> Node:  # noqa: A002
    """aten.linalg_vector_norm: any ``ord`` (inf: the largest |x|, -inf: the smallest, 0: the count of
    nonzeros); where every element is 0 the derivative is 0, PyTorch's subgradient."""
    x = x if dtype is None else cast(x, dtype)
    axes = aten_dims(x, dim)
    if ord in (math.inf, -math.inf):
        return fold(apply("abs", x), axes, keepdim, "maximum" if ord > 0 else "minimum")
    if ord == 0:
        return reduce_sum(cast(apply("not_equal", x, 0), x.dtype or np.float64), axes, keepdim)
    zero = apply("equal", reduce_sum(apply("abs", x), axes, True), 0)
    safe = apply("select", zero, 1, x)  # no 0/0 in the derivative where the norm is 0
    if ord >= 1:
        norm = vector_norm(safe, ord, axes, keepdim)
    else:
        norm = apply("pow", reduce_sum(apply("pow", apply("abs", safe), ord), axes, keepdim), 1 / ord)
    return apply("select", reshape(zero, norm.shape), 0, norm)


def _per_channel(x: Node, values: Node | None, combine: str) -> Node:
    """``x`` combined (``"sub"``, ``"mul"``, ``"add"``) with one value per channel (axis 1); None leaves it."""
    return x if values is None else apply(combine, x, reshape(values, (1, -1) + (1,) * (x.ndim - 2)))


def _aten_batch_norm_eval(x: Node, weight, bias, running_mean: Node, running_var: Node, momentum, eps: float):
    """aten._native_batch_norm_legit_no_training (BatchNorm in eval mode): the running statistics
    are constants, (x - mean) / sqrt(var + eps) * weight + bias; no batch statistics are saved."""
    centred = _per_channel(x, running_mean, "sub")
    y = _per_channel(centred, apply("div", 1, apply("sqrt", apply("add", running_var, eps))), "mul")
    empty = full((0,), 0, x.dtype or np.float32)
    return _per_channel(_per_channel(y, weight, "mul"), bias, "add"), empty, empty


def _aten_native_group_norm(x: Node, weight, bias, n: int, c: int, hw: int, group: int, eps: float):
    """aten.native_group_norm: each group of channels normalized by its own mean and (biased)
    variance, then scaled and shifted per channel; also the means and 1 / sqrt(var + eps)."""
    grouped = reshape(x, (n, group, -1))
    count = grouped.shape[2]
    mean = apply("div", reduce_sum(grouped, (2,), True), count)
    centred = apply("sub", grouped, mean)
    variance = apply("div", reduce_sum(apply("square", centred), (2,), True), count)
    rstd = apply("div", 1, apply("sqrt", apply("add", variance, eps)))
    y = reshape(apply("mul", centred, rstd), x.shape)
    out = _per_channel(_per_channel(y, weight, "mul"), bias, "add")
    return out, reshape(mean, (n, group)), reshape(rstd, (n, group))


def _aten_group_norm(x: Node, num_groups: int, weight=None, bias=None, eps: float = 1e-5, cudnn_enabled=True):
    n, c = x.shape[:2]
    return _aten_native_group_norm(x, weight, bias, n, c, math.prod(x.shape[2:]), num_groups, eps)[0]


ATEN["sqrt"] = (
    aten("rsqrt", lambda x: apply("div", 1, apply("sqrt", x))),
    aten("linalg_vector_norm", _aten_vector_norm),
    aten("_native_batch_norm_legit_no_training", _aten_batch_norm_eval),
    aten("native_group_norm", _aten_native_group_norm),
    aten("group_norm", _aten_group_norm),
)
ATEN["log"] = (
    aten("log2", lambda x: apply("div", apply("log", x), math.log(2))),
    aten("log10", lambda x: apply("div", apply("log", x), math.log(10))),
)
ATEN["bessel_i"] = (
    *(aten(name, lambda x: apply("bessel_i", x, params=(0,))) for name in ("i0", "special_modified_bessel_i0")),
    *(aten(name, lambda x: apply("bessel_i", x, params=(1,))) for name in ("special_i1", "special_modified_bessel_i1")),
)  # fmt: skip

# ----- the gamma family and erfinv -----


def _mvlgamma(x: Node, p: int) -> Node:
    """The multivariate log-gamma: p(p-1)/4 log(pi) + sum_j lgamma(x - j/2), j = 0..p-1."""
    total: Node | float = p * (p - 1) / 4 * math.log(math.pi)
    for j in range(p):
        total = apply("add", total, apply("lgamma", apply("sub", x, j / 2)))
    return total  # type: ignore[return-value]


def _ndtri(p: Node) -> Node:
    """The standard normal quantile: sqrt(2) erfinv(2p - 1)."""
    return apply("mul", math.sqrt(2), apply("erfinv", apply("sub", apply("mul", 2, p), 1)))


ATEN["polygamma"] = (
    aten("digamma", lambda x: apply("polygamma", x, params=(0,))),
    aten("special_digamma", lambda x: apply("polygamma", x, params=(0,))),
    aten("special_psi", lambda x: apply("polygamma", x, params=(0,))),
    aten("polygamma", lambda n, x: apply("polygamma", x, params=(int(n),))),
    aten("special_polygamma", lambda n, x: apply("polygamma", x, params=(int(n),))),
)
ATEN["lgamma"] = (
    aten("mvlgamma", _mvlgamma),
    aten("special_multigammaln", _mvlgamma),
    aten("special_gammaln", lambda x: apply("lgamma", x)),
)
ATEN["erfinv"] = (aten("special_erfinv", lambda x: apply("erfinv", x)), aten("special_ndtri", _ndtri))

# ----- activations with PyTorch's arguments -----


def _aten_elu(x, alpha=1.0, scale=1.0, input_scale=1.0):
    """ATen's elu: scale * elu(input_scale * x) with ELU's alpha."""
    inner = x if input_scale == 1 else apply("mul", input_scale, x)
    out = apply("elu", inner, params=(float(alpha),))
    return out if scale == 1 else apply("mul", scale, out)


ATEN["gelu"] = (aten("gelu", gelu),)  # approximate="none" or "tanh", as ops.gelu
ATEN["leaky_relu"] = (
    aten(
        "leaky_relu", lambda x, negative_slope=0.01: apply("leaky_relu", x, params=(float(negative_slope),))
    ),
)
ATEN["elu"] = (aten("elu", _aten_elu),)

# ----- cast, and rounding -----

# ATen's copy to another dtype (device, layout and memory format do not change values)
ATEN["cast"] = (aten("_to_copy", lambda x, dtype=None, **_placement: x if dtype is None else cast(x, dtype)),)


def _rounded(name: str):
    """ATen's and JAX's rounding ops: the row ``name``; integers are already whole (PyTorch returns them)."""
    return lambda x: x if x.dtype is not None and x.dtype.kind in "biu" else apply(name, x)


def _trunc(x: Node) -> Node:
    """Rounding toward zero: sign(x) floor(|x|)."""
    if x.dtype is not None and x.dtype.kind in "biu":
        return x
    return apply("mul", apply("sign", x), apply("floor", apply("abs", x)))


def _aten_round_decimals(x: Node, decimals: int = 0) -> Node:
    """aten.round.decimals: to ``decimals`` places, computed as PyTorch does (scaled by 10^|decimals|)."""
    scale = 10.0 ** abs(decimals)
    if decimals < 0:
        return apply("mul", apply("round", apply("div", x, scale)), scale)
    return apply("div", apply("round", apply("mul", x, scale)), scale)


ATEN["floor"] = (aten("floor", _rounded("floor")), aten("trunc", _trunc), aten("fix", _trunc))
ATEN["ceil"] = (aten("ceil", _rounded("ceil")),)
ATEN["round"] = (aten("round.default", _rounded("round")), aten("round.decimals", _aten_round_decimals))
