"""Elementary and special functions: sqrt, exp, log, log1p, expm1, trigonometric, atan2, hyperbolic,
their inverses, erf, erfc, the modified Bessel functions; and ``vector_norm`` written with them.
PyTorch's and JAX's ops written with these rows (rsqrt, log2, PyTorch's norms: vector norms, batch
norm in eval mode, group norm) are the importers' (``symgrad.importers.aten_functions``, ``lax_rows``).

Each rule is written with registered ops and may use ``ans`` (the op's output), so
every order of derivative comes from the same one-line rule.
"""

from __future__ import annotations

import math

import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.families.structural.builders import normalize_axes, reduce_sum, reshape
from symgrad.core.graph import Node
from symgrad.core.registry import Api, apply, aten, lax
from symgrad.errors import OpError


def _one_minus_square(x):
    """1 - x^2 as (1 - x)(1 + x): no cancellation as |x| nears 1 (1 - x is exact there)."""
    return apply("mul", apply("sub", 1, x), apply("add", 1, x))


def _unary(name, display, sympy_fn, partial, np_name=None, simd=True, numpy=None, c=None, **traits):
    """A libm function: NumPy's ``np_name`` (default ``name``), C's, MindSpore's, ATen's and JAX's ``name``.

    NumPy's spelling (``arcsin``) is also a public alias, as in MindSpore. ``numpy``
    overrides the NumPy template (a runtime helper where NumPy lacks the function), ``c``
    the C one (a function of symgrad's own). Framework ops written with it are the importers'.
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
        imports=(aten(name), lax(name)),
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


# ----- special functions -----
_unary(
    "erf", "Erf", sympy.erf,
    lambda x, ans: apply("mul", 2 / math.sqrt(math.pi), apply("exp", apply("neg", apply("square", x)))),
    numpy="rt.erf({0})",
)  # fmt: skip


# ----- powers and logarithms -----
# rsqrt and PyTorch's norms: importers.aten_functions, lax_rows
_unary("sqrt", "Sqrt", sympy.sqrt, lambda x, ans: apply("div", 0.5, ans), simd=False)  # an instruction
_unary("exp", "Exp", sympy.exp, lambda x, ans: ans)
_unary("log", "Log", sympy.log, lambda x, ans: apply("div", 1, x))  # log2, log10: importers.aten_functions
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
    # i0, i1, and JAX's scaled bessel_i0e, bessel_i1e: importers.aten_functions, lax_rows
)  # fmt: skip
_unary(
    "erfc", "Erfc", sympy.erfc,
    lambda x, ans: apply("mul", -2 / math.sqrt(math.pi), apply("exp", apply("neg", apply("square", x)))),
    numpy="rt.erfc({0})",
)  # fmt: skip
