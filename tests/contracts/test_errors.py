"""Every bad input gets a clear error naming the op, the argument and the shapes or dtypes."""

from __future__ import annotations

import numpy as np
import pytest

import lowering
import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad.core.registry import lookup

A = Tensor(np.ones((2, 3), np.float32))
B = Tensor(np.ones((2, 3), np.float32))


def test_matmul_shape_mismatch_names_op_and_shapes():
    with pytest.raises(symgrad.OpError, match=r"MatMul: x \(2, 3\) and y \(2, 3\) are not aligned: 3 != 2"):
        ops.MatMul()(A, B)
    with pytest.raises(symgrad.OpError, match=r"MatMul: x must have rank 1 or 2, got shape \(1, 2, 3\)"):
        ops.MatMul()(A.reshape(1, 2, 3), B)
    with pytest.raises(
        symgrad.OpError, match=r"MatMul: x \(1, 2, 3\) and y \(2, 3\) are not aligned: 3 != 2"
    ):
        ops.matmul(A.reshape(1, 2, 3), B)  # the functional form takes batch axes, as MindSpore's does


def test_broadcast_failure_names_the_op():
    with pytest.raises(symgrad.OpError, match=r"Add: shapes \(2, 3\) and \(2,\) cannot be broadcast"):
        A + Tensor(np.ones(2, np.float32))


def test_sens_shape_must_match_output():
    with pytest.raises(
        symgrad.GradError, match=r"sens\[0\] has shape \(3, 2\) but the network output has shape \(2, 3\)"
    ):
        ops.GradOperation(sens_param=True)(ops.Sin())(A, Tensor(np.ones((3, 2), np.float32)))
    with pytest.raises(symgrad.GradError, match="a tuple of 2 Tensor"):
        ops.GradOperation(sens_param=True)(lambda x: (x, x))(A, A)


def test_grad_position_out_of_range():
    with pytest.raises(
        symgrad.GradError, match="grad_position 3 is out of range: the function was called with 2 input"
    ):
        ops.grad(lambda x, y: x * y, (0, 3))(A, B)
    with pytest.raises(symgrad.GradError, match="grad_position must be an int or a tuple"):
        ops.grad(lambda x: x, "0")(A)


def test_grad_position_and_weights_cannot_both_be_none():
    with pytest.raises(symgrad.GradError, match="cannot both be None"):
        ops.grad(ops.sin, None)


def test_unknown_op_lists_what_is_supported():
    with pytest.raises(AttributeError, match="symgrad.ops has no op 'Igamma'; supported: .*MatMul"):
        ops.Igamma  # noqa: B018
    with pytest.raises(symgrad.OpError, match="unknown op 'igamma'; supported ops: .*matmul"):
        lookup("igamma")


def test_bad_operands_and_indices():
    with pytest.raises(TypeError, match="Sin: argument 'x' must be a Tensor or a number, got str"):
        ops.sin("one")
    with pytest.raises(symgrad.OpError, match=r"getitem: index .* not supported .* shape \(2, 3\)"):
        A[[0, 1]]
    with pytest.raises(symgrad.OpError, match=r"Reshape: cannot reshape \(2, 3\) \(6 elements\) into \(4,\)"):
        A.reshape(4)
    with pytest.raises(symgrad.OpError, match="index 5 is out of range for an axis of size 2"):
        A[5]


def test_jvp_tangent_shape_must_match():
    with pytest.raises(symgrad.GradError, match=r"tangent 0 has shape \(3,\) but input 0 has shape \(2, 3\)"):
        ops.jvp(ops.sin, A, Tensor(np.ones(3, np.float32)))


def test_kernel_argument_shapes_are_checked():
    x = symgrad.placeholder("x", (3,))
    k = symgrad.kernel(ops.sin(x), [x])
    with pytest.raises(symgrad.OpError, match=r"kernel argument 'x' must have shape \(3,\).*got \(4,\)"):
        k(np.zeros(4))
    with pytest.raises(TypeError, match=r"kernel: inputs\[0\] must be a placeholder or a Parameter"):
        symgrad.kernel(ops.sin(x), [x * 2])


def test_unknown_and_missing_backends():
    x = symgrad.placeholder("x")
    with pytest.raises(lowering.BackendError, match="unknown backend .jaxx.; known backends: numpy, c, cupy"):
        symgrad.kernel(x, [x], backend="jaxx")
    if "cupy" not in lowering.available_backends():
        with pytest.raises(lowering.BackendError, match="'cupy' is not installed .*pip install"):
            symgrad.kernel(x, [x], backend="cupy")


def test_cell_must_call_super_init_before_parameters():
    class Forgot(nn.Cell):
        def __init__(self):
            self.w = Parameter(Tensor([1.0]), name="w")

    with pytest.raises(AttributeError, match=r"must call super\(\).__init__\(\)"):
        Forgot()


def test_set_data_checks_the_shape():
    p = Parameter(Tensor([1.0, 2.0]), name="p")
    with pytest.raises(ValueError, match=r"Parameter 'p': set_data got shape \(3,\), expected \(2,\)"):
        p.set_data(np.zeros(3))


def test_bad_context_settings():
    with pytest.raises(ValueError, match="device_target must be one of"):
        symgrad.set_context(device_target="TPU")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"learning_rate": -1e-3},
        {"learning_rate": float("nan")},
        {"learning_rate": float("inf")},
        {"learning_rate": 0.1, "momentum": float("nan")},
        {"learning_rate": 0.1, "weight_decay": -0.5},
        {"learning_rate": "0.1"},
    ],
)
def test_mindspore_optimizers_refuse_nonsense_rates(kwargs):
    w = Parameter(Tensor(np.ones(2)), name="w")
    argument = next(k for k, v in kwargs.items() if not (isinstance(v, float) and 0 <= v < 1e9))
    with pytest.raises(ValueError, match=f"SGD: {argument} must be a finite number >= 0"):
        nn.SGD([w], **kwargs)


def test_mindspore_optimizers_refuse_a_non_finite_gradient_before_changing_any_weight():
    w, b = Parameter(Tensor(np.ones(2)), name="w"), Parameter(Tensor(np.zeros(1)), name="b")
    opt = nn.Momentum([w, b], learning_rate=0.1, momentum=0.9)
    with pytest.raises(
        FloatingPointError, match=r"gradient of 'b' is nan at index \(0,\); no weight was changed"
    ):
        opt((Tensor(np.array([1.0, 1.0])), Tensor(np.array([np.nan]))))
    assert w.asnumpy().tolist() == [1.0, 1.0] and b.asnumpy().tolist() == [0.0]
    opt((Tensor(np.array([1.0, 2.0])), Tensor(np.array([0.5]))))
    np.testing.assert_allclose(w.asnumpy(), [0.9, 0.8])
