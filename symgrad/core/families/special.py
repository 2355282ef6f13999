"""The gamma family and the inverse error function: lgamma, polygamma (digamma is its order 0),
erfinv. PyTorch's and JAX's ops written with them (digamma, mvlgamma, ndtri) are the importers'
(``symgrad.importers.aten_functions``, ``lax_rows``).

lgamma is log|Gamma(x)| (PyTorch's, SciPy's gammaln); its derivative is digamma, whose derivative
is polygamma of order 1, and so on: one row with the order as its parameter. erfinv' is
sqrt(pi)/2 exp(erfinv(x)^2). The C functions are symgrad's own (libm has lgamma only); NumPy uses
SciPy's, PyTorch and MindSpore their own.
"""

from __future__ import annotations

import math

import sympy

from symgrad.core.families._elementwise import elementwise
from symgrad.core.graph import Node
from symgrad.core.registry import Api, apply, aten, lax

# psi^(n)(x) by the recurrence psi^(n)(x) = psi^(n)(x + 1) - (-1)^n n! / x^(n+1) until x >= 12 + n,
# then the asymptotic series with Bernoulli numbers B2..B16 (its next term is below 1e-17 there).
# Non-positive integers are poles, valued as SciPy and PyTorch value them: digamma -inf at +0, +inf at
# -0, NaN at negative integers; polygamma of order n >= 1 (-1)^(n+1) inf.
_POLYGAMMA_C = """static inline double sg_polygamma(double order, double x)
{
    const double b[8] = {1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6, -3617.0 / 510};
    int n = (int)order, k;
    double nfact = 1.0, sign = (n % 2) ? 1.0 : -1.0, shift = 0.0, s, x2, xp, c;
    if (x != x) return x;
    if (x <= 0 && x == floor(x)) { /* poles, valued as SciPy values them */
        if (n > 0) return sign * INFINITY;
        return x == 0 ? (signbit(x) ? INFINITY : -INFINITY) : NAN;
    }
    for (k = 2; k <= n; k++) nfact *= k;
    if (n == 0 && x < 0) { /* reflection: psi(x) = psi(1 - x) - pi / tan(pi x) */
        shift = -3.141592653589793 / tan(3.141592653589793 * x);
        x = 1 - x;
    }
    while (x < 12 + n) { /* -(-1)^n n! / x^(n+1) = sign * n! / x^(n+1) */
        shift += sign * nfact / pow(x, n + 1);
        x += 1;
    }
    x2 = 1.0 / (x * x);
    if (n == 0) {
        s = log(x) - 0.5 / x;
        xp = x2;
        for (k = 1; k <= 8; k++) { s -= b[k - 1] / (2 * k) * xp; xp *= x2; }
        return s + shift;
    }
    /* (-1)^(n+1) [ (n-1)!/x^n + n!/(2 x^(n+1)) + sum_k B_2k (2k+n-1)!/(2k)! / x^(2k+n) ] */
    s = nfact / n / pow(x, n) + nfact / (2 * pow(x, n + 1));
    c = nfact; /* (2k+n-1)!/(2k)! built up term by term */
    xp = 1.0 / pow(x, n + 2);
    for (k = 1; k <= 8; k++) {
        if (k == 1) c = nfact * (n + 1) / 2.0;
        else c *= (double)(2 * k + n - 2) * (2 * k + n - 1) / ((2.0 * k - 1) * (2.0 * k));
        s += b[k - 1] * c * xp;
        xp *= x2;
    }
    return sign * s + shift;
}"""

# erfinv(x): Winitzki's closed-form first guess (relative error 2e-3), then three Halley steps on
# erf(y) - x (on w - erfc(y), w = 1 - |x| exactly, where |x| > 0.5, so the tail keeps its digits).
_ERFINV_C = """static inline double sg_erfinv(double x)
{
    double ax = fabs(x), w = 1.0 - ax, l, t, y, f, d;
    int k;
    if (x != x || ax > 1) return NAN;
    if (ax == 1) return x > 0 ? INFINITY : -INFINITY;
    if (x == 0) return x;
    l = log(w * (1.0 + ax));
    t = 2.0 / (3.141592653589793 * 0.147) + 0.5 * l;
    y = sqrt(sqrt(t * t - l / 0.147) - t);
    for (k = 0; k < 3; k++) {
        f = ax > 0.5 ? w - erfc(y) : erf(y) - ax;
        d = f / (1.1283791670955126 * exp(-y * y)); /* f / f' */
        y -= d / (1.0 + y * d);
    }
    return x < 0 ? -y : y;
}"""


def _polygamma_partial(x: Node, ans: Node, n: float) -> Node:
    return apply("polygamma", x, params=(int(n) + 1,))


elementwise(
    "polygamma", "Polygamma", lambda x, n: sympy.polygamma(int(n), x), (_polygamma_partial,),
    numpy="rt.polygamma({0}, {p0})", c="sg_polygamma({p0}, {0})", c_function=_POLYGAMMA_C,
    mindspore="rt.polygamma({0}, {p0})",
    api=Api(("Digamma", "Polygamma"), ("digamma", "polygamma"), generated=False),  # n a parameter
    notation=lambda node, args: f"ψ({args[0]})" if node.params[0] == 0 else f"ψ{int(node.params[0])}({args[0]})",
    # digamma, polygamma (the order first): importers.aten_functions, lax_rows
)  # fmt: skip


elementwise(
    "lgamma", "Lgamma", sympy.loggamma, (lambda x, ans: apply("polygamma", x, params=(0,)),),
    numpy="rt.lgamma({0})", c="lgamma({0})", mindspore="rt.lgamma({0})",
    imports=(aten("lgamma"), lax("lgamma")),  # mvlgamma, special_gammaln: importers.aten_functions
)  # fmt: skip


def _erfinv_partial(x: Node, ans: Node) -> Node:
    return apply("mul", math.sqrt(math.pi) / 2, apply("exp", apply("square", ans)))


elementwise(
    "erfinv", "Erfinv", sympy.erfinv, (_erfinv_partial,),
    numpy="rt.erfinv({0})", c="sg_erfinv({0})", c_function=_ERFINV_C, cuda="erfinv({0})",
    mindspore="rt.erfinv({0})",
    imports=(aten("erfinv"), lax("erf_inv")),  # special_erfinv, special_ndtri: importers.aten_functions
)  # fmt: skip
