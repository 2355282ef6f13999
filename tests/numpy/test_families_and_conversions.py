"""``symgrad.numpy``'s elementwise, reduction and binary families against NumPy over Hypothesis'
shapes and dtypes; GradOperation through a ``mnp`` residual; lists and numbers converted as
``mindspore.numpy`` converts them; refusals that name the problem; the module's place in symgrad.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import symgrad
import symgrad.numpy as mnp
from symgrad import ops
from tests.numpy.helpers import V, X

# ----- properties: the elementwise and reduction families over shapes and dtypes -----
ELEMENTWISE = {  # name -> (NumPy function, domain (low, high))
    "sin": (np.sin, (-5, 5)), "cos": (np.cos, (-5, 5)), "tanh": (np.tanh, (-5, 5)), "exp": (np.exp, (-5, 5)),
    "log": (np.log, (0.01, 5)), "sqrt": (np.sqrt, (0, 5)), "square": (np.square, (-5, 5)),
    "abs": (np.abs, (-5, 5)), "arctan": (np.arctan, (-5, 5)), "arcsin": (np.arcsin, (-0.99, 0.99)),
    "log2": (np.log2, (0.01, 5)), "log10": (np.log10, (0.01, 5)), "exp2": (np.exp2, (-5, 5)),
    "reciprocal": (np.reciprocal, (0.1, 5)), "log1p": (np.log1p, (-0.9, 5)), "expm1": (np.expm1, (-5, 5)),
    "negative": (np.negative, (-5, 5)), "sinh": (np.sinh, (-5, 5)), "cosh": (np.cosh, (-5, 5)),
    "arcsinh": (np.arcsinh, (-1e4, 1e4)), "arccosh": (np.arccosh, (1, 1e4)),
}  # fmt: skip
REDUCTIONS = {
    "sum": np.sum,
    "mean": np.mean,
    "amax": np.amax,
    "amin": np.amin,
    "var": np.var,
    "std": np.std,
    "ptp": np.ptp,
}
FLOATS = st.sampled_from([np.float32, np.float64])
SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4)


@given(st.sampled_from(sorted(ELEMENTWISE)), FLOATS, SHAPES, st.data())
def test_elementwise_family_matches_numpy(name, dtype, shape, data):
    reference, (low, high) = ELEMENTWISE[name]
    bounds = {"min_value": float(np.float32(low)), "max_value": float(np.float32(high)), "width": 32}
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(**bounds)))
    got = getattr(mnp, name)(symgrad.Tensor(x))
    assert got.asnumpy().dtype == dtype and got.shape == shape
    tol = 2e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.asnumpy(), reference(x), rtol=tol, atol=tol)


@given(st.sampled_from(sorted(REDUCTIONS)), FLOATS, SHAPES, st.data(), st.booleans())
def test_reduction_family_matches_numpy(name, dtype, shape, data, keepdims):
    x = data.draw(hnp.arrays(dtype, shape, elements=st.floats(-5, 5, width=32)))
    axis = data.draw(st.none() | st.integers(-len(shape), len(shape) - 1))
    got = getattr(mnp, name)(symgrad.Tensor(x), axis=axis, keepdims=keepdims)
    expected = REDUCTIONS[name](x, axis=axis, keepdims=keepdims)
    assert got.asnumpy().dtype == dtype and got.shape == np.shape(expected)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=tol, atol=tol)


@given(
    st.sampled_from(["add", "subtract", "multiply", "maximum", "minimum", "arctan2", "hypot"]),
    FLOATS,
    st.data(),
)
def test_binary_family_broadcasts_as_numpy(name, dtype, data):
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    x, y = (data.draw(hnp.arrays(dtype, s, elements=st.floats(-5, 5, width=32))) for s in shapes.input_shapes)
    got = getattr(mnp, name)(symgrad.Tensor(x), symgrad.Tensor(y))
    expected = getattr(np, name)(x, y)
    assert got.shape == expected.shape and got.asnumpy().dtype == dtype
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=2e-6, atol=1e-6)


# ----- behaviours -----
def test_grad_operation_through_a_mnp_residual():
    """A MindFlow-style PINN residual, u_xx + sin(pi x), differentiated twice by GradOperation."""

    class Net(symgrad.nn.Cell):
        def construct(self, x):
            return mnp.sin(mnp.pi * x) / mnp.square(mnp.pi)

    x = symgrad.Tensor(np.linspace(0.1, 0.9, 5).astype(np.float32))
    first = ops.GradOperation()(Net())
    second = ops.GradOperation()(first)
    residual = second(x) + mnp.sin(mnp.pi * x)
    np.testing.assert_allclose(residual.asnumpy(), 0, atol=1e-6)
    assert mnp.mean(mnp.square(residual)).shape == ()


def test_lists_and_numbers_convert_as_mindspore_numpy():
    assert mnp.asarray([1, 2]).dtype == symgrad.int32 and mnp.asarray([1.0]).dtype == symgrad.float32
    assert mnp.add([1.0, 2.0], 3).dtype == symgrad.float32
    assert mnp.sin(0.5).dtype == symgrad.float32
    assert (
        mnp.linspace(0, 1, 5).dtype == symgrad.float32 and mnp.arange(0.0, 1.0, 0.5).dtype == symgrad.float32
    )
    x = symgrad.Tensor(X)
    assert mnp.asarray(x) is x and mnp.array(x) is not x


def test_refusals_name_the_problem():
    with pytest.raises(ValueError, match="equal pieces"):
        mnp.split(symgrad.Tensor(X), 4, axis=1)
    with pytest.raises(ValueError, match="one of xmin and xmax"):
        mnp.clip(symgrad.Tensor(X), None, None)
    with pytest.raises(TypeError, match="x and y"):
        mnp.where(symgrad.Tensor(X) > 0)
    with pytest.raises(AttributeError, match="symgrad.numpy has no 'e'"):
        mnp.e  # noqa: B018 - mindspore.numpy 2.10 has no e either
    with pytest.raises(symgrad.OpError, match="GatherD"):
        ops.gather_d(symgrad.Tensor(X), 1, symgrad.Tensor(np.array([[3]], np.int32)))


def test_symgrad_numpy_is_an_attribute_of_symgrad():
    assert symgrad.numpy is mnp


def test_print_and_the_operations_module(capsys):
    ops.print_("x:", symgrad.Tensor(V))
    assert capsys.readouterr().out.startswith("x: [ 0.5 -1.   2. ]")
    from symgrad.ops import operations as P

    assert P.L2Normalize is ops.L2Normalize and P.GatherD is ops.GatherD and P.Fill is ops.Fill
