"""The training API's argument checks (optimizers, learning rates, losses): symgrad raises the
error types MindSpore 2.10 raises, and where MindSpore is installed it is run on the same calls.
"""

from __future__ import annotations

import numpy as np
import pytest

from symgrad import Tensor, ops
from tests.nn.helpers import needs_mindspore, run

REFUSED_HEADER = """
def arrays(value):
    if isinstance(value, (tuple, list)):
        return [arrays(v) for v in value]
    return value.asnumpy() if hasattr(value, "asnumpy") else value
p = [Parameter(f32(1.0, 2.0), name="w"), Parameter(f32(0.5), name="b")]
g = (f32(1.0, 1.0), f32(1.0))
x, y = f32(0.5, -1.5), f32(0.0, 1.0)
logits = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
labels = Tensor(np.array([2, 0], np.int32))
result = None
"""
REFUSED = {
    # optimizers
    "adam_beta1_of_one": (ValueError, "nn.Adam(p, beta1=1.0)"),
    "adam_int_beta1": (TypeError, "nn.Adam(p, beta1=1)"),
    "adam_zero_eps": (ValueError, "nn.Adam(p, eps=0.0)"),
    "adam_int_flag": (TypeError, "nn.Adam(p, use_nesterov=1)"),
    "adam_amsgrad_and_lazy": (ValueError, "nn.Adam(p, use_amsgrad=True, use_lazy=True)"),
    "adam_lazy_and_offload": (ValueError, "nn.Adam(p, use_lazy=True, use_offload=True)"),
    "adam_unknown_keyword": (KeyError, "nn.Adam(p, use_fast=True)"),
    "adam_zero_loss_scale": (ValueError, "nn.Adam(p, loss_scale=0.0)"),
    "adam_str_loss_scale": (TypeError, "nn.Adam(p, loss_scale='1')"),
    "adam_negative_weight_decay": (ValueError, "nn.Adam(p, weight_decay=-0.1)"),
    "adam_str_weight_decay": (TypeError, "nn.Adam(p, weight_decay='a')"),
    "adam_negative_rate": (ValueError, "nn.Adam(p, learning_rate=-0.1)"),
    "adam_nan_rate": (ValueError, "nn.Adam(p, learning_rate=float('nan'))"),
    "adam_none_rate": (TypeError, "nn.Adam(p, learning_rate=None)"),
    "adam_matrix_rate": (ValueError, "nn.Adam(p, learning_rate=Tensor(np.ones((2, 2), np.float32)))"),
    "adam_no_parameters": (ValueError, "nn.Adam([], 0.1)"),
    "adam_none_parameters": (ValueError, "nn.Adam(None)"),
    "adam_number_parameters": (TypeError, "nn.Adam(3)"),
    "adam_mixed_parameters_and_groups": (TypeError, "nn.Adam([p[0], {'params': [p[1]]}])"),
    "adam_unknown_group_key": (KeyError, "nn.Adam([{'params': p, 'momentum': 0.9}])"),
    "adam_parameter_in_two_groups": (RuntimeError, "nn.Adam([{'params': [p[0]]}, {'params': [p[0]]}])"),
    "adam_group_rate_lists_of_other_lengths": (
        ValueError,
        "nn.Adam([{'params': [p[0]], 'lr': [0.1, 0.2]}, {'params': [p[1]], 'lr': [0.1, 0.2, 0.3]}])",
    ),
    "adam_order_params_of_another_length": (ValueError, "nn.Adam([{'params': p}, {'order_params': [p[0]]}])"),
    "adam_rate_list_used_up": (RuntimeError, "opt = nn.Adam(p, [0.1])\nopt(g)\nopt(g)"),
    "adam_weight_decay_optimizer_beta2_of_zero": (ValueError, "nn.AdamWeightDecay(p, beta2=0.0)"),
    "adam_weight_decay_optimizer_int_eps": (TypeError, "nn.AdamWeightDecay(p, eps=1)"),
    "sgd_negative_momentum": (ValueError, "nn.SGD(p, momentum=-0.1)"),
    "sgd_str_momentum": (TypeError, "nn.SGD(p, momentum='a')"),
    "sgd_negative_dampening": (ValueError, "nn.SGD(p, dampening=-0.1)"),
    "sgd_nesterov_without_momentum": (ValueError, "nn.SGD(p, nesterov=True)"),
    "sgd_nesterov_with_dampening": (ValueError, "nn.SGD(p, momentum=0.9, dampening=0.1, nesterov=True)"),
    "sgd_int_nesterov": (TypeError, "nn.SGD(p, momentum=0.9, nesterov=1)"),
    "sgd_weight_decay_schedule": (TypeError, "nn.SGD(p, weight_decay=nn.WarmUpLR(0.1, 2))"),
    "momentum_int_momentum": (TypeError, "nn.Momentum(p, 0.1, 1)"),
    "momentum_negative_momentum": (ValueError, "nn.Momentum(p, 0.1, -0.5)"),
    "momentum_int_nesterov": (TypeError, "nn.Momentum(p, 0.1, 0.9, use_nesterov=1)"),
    # learning rates
    "exponential_decay_zero_steps": (ValueError, "nn.ExponentialDecayLR(0.1, 0.9, 0)"),
    "exponential_decay_bool_steps": (TypeError, "nn.ExponentialDecayLR(0.1, 0.9, True)"),
    "exponential_decay_int_rate": (TypeError, "nn.ExponentialDecayLR(1, 0.9, 2)"),
    "exponential_decay_int_stair": (TypeError, "nn.ExponentialDecayLR(0.1, 0.9, 2, 1)"),
    "natural_exp_decay_negative_rate": (ValueError, "nn.NaturalExpDecayLR(0.1, -0.9, 2)"),
    "inverse_decay_infinite_rate": (ValueError, "nn.InverseDecayLR(float('inf'), 0.9, 2)"),
    "cosine_decay_min_above_max": (ValueError, "nn.CosineDecayLR(0.1, 0.01, 2)"),
    "cosine_decay_int_min": (TypeError, "nn.CosineDecayLR(0, 0.1, 2)"),
    "polynomial_decay_zero_power": (ValueError, "nn.PolynomialDecayLR(0.1, 0.01, 2, 0.0)"),
    "polynomial_decay_int_update": (TypeError, "nn.PolynomialDecayLR(0.1, 0.01, 2, 1.0, 1)"),
    "warmup_zero_steps": (ValueError, "nn.WarmUpLR(0.1, 0)"),
    "warmup_int_rate": (TypeError, "nn.WarmUpLR(1, 2)"),
    "warmup_negative_rate": (ValueError, "nn.WarmUpLR(-0.1, 2)"),
    "piecewise_decreasing_milestones": (ValueError, "nn.piecewise_constant_lr([2, 1], [0.1, 0.2])"),
    "piecewise_int_rate": (TypeError, "nn.piecewise_constant_lr([2], [1])"),
    "piecewise_lengths_differ": (ValueError, "nn.piecewise_constant_lr([2, 3], [0.1])"),
    "piecewise_number_rates": (TypeError, "nn.piecewise_constant_lr((2,), 0.1)"),
    "exponential_list_zero_steps": (ValueError, "nn.exponential_decay_lr(0.1, 0.9, 0, 1, 1)"),
    "natural_exp_list_int_rate": (TypeError, "nn.natural_exp_decay_lr(0.1, 1, 4, 1, 1)"),
    "inverse_list_int_stair": (TypeError, "nn.inverse_decay_lr(0.1, 0.5, 4, 1, 1, 0)"),
    "cosine_list_min_above_max": (ValueError, "nn.cosine_decay_lr(0.1, 0.05, 4, 1, 1)"),
    "polynomial_list_int_update": (TypeError, "nn.polynomial_decay_lr(0.1, 0.01, 4, 1, 1, 1.0, 1)"),
    "polynomial_list_int_end": (TypeError, "nn.polynomial_decay_lr(0.1, 0, 4, 1, 1, 1.0)"),
    "warmup_list_int_rate": (TypeError, "nn.warmup_lr(1, 4, 1, 1)"),
    # losses
    "smooth_l1_negative_beta": (RuntimeError, "nn.SmoothL1Loss(-1.0)(x, y)"),
    "smooth_l1_zero_beta": (RuntimeError, "nn.SmoothL1Loss(0.0)(x, y)"),
    "smooth_l1_str_beta": (TypeError, "nn.SmoothL1Loss('a')"),
    "smooth_l1_unknown_reduction": (ValueError, "nn.SmoothL1Loss(1.0, 'avg')"),
    "smooth_l1_shapes_differ": (ValueError, "nn.SmoothL1Loss()(Tensor(np.ones((2, 2), np.float32)), y)"),
    "smooth_l1_integers": (TypeError, "nn.SmoothL1Loss()(Tensor(np.array([1, 2], np.int32)), Tensor(np.array([0, 1], np.int32)))"),
    "huber_unknown_reduction": (ValueError, "nn.HuberLoss('avg')"),
    "huber_zero_delta": (ValueError, "nn.HuberLoss('mean', 0.0)(x, y)"),
    "huber_str_delta": (TypeError, "nn.HuberLoss('mean', 'a')(x, y)"),
    "huber_list_input": (TypeError, "nn.HuberLoss()([0.5, 1.0], y)"),
    "bce_logits_parameter_weight": (TypeError, "nn.BCEWithLogitsLoss(weight=Parameter(f32(1.0, 1.0), name='q'))"),
    "bce_logits_parameter_pos_weight": (TypeError, "nn.BCEWithLogitsLoss(pos_weight=Parameter(f32(1.0, 1.0), name='q'))"),
    "bce_logits_integer_target": (TypeError, "nn.BCEWithLogitsLoss()(x, Tensor(np.array([0, 1], np.int32)))"),
    "bce_logits_shapes_differ": (ValueError, "nn.BCEWithLogitsLoss()(Tensor(np.ones((2, 3), np.float32)), f32(1.0, 0.0, 1.0))"),
    "bce_logits_weight_does_not_broadcast": (
        ValueError, "nn.BCEWithLogitsLoss(weight=f32(1.0, 2.0))(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))",
    ),
    "bce_logits_list_input": (TypeError, "nn.BCEWithLogitsLoss()([1.0, 0.0], y)"),
    "bce_unknown_reduction": (ValueError, "nn.BCELoss(reduction='avg')"),
    "cross_entropy_cell_smoothing_above_one": (ValueError, "nn.CrossEntropyLoss(label_smoothing=1.5)"),
    "cross_entropy_cell_int_smoothing": (TypeError, "nn.CrossEntropyLoss(label_smoothing=0)"),
    "cross_entropy_cell_float_ignore_index": (TypeError, "nn.CrossEntropyLoss(ignore_index=1.0)"),
    "cross_entropy_cell_list_weight": (TypeError, "nn.CrossEntropyLoss(weight=[1.0, 2.0, 3.0])"),
    "cross_entropy_cell_int64_labels": (TypeError, "nn.CrossEntropyLoss()(logits, Tensor(np.array([2, 0], np.int64)))"),
    "cross_entropy_cell_float_indices": (TypeError, "nn.CrossEntropyLoss()(logits, f32(2.0, 0.0))"),
    "cross_entropy_cell_integer_probabilities": (TypeError, "nn.CrossEntropyLoss()(logits, Tensor(np.ones((2, 3), np.int32)))"),
    "cross_entropy_cell_rank_of_labels": (ValueError, "nn.CrossEntropyLoss()(logits, Tensor(np.ones((2, 3, 1), np.float32)))"),
    "cross_entropy_int_smoothing": (TypeError, "ops.cross_entropy(logits, labels, label_smoothing=0)"),
    "cross_entropy_unknown_reduction": (ValueError, "ops.cross_entropy(logits, labels, reduction='avg')"),
    "cross_entropy_numpy_weight": (TypeError, "ops.cross_entropy(logits, labels, weight=np.ones(3, np.float32))"),
    "cross_entropy_weight_of_another_length": (ValueError, "ops.cross_entropy(logits, Tensor(np.array([1, 0], np.int32)), weight=f32(1.0, 1.0))"),
    "cross_entropy_probabilities_of_another_shape": (ValueError, "ops.cross_entropy(logits, Tensor(np.ones((2, 2), np.float32)))"),
    "cross_entropy_indices_of_another_shape": (ValueError, "ops.cross_entropy(logits, Tensor(np.ones(3, np.int32)))"),
    "cross_entropy_integer_logits": (TypeError, "ops.cross_entropy(Tensor(np.ones((2, 3), np.int32)), labels)"),
}  # fmt: skip


def test_class_indices_out_of_range_are_refused():
    """MindSpore 2.10's GatherD raises a RuntimeError too, or at times crashes the process reading
    past the logits (so this is not in REFUSED); -C <= label < 0 counts from the end, as there."""
    logits = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
    with pytest.raises(RuntimeError, match=r"label 3 is not a class index in \[-3, 3\)"):
        ops.cross_entropy(logits, Tensor(np.array([3, 0], np.int32)))
    last = ops.cross_entropy(logits, Tensor(np.array([-1, 0], np.int32)), reduction="none")
    np.testing.assert_array_equal(
        last.asnumpy(),
        ops.cross_entropy(logits, Tensor(np.array([2, 0], np.int32)), reduction="none").asnumpy(),
    )


def refused_program(name: str) -> str:
    """The call's value is read, so MindSpore's kernels (launched asynchronously) raise in the program."""
    *before, last = REFUSED[name][1].split("\n")
    return "\n".join([REFUSED_HEADER, *before, f"result = {last}", "result = arrays(result)"])


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_symgrad_refuses_with_mindsporess_error_types(name, tmp_path):
    with pytest.raises(REFUSED[name][0]):
        run("symgrad", refused_program(name), tmp_path)


@needs_mindspore
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_mindspore_refuses_the_same(name, in_tmp):
    with pytest.raises(REFUSED[name][0]):
        run("mindspore", refused_program(name), in_tmp)
    try:  # a failed kernel can report its error again at MindSpore's next read: take it here
        run("mindspore", "result = f32(1.0).asnumpy()", in_tmp)
    except (RuntimeError, ValueError, TypeError):
        pass
