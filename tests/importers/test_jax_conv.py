"""JAX's conv_general_dilated (jax.lax.conv*, conv_transpose, flax's Conv): values and gradients
against jax.grad in float64 over layouts, strides, paddings (negative ones too), both dilations,
feature groups and 1-3 spatial dimensions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import symgrad
from symgrad.errors import OpError

jax = pytest.importorskip("jax", reason="JAX is not installed")
jax.config.update("jax_enable_x64", True)
jnp = jax.numpy
from symgrad.importers import from_jax  # noqa: E402 (after JAX is configured)


def _same_as_jax(f, *arrays):
    program = from_jax(f, *arrays)
    tensors = [symgrad.Tensor(a) for a in arrays]
    np.testing.assert_allclose(program(*tensors).asnumpy(), f(*arrays), rtol=1e-12)
    grads = symgrad.grad(lambda *t: program(*t), tuple(range(len(arrays))))(*tensors)
    for got, want in zip(grads, jax.grad(f, tuple(range(len(arrays))))(*arrays)):
        np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-11, atol=1e-12)


CASES = {
    "NHWC-HWIO-same": ((2, 5, 6, 3), (3, 3, 3, 4), ("NHWC", "HWIO", "NHWC"), dict(window_strides=(1, 1), padding="SAME")),
    "NCHW-strided-negative-pad-dilated": ((2, 3, 7, 6), (4, 3, 3, 2), ("NCHW", "OIHW", "NCHW"),
                                          dict(window_strides=(2, 1), padding=((1, 0), (-1, 2)), rhs_dilation=(1, 2))),
    "1d-groups": ((2, 4, 7), (6, 2, 3), ("NCH", "OIH", "NCH"), dict(window_strides=(1,), padding="VALID", feature_group_count=2)),
    "input-dilation": ((1, 3, 4, 4), (2, 3, 3, 3), ("NCHW", "OIHW", "NCHW"),
                       dict(window_strides=(1, 1), padding=((2, 2), (2, 2)), lhs_dilation=(2, 2))),
    "3d-NDHWC": ((1, 4, 4, 3, 2), (2, 2, 2, 2, 3), ("NDHWC", "DHWIO", "NDHWC"), dict(window_strides=(1, 2, 1), padding="SAME")),
    "mixed-out-layout": ((2, 3, 5, 5), (4, 3, 2, 2), ("NCHW", "OIHW", "NHWC"), dict(window_strides=(1, 1), padding="VALID")),
}  # fmt: skip


@pytest.mark.parametrize("name", list(CASES))
def test_conv_general_dilated_matches_jax(name, rng):
    x_shape, w_shape, dn, kwargs = CASES[name]

    def f(x, w):
        return jnp.sum(jnp.tanh(jax.lax.conv_general_dilated(x, w, dimension_numbers=dn, **kwargs)) ** 2)

    _same_as_jax(f, rng.normal(size=x_shape), rng.normal(size=w_shape))


def test_conv_transpose_and_a_depthwise_conv_as_models_write_them(rng):
    def f(x, w, k):
        up = jax.lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.sum(jnp.sin(jax.lax.conv_general_dilated(
            up, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), feature_group_count=3)))  # fmt: skip

    _same_as_jax(
        f, rng.normal(size=(1, 3, 3, 2)), rng.normal(size=(2, 2, 2, 3)), rng.normal(size=(3, 3, 1, 3))
    )


@settings(max_examples=12, deadline=None)
@given(
    st.integers(1, 2), st.integers(1, 2), st.integers(1, 2), st.integers(-1, 2), st.integers(0, 2),
    st.integers(1, 3), st.sampled_from([1, 2]),
)  # fmt: skip
def test_any_stride_padding_and_dilation_in_one_dimension(stride, rhs_d, lhs_d, pad_lo, pad_hi, k, groups):
    rng = np.random.default_rng(stride * 100 + rhs_d * 10 + lhs_d)
    x, w = rng.normal(size=(2, 2 * groups, 9)), rng.normal(size=(2 * groups, 2, k))

    def f(x, w):
        out = jax.lax.conv_general_dilated(
            x, w, (stride,), ((pad_lo, pad_hi),), (lhs_d,), (rhs_d,), ("NCH", "OIH", "NCH"), groups
        )
        return jnp.sum(out * jnp.cos(out))

    _same_as_jax(f, x, w)


def test_batch_groups_are_refused_by_name(rng):
    def f(x, w):
        return jnp.sum(jax.lax.conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=("NCH", "OIH", "NCH"),
                                                    batch_group_count=2))  # fmt: skip

    program = from_jax(f, rng.normal(size=(2, 2, 5)), rng.normal(size=(2, 2, 2)))
    with pytest.raises(OpError, match="lax.conv_general_dilated: batch_group_count=2 has no row"):
        program(symgrad.Tensor(rng.normal(size=(2, 2, 5))), symgrad.Tensor(rng.normal(size=(2, 2, 2))))
