"""Wrong inputs to the differentiation API raise what MindSpore 2.10 raises (issue 42's held-out kinds).

Each case is run on symgrad and, where MindSpore is installed, on MindSpore in the same run: both
must raise the builtin exception class recorded here (symgrad's own exceptions subclass it).
"""

from __future__ import annotations

import importlib.util
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

import symgrad
from symgrad import errors

HAS_MINDSPORE = importlib.util.find_spec("mindspore") is not None


def library(name: str) -> SimpleNamespace:
    lib = symgrad
    if name == "mindspore":
        import mindspore as lib  # type: ignore[no-redef]

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:  # under NumPy 2 MindSpore's first Tensor-and-number op fails once (SystemError)
                lib.Tensor(np.ones(1, np.float32)) * 1.0
            except SystemError:
                pass
    L = SimpleNamespace(ops=lib.ops, nn=lib.nn, Tensor=lib.Tensor)

    class Cube(lib.nn.Cell):
        def construct(self, x):
            return x**3

    class TwoOut(lib.nn.Cell):
        def construct(self, x):
            return x * x, 2 * x

    class ExtraBprop(lib.nn.Cell):  # bprop has a positional parameter more than construct's inputs
        def construct(self, x):
            return x * 2

        def bprop(self, x, y, out, dout):
            return (dout,)

    L.Cube, L.TwoOut, L.ExtraBprop = Cube, TwoOut, ExtraBprop
    L.x = lib.Tensor(np.array([1.0, 2.0], np.float32))
    L.v = lib.Tensor(np.array([1.0, 0.5], np.float32))
    return L


def square(a):
    return a * a


def pair(a):
    return a * a, a


CASES = {
    # jvp / vjp given inputs or v of the wrong type: TypeError
    "jvp inputs are ints": (TypeError, lambda L: L.ops.jvp(L.Cube(), 1, 1)),
    "vjp input is an int": (TypeError, lambda L: L.ops.vjp(L.Cube(), 1)[1](1)),
    "jvp v is a number": (TypeError, lambda L: L.ops.jvp(square, L.x, 1.0)),
    "jvp v is an ndarray": (TypeError, lambda L: L.ops.jvp(square, L.x, np.ones(2, np.float32))),
    "jvp inputs a list, v a tuple": (TypeError, lambda L: L.ops.jvp(square, [L.x], (L.v,))),
    "jvp inputs a tuple, v a list": (TypeError, lambda L: L.ops.jvp(square, (L.x,), [L.v])),
    "jvp input a Tensor, v a tuple": (TypeError, lambda L: L.ops.jvp(L.Cube(), L.x, (L.v,))),
    "jvp v of another dtype": (TypeError, lambda L: L.ops.jvp(square, L.x, L.Tensor(np.ones(2, np.int32)))),
    "jvp v count": (ValueError, lambda L: L.ops.jvp(square, (L.x,), (L.v, L.v))),
    "vjp v is an ndarray": (TypeError, lambda L: L.ops.vjp(square, L.x)[1](np.ones(2, np.float32))),
    "vjp v is None": (TypeError, lambda L: L.ops.vjp(square, L.x)[1](None)),
    "vjp v of another dtype": (TypeError, lambda L: L.ops.vjp(square, L.x)[1](L.Tensor(np.ones(2)))),
    "vjp v of another shape": (
        ValueError,
        lambda L: L.ops.vjp(square, L.x)[1](L.Tensor(np.ones(3, np.float32))),
    ),
    # v or sens whose count does not match the outputs: RuntimeError
    "vjp two v for one output": (RuntimeError, lambda L: L.ops.vjp(square, L.x)[1](L.v, L.v)),
    "vjp three v for two outputs": (RuntimeError, lambda L: L.ops.vjp(pair, L.x)[1]((L.v, L.v, L.v))),
    "vjp one v for two outputs": (RuntimeError, lambda L: L.ops.vjp(pair, L.x)[1](L.v)),
    "grad sens is a number": (RuntimeError, lambda L: L.ops.grad(square, sens_param=True)(L.x, 1.0)),
    "grad sens is an ndarray": (RuntimeError, lambda L: L.ops.grad(square, sens_param=True)(L.x, np.ones(2))),
    "GradOperation sens is a number": (
        RuntimeError,
        lambda L: L.ops.GradOperation(sens_param=True)(square)(L.x, 1.0),
    ),
    # flags that are not bools: TypeError (these four kinds raised nothing before)
    "grad has_aux=1": (TypeError, lambda L: L.ops.grad(pair, has_aux=1)(L.x)),
    "grad sens_param=1": (TypeError, lambda L: L.ops.grad(square, sens_param=1)(L.x, L.v)),
    "grad return_ids=1": (TypeError, lambda L: L.ops.grad(square, return_ids=1)(L.x)),
    "GradOperation get_all=1": (TypeError, lambda L: L.ops.GradOperation(get_all=1)(square)(L.x)),
    "GradOperation get_by_list=1": (TypeError, lambda L: L.ops.GradOperation(get_by_list=1)(square)(L.x)),
    "GradOperation sens_param=1": (TypeError, lambda L: L.ops.GradOperation(sens_param=1)(square)(L.x, L.v)),
    "jvp has_aux=1": (TypeError, lambda L: L.ops.jvp(pair, L.x, L.v, has_aux=1)),
    "vjp has_aux=1": (TypeError, lambda L: L.ops.vjp(pair, L.x, has_aux=1)),
    "jacrev has_aux=1": (TypeError, lambda L: L.ops.jacrev(pair, has_aux=1)(L.x)),
    # has_aux=True with a single output: ValueError (raised nothing before)
    "jvp has_aux with one output": (ValueError, lambda L: L.ops.jvp(square, L.x, L.v, has_aux=True)),
    "vjp has_aux with one output": (ValueError, lambda L: L.ops.vjp(square, L.x, has_aux=True)),
    "grad has_aux with one output": (ValueError, lambda L: L.ops.grad(square, has_aux=True)(L.x)),
    "value_and_grad has_aux with one output": (
        ValueError,
        lambda L: L.ops.value_and_grad(square, has_aux=True)(L.x),
    ),
    # positions, weights and functions of the wrong type
    "grad_position a str": (TypeError, lambda L: L.ops.grad(square, "0")(L.x)),
    "grad_position a float": (TypeError, lambda L: L.ops.grad(square, 0.0)(L.x)),
    "grad_position holds a str": (TypeError, lambda L: L.ops.grad(square, ("0",))(L.x)),
    "jacfwd grad_position a str": (TypeError, lambda L: L.ops.jacfwd(square, "0")(L.x)),
    "grad_position negative": (ValueError, lambda L: L.ops.grad(square, -1)(L.x)),
    "weights a number": (TypeError, lambda L: L.ops.grad(square, 0, 1.0)(L.x)),
    "weights a str": (TypeError, lambda L: L.ops.grad(square, 0, "w")(L.x)),
    "grad of a non-callable": (TypeError, lambda L: L.ops.grad(1)(L.x)),
    "vjp of a non-callable": (TypeError, lambda L: L.ops.vjp(1, L.x)),
    "jvp of a non-callable": (ValueError, lambda L: L.ops.jvp(1, L.x, L.v)),
    # the cell forms: v shaped as the inputs (Jvp) or the output (Vjp), else TypeError ("Type Join Failed")
    "nn.Jvp one input, v a tuple": (TypeError, lambda L: L.nn.Jvp(L.Cube())(L.x, (L.v,))),
    "nn.Jvp one input, two v": (TypeError, lambda L: L.nn.Jvp(L.Cube())(L.x, (L.v, L.v))),
    "nn.Vjp one output, v a tuple": (TypeError, lambda L: L.nn.Vjp(L.Cube())(L.x, (L.v,))),
    "nn.Vjp one output, two v": (TypeError, lambda L: L.nn.Vjp(L.Cube())(L.x, (L.v, L.v))),
    "GradOperation two sens for one output": (
        RuntimeError,
        lambda L: L.ops.GradOperation(sens_param=True)(L.Cube())(L.x, (L.v, L.v)),
    ),
    # bprop with more positional parameters than the cell has inputs
    "bprop with an extra parameter": (TypeError, lambda L: L.ops.grad(L.ExtraBprop())(L.x)),
}


def _ids():
    return list(CASES)


@pytest.mark.parametrize("case", _ids())
def test_symgrad_raises_mindspores_class(case):
    expected, call = CASES[case]
    with pytest.raises(expected):
        call(library("symgrad"))


@pytest.mark.skipif(not HAS_MINDSPORE, reason="MindSpore is not installed (pip install mindspore)")
@pytest.mark.parametrize("case", _ids())
def test_mindspore_raises_the_recorded_class(case):
    expected, call = CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(expected):
            call(library("mindspore"))


def test_symgrad_errors_stay_grad_errors():
    """The builtin classes come through symgrad's own: every case above is still a GradError."""
    for case in (
        "vjp two v for one output",
        "grad has_aux=1",
        "jvp has_aux with one output",
        "grad_position a str",
    ):
        with pytest.raises(errors.GradError):
            CASES[case][1](library("symgrad"))


@pytest.mark.parametrize(
    "lib",
    [
        "symgrad",
        pytest.param(
            "mindspore", marks=pytest.mark.skipif(not HAS_MINDSPORE, reason="MindSpore is not installed")
        ),
    ],
)
def test_stop_gradient_of_a_python_int_is_that_int(lib):
    L = library(lib)
    out = L.ops.stop_gradient(3)
    assert type(out) is int and out == 3
    grads = L.ops.grad(lambda a: a * L.ops.stop_gradient(2))(L.x)
    np.testing.assert_allclose(grads.asnumpy(), [2.0, 2.0])
