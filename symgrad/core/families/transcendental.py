"""Elementary and special functions: sqrt, exp, log, log1p, expm1, trigonometric, atan2, hyperbolic,
their inverses, erf, erfc; and PyTorch's norms written with them (vector norms, batch norm in eval
mode, group norm).

Each rule is written with registered ops and may use ``ans`` (the op's output), so
every order of derivative comes from the same one-line rule.
"""

from __future__ import annotations

import math

import numpy as np
import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.families.conversion import cast
from symgrad.core.families.structural.builders import (
    aten_dims,
    fold,
    full,
    normalize_axes,
    reduce_sum,
    reshape,
)
from symgrad.core.graph import Node
from symgrad.core.registry import Api, apply, aten, lax
from symgrad.errors import OpError


def _one_minus_square(x):
    """1 - x^2 as (1 - x)(1 + x): no cancellation as |x| nears 1 (1 - x is exact there)."""
    return apply("mul", apply("sub", 1, x), apply("add", 1, x))


def _unary(
    name, display, sympy_fn, partial, np_name=None, simd=True, numpy=None, c=None, imports=(), **traits
):
    """A libm function: NumPy's ``np_name`` (default ``name``), C's, MindSpore's, ATen's and JAX's ``name``.

    NumPy's spelling (``arcsin``) is also a public alias, as in MindSpore. ``numpy``
    overrides the NumPy template (a runtime helper where NumPy lacks the function), ``c``
    the C one (a function of symgrad's own); ``imports`` are further framework ops (ATen, JAX)
    written with it.
    """
    np_name = np_name or name
    elementwise(
        name,
        display,
        sympy_fn,
        (partial,),
        numpy=numpy or f"np.{np_name}({{0}})",
        c=c or f"{name}({{0}})",
        mindspore=f"ops.{name}({{0}})",
        api=Api(classes=(display,), functions=tuple(dict.fromkeys((name, np_name)))),
        simd=name if simd else None,
        imports=(aten(name), lax(name), *imports),
        **traits,
    )


# ----- norms -----


def vector_norm(x: Node, ord: float = 2, axes=None, keepdim: bool = False) -> Node:  # noqa: A002 (the usual name)
    """The 2-norm, or the p-norm for a number ``ord`` >= 1, over ``axes`` (all when None).

    Computed as ``m * norm(x / m)`` with ``m`` a power of two near the mean of |x| (``pow2_scale``,
    meaning 1 in closed forms), so neither the norm nor its derivatives overflow or underflow
    where the true values are finite (x = [1e200, 1e200] or [1e-200, 1e-200]).
    """
    if isinstance(ord, bool) or not isinstance(ord, int | float) or not 1 <= ord < math.inf:
        raise OpError(f"Norm: ord must be None or a number >= 1 (vector norms; a finite one), got {ord!r}")
    axes = normalize_axes("Norm", axes, x.ndim)
    count = max(math.prod(x.shape[a] for a in axes), 1)
    magnitude = apply("abs", x)
    scale = apply("pow2_scale", reduce_sum(apply("mul", magnitude, 1 / count), axes, True))
    scaled = apply("div", x, scale)
    if ord == 2:
        inner = apply("sqrt", reduce_sum(apply("mul", scaled, scaled), axes, keepdim))
    else:
        inner = apply("pow", reduce_sum(apply("pow", apply("abs", scaled), ord), axes, keepdim), 1 / ord)
    return apply("mul", inner, reshape(scale, inner.shape))


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


# ----- special functions -----
_unary(
    "erf", "Erf", sympy.erf,
    lambda x, ans: apply("mul", 2 / math.sqrt(math.pi), apply("exp", apply("neg", apply("square", x)))),
    numpy="rt.erf({0})",
)  # fmt: skip


# ----- powers and logarithms -----
_unary(
    "sqrt", "Sqrt", sympy.sqrt, lambda x, ans: apply("div", 0.5, ans), simd=False,  # an instruction
    imports=(
        aten("rsqrt", lambda x: apply("div", 1, apply("sqrt", x))),
        lax("rsqrt", lambda x: apply("div", 1, apply("sqrt", x))),
        aten("linalg_vector_norm", _aten_vector_norm),
        aten("_native_batch_norm_legit_no_training", _aten_batch_norm_eval),
        aten("native_group_norm", _aten_native_group_norm),
        aten("group_norm", _aten_group_norm),
    ),
)  # fmt: skip
_unary("exp", "Exp", sympy.exp, lambda x, ans: ans)
_unary(
    "log", "Log", sympy.log, lambda x, ans: apply("div", 1, x),
    imports=(
        aten("log2", lambda x: apply("div", apply("log", x), math.log(2))),
        aten("log10", lambda x: apply("div", apply("log", x), math.log(10))),
    ),
)  # fmt: skip
# log(1 + x) and exp(x) - 1 without the cancellation near 0 (their meanings are the plain forms)
_unary("log1p", "Log1p", lambda x: sympy.log(1 + x), lambda x, ans: apply("div", 1, apply("add", 1, x)))
_unary("expm1", "Expm1", lambda x: sympy.exp(x) - 1, lambda x, ans: apply("add", ans, 1))

# ----- trigonometric -----
_unary("sin", "Sin", sympy.sin, lambda x, ans: apply("cos", x))
_unary("cos", "Cos", sympy.cos, lambda x, ans: apply("neg", apply("sin", x)))
_unary("tan", "Tan", sympy.tan, lambda x, ans: apply("add", 1, apply("square", ans)))
_unary(
    "asin", "Asin", sympy.asin,
    lambda x, ans: apply("div", 1, apply("sqrt", _one_minus_square(x))),
    np_name="arcsin",
)  # fmt: skip
_unary(
    "acos", "Acos", sympy.acos,
    lambda x, ans: apply("neg", apply("div", 1, apply("sqrt", _one_minus_square(x)))),
    np_name="arccos",
)  # fmt: skip
_unary(
    "atan", "Atan", sympy.atan,
    lambda x, ans: apply("div", 1, apply("add", 1, apply("square", x))),
    np_name="arctan",
)  # fmt: skip


def _atan2_partial(of_y: bool):
    """d atan2(y, x) / dy = x / (x^2 + y^2); d / dx = -y / (x^2 + y^2).

    Written with x and y divided by a power of two ``m`` near max(|x|, |y|) (``pow2_scale``) as
    (x/m) / ((x/m)^2 + (y/m)^2) / m: the same formula for every m, so squares neither overflow
    (x = y = 1e200) nor underflow (1e-200, where the slopes are +-5e199)."""

    def partial(y, x, ans):
        scale = apply("pow2_scale", apply("maximum", apply("abs", x), apply("abs", y)))
        xs, ys = apply("div", x, scale), apply("div", y, scale)
        radius2 = apply("add", apply("square", xs), apply("square", ys))
        slope = apply("div", apply("div", xs if of_y else ys, radius2), scale)
        return slope if of_y else apply("neg", slope)

    return partial


elementwise(
    "atan2", "Atan2", sympy.atan2, (_atan2_partial(True), _atan2_partial(False)),
    numpy="np.arctan2({0}, {1})", c="atan2({0}, {1})", mindspore="ops.atan2({0}, {1})",
    api=Api(("Atan2",), ("atan2", "arctan2")), simd="atan2", imports=(aten("atan2"), lax("atan2")),
)  # fmt: skip

# ----- hyperbolic -----
_unary("sinh", "Sinh", sympy.sinh, lambda x, ans: apply("cosh", x))
_unary("cosh", "Cosh", sympy.cosh, lambda x, ans: apply("sinh", x))


# tanh(x) = e / (e + 2), e = expm1(2|x|) with the sign of x; expm1 as 2^k expm1(r) + 2^k - 1,
# |r| <= ln2 / 2, expm1(r) by its Taylor series to r^13 (truncation below 1e-17). A call-free
# function vectorizes inside the loops over a layer: measured 1.7 ns a value against 3.5 ns for
# glibc's SIMD tanh (libmvec, AVX2), within 3 ulp of tanhl over 2e7 values. |x| > 20 gives +-1.
# float programs call a float twin (series to r^7, |x| > 10 gives +-1): within 2.4 ulp of tanh
# over 8e6 floats, 0.68 ns a value against 1.95 ns for the double one with its two conversions.
# sg_tanh picks the twin by its argument's C type (_Generic).
def _tanh_c(real: str, clamp: str, log2e: str, ln2_lo: str, ln2_hi: str, degree: int) -> str:
    """sg_tanh's C source in ``real`` (double or float): one scheme, each type's constants."""
    f = "f" if real == "float" else ""  # suffix of the C math functions and literals
    # 2^k built in the exponent bits: the integer type, k as it, the bias and the mantissa width
    bits, k_bits, bias, mantissa = (
        ("int", "(int)k", 127, 23) if f else ("long long", "(long long)(int)k", 1023, 52)
    )
    horner = [f"    p = fma{f}(p, r, 1.0{f} / {math.factorial(n)}.0{f});" for n in range(degree - 1, 2, -1)]
    return "\n".join(
        [
            f"static inline {real} sg_tanh_{'f32' if f else 'f64'}({real} x)",
            "{",
            f"    {real} a = fabs{f}(x);",
            f"    a = a > {clamp} ? {clamp} : a; /* NaN passes */",
            f"    {real} y = a + a, k = rint{f}(y * {log2e});",
            f"    {real} r = fma{f}(-k, {ln2_lo}, fma{f}(-k, {ln2_hi}, y));",
            f"    {real} p = 1.0{f} / {math.factorial(degree)}.0{f}; /* 1/{degree}!, then Horner down to 1/2! */",
            *horner,
            f"    p = fma{f}(p, r, 0.5{f});",
            f"    p = fma{f}(p * r, r, r);",
            f"    union {{ {bits} bits; {real} value; }} two_k;",
            f"    two_k.bits = ({k_bits} + {bias}) << {mantissa};",
            f"    {real} e = fma{f}(two_k.value, p, two_k.value - 1.0{f});",
            f"    return copysign{f}(e / (e + 2.0{f}), x);",
            "}",
        ]
    )  # fmt: skip


_TANH_C = "\n".join(
    [
        _tanh_c("double", "20.0", "1.4426950408889634", "1.90821492927058770002e-10", "6.93147180369123816490e-01", 13),
        _tanh_c("float", "10.0f", "1.44269504f", "-1.90465430e-09f", "6.93147182e-01f", 7),
        "#define sg_tanh(x) _Generic((x), float: sg_tanh_f32, default: sg_tanh_f64)(x)",
    ]
)  # fmt: skip
_unary(
    "tanh", "Tanh", sympy.tanh, lambda x, ans: apply("sech2", x),
    c="sg_tanh({0})", cuda="tanh({0})", simd=False, c_function=_TANH_C,
)  # fmt: skip

# tanh'(x) = sech(x)^2 = 4q / (1 + q)^2, q = exp(-2|x|): 1 - tanh(x)^2 cancels to 0 for |x| > 19
# (tanh'(20) = 1.7e-17) and loses digits well before. One exp, vectorized by libmvec.
_SECH2_C = """static inline double sg_sech2(double x)
{
    double q = exp(-2.0 * fabs(x));
    return 4.0 * q / ((1.0 + q) * (1.0 + q));
}"""
elementwise(
    "sech2", "Sech2", lambda x: 1 / sympy.cosh(x) ** 2,  # cosh: lambdify prints sech through complex exps
    (lambda x, ans: apply("mul", -2, apply("mul", apply("tanh", x), ans)),),
    numpy="rt.sech2({0})", c="sg_sech2({0})", c_function=_SECH2_C,
    cuda="(4.0 * exp(-2.0 * fabs({0})) / ((1.0 + exp(-2.0 * fabs({0}))) * (1.0 + exp(-2.0 * fabs({0})))))",
    mindspore="(4 * ops.exp(-2 * ops.abs({0})) / (1 + ops.exp(-2 * ops.abs({0}))) ** 2)",
    api=Api(internal="the derivative of tanh, sech(x)^2 without 1 - tanh(x)^2's cancellation"),
    notation="sech²({0})",
)  # fmt: skip
_unary(
    "atanh", "Atanh", sympy.atanh,
    lambda x, ans: apply("div", 1, _one_minus_square(x)),
    np_name="arctanh",
)  # fmt: skip

# Modified Bessel functions of the first kind, I_n(x) (n = 0, 1, 2, ...: the op's parameter):
# I_n' = (I_{n-1} + I_{n+1}) / 2, with I_{-1} = I_1, so every order is the same row. Computed by
# their power series sum_k (x/2)^(2k+n) / (k! (k+n)!), whose terms all have one sign (no
# cancellation), until a term no longer changes the sum.
_BESSEL_I_C = """static inline double sg_bessel_i(double n, double x)
{
    int m = (int)n, k;
    double h = 0.5 * x, t = 1.0, q = h * h, s;
    if (x != x) return x;
    for (k = 1; k <= m; k++) t *= h / k; /* (x/2)^n / n! */
    s = t;
    for (k = 1; k < 100000 && t != 0; k++) {
        t *= q / ((double)k * (double)(k + m));
        if (!(fabs(t) > 1e-17 * fabs(s))) break; /* NaN ends it too */
        s += t;
    }
    return s;
}"""


def _bessel_i_partial(x, ans, n):
    below = apply("bessel_i", x, params=(abs(n - 1),))
    return apply("mul", 0.5, apply("add", below, apply("bessel_i", x, params=(n + 1,))))


elementwise(
    "bessel_i", "BesselI", lambda x, n: sympy.besseli(n, x), (_bessel_i_partial,),
    numpy="rt.bessel_i({0}, {p0})", c="sg_bessel_i({p0}, {0})", c_function=_BESSEL_I_C,
    cuda="((int){p0} == 0 ? cyl_bessel_i0({0}) : (int){p0} == 1 ? cyl_bessel_i1({0}) : NAN)",  # CUDA has I0, I1
    mindspore="rt.bessel_i({0}, {p0})",
    api=Api(("BesselI0", "BesselI1"), ("bessel_i0", "bessel_i1"), generated=False),  # one row, n a parameter
    notation=lambda node, args: f"I{int(node.params[0])}({args[0]})",
    imports=(
        *(aten(name, lambda x: apply("bessel_i", x, params=(0,))) for name in ("i0", "special_modified_bessel_i0")),
        *(aten(name, lambda x: apply("bessel_i", x, params=(1,))) for name in ("special_i1", "special_modified_bessel_i1")),
        # JAX's exponentially scaled ones: exp(-|x|) I_n(x)
        *(lax(f"bessel_i{n}e", lambda x, n=n: apply("mul", apply("exp", apply("neg", apply("abs", x))), apply("bessel_i", x, params=(n,)))) for n in (0, 1)),
    ),
)  # fmt: skip
_unary(
    "erfc", "Erfc", sympy.erfc,
    lambda x, ans: apply("mul", -2 / math.sqrt(math.pi), apply("exp", apply("neg", apply("square", x)))),
    numpy="rt.erfc({0})",
)  # fmt: skip
