"""MindSpore 2.10's optimizers in symgrad: their steps, their checks of gradients and rates, their state.

Every behaviour is asserted without MindSpore, against a NumPy reference written here or numbers
MindSpore 2.10 printed on the CPU; where MindSpore is installed the same programs also run on it
(``LIB`` is the library) and the two results are compared to float32 precision.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from symgrad import Parameter, Tensor, nn
from tests.nn.helpers import assert_same, f32, needs_mindspore, reference, run

W0 = {"w": [1.0, -2.0, 0.5], "gamma": [[0.3, -0.1], [0.2, 0.4]]}
STEPS = 4


def step_gradients(k: int) -> dict[str, np.ndarray]:
    """Step k's gradient of each weight: growing for w, shrinking for gamma (so AMSGrad's maximum matters)."""
    return {
        "w": np.array([0.5, -0.25, 1.0]) * (k + 1),
        "gamma": np.array([[0.2, -0.3], [0.1, 0.05]]) / (k + 1),
    }


OPTIMIZER_PROGRAM = f"""
W0 = {W0!r}
def step_gradients(k):
    return {{"w": np.array([0.5, -0.25, 1.0]) * (k + 1), "gamma": np.array([[0.2, -0.3], [0.1, 0.05]]) / (k + 1)}}
p = [Parameter(Tensor(np.array(W0[n], np.float32)), name=n) for n in ("w", "gamma")]
class Ramp(nn.learning_rate_schedule.LearningRateSchedule):
    def construct(self, global_step):
        return ops.cast(global_step, ms.float32) * 0.01 + 0.05
opt = MAKE
for k in range({STEPS}):
    out = opt(tuple(Tensor(step_gradients(k)[q.name].astype(np.float32)) for q in opt.parameters))
own = sorted(q.name for q in opt.get_parameters() if q.name not in W0)  # MindSpore lists the weights too
result = ({{q.name: q.value() for q in p}}, opt.global_step.value(), np.array(out), [q.name for q in opt.parameters], own)
"""


def exponential_rates(lr, rate, steps, stair, n=STEPS):
    return [lr * rate ** (math.floor(s / steps) if stair else s / steps) for s in range(n)]


def cosine_rates(min_lr, max_lr, steps, n=STEPS):
    return [
        min_lr + 0.5 * (max_lr - min_lr) * (1 + math.cos(math.pi * min(s, steps) / steps)) for s in range(n)
    ]


def expect(rule: str, rates, decay=None, **hyper) -> dict[str, np.ndarray]:
    """The program's weights by :func:`reference`; ``rates`` and ``decay`` may differ per weight (dicts)."""
    out = {}
    for name in W0:
        r = rates[name] if isinstance(rates, dict) else rates
        d = (decay or {}).get(name, 0.0)
        grads = [step_gradients(k)[name] for k in range(STEPS)]
        out[name] = reference(rule, W0[name], grads, r, decay=d, **hyper)
    return out


RAMP = [0.05 + 0.01 * s for s in range(STEPS)]
OPTIMIZER_CASES = {  # name: (the optimizer, its expected weights, its own state's names)
    "adam": ("nn.Adam(p, 0.1)", lambda: expect("adam", [0.1] * 4), "adam"),
    "adam_weight_decay_and_loss_scale": (
        "nn.Adam(p, 0.1, weight_decay=0.1, loss_scale=4.0)",  # no decay for 'gamma' (MindSpore's rule)
        lambda: expect("adam", [0.1] * 4, {"w": 0.1}, loss_scale=4.0),
        "adam",
    ),
    "adam_nesterov": (
        "nn.Adam(p, 0.05, beta1=0.8, beta2=0.95, eps=1e-6, use_nesterov=True)",
        lambda: expect("adam", [0.05] * 4, beta1=0.8, beta2=0.95, eps=1e-6, nesterov=True),
        "adam",
    ),
    "adam_amsgrad": (
        "nn.Adam(p, 0.1, use_amsgrad=True)",
        lambda: expect("adam", [0.1] * 4, amsgrad=True),
        "ams",
    ),
    "adam_amsgrad_ignores_nesterov": (
        "nn.Adam(p, 0.1, use_amsgrad=True, use_nesterov=True)",
        lambda: expect("adam", [0.1] * 4, amsgrad=True, nesterov=True),
        "ams",
    ),
    "adam_lazy_on_dense_gradients": (
        "nn.Adam(p, 0.1, use_lazy=True)",
        lambda: expect("adam", [0.1] * 4),
        "adam",
    ),
    "adam_rate_per_step_list": (
        "nn.Adam(p, [0.1, 0.2, 0.05, 0.01])",
        lambda: expect("adam", [0.1, 0.2, 0.05, 0.01]),
        "adam",
    ),
    "adam_rate_per_step_tensor": (
        "nn.Adam(p, Tensor(np.array([0.1, 0.2, 0.05, 0.01], np.float32)))",
        lambda: expect("adam", [0.1, 0.2, 0.05, 0.01]),
        "adam",
    ),
    "adam_scalar_tensor_rate": (
        "nn.Adam(p, Tensor(np.array(0.07, np.float32)))",
        lambda: expect("adam", [0.07] * 4),
        "adam",
    ),
    "adam_exponential_decay_schedule": (
        "nn.Adam(p, nn.ExponentialDecayLR(0.1, 0.9, 2, True))",
        lambda: expect("adam", exponential_rates(0.1, 0.9, 2, True)),
        "adam_schedule",
    ),
    "adam_cosine_decay_schedule": (
        "nn.Adam(p, nn.CosineDecayLR(0.01, 0.1, 3))",
        lambda: expect("adam", cosine_rates(0.01, 0.1, 3)),
        "adam_schedule",
    ),
    "adam_own_schedule": ("nn.Adam(p, Ramp())", lambda: expect("adam", RAMP), "adam_schedule"),
    "adam_weight_decay_schedule": (
        "nn.Adam(p, 0.1, weight_decay=Ramp(), loss_scale=2.0)",
        lambda: expect("adam", [0.1] * 4, {"w": RAMP}, loss_scale=2.0),
        "adam",
    ),
    "adam_groups": (
        "nn.Adam([{'params': [p[0]], 'lr': 0.01, 'weight_decay': 0.2}, {'params': [p[1]]}], 0.1, weight_decay=0.05)",
        # grouped: every group decays, 'gamma' included
        lambda: expect("adam", {"w": [0.01] * 4, "gamma": [0.1] * 4}, {"w": 0.2, "gamma": 0.05}),
        "adam_groups",
    ),
    "adam_groups_per_step_rates_in_given_order": (
        "nn.Adam([{'params': [p[0]], 'lr': [0.01, 0.02, 0.03, 0.04]}, {'params': [p[1]], 'lr': nn.WarmUpLR(0.1, 3)},"
        " {'order_params': [p[1], p[0]]}], 0.1)",
        lambda: expect("adam", {"w": [0.01, 0.02, 0.03, 0.04], "gamma": [0.0, 0.1 / 3, 0.2 / 3, 0.1]}),
        "adam_group_lists",
    ),
    "adam_weight_decay_optimizer": (
        "nn.AdamWeightDecay(p, 0.1, weight_decay=0.1)",
        lambda: expect("adamwd", [0.1] * 4, {"w": 0.1}, eps=1e-6),
        "adamwd",
    ),
    "adam_weight_decay_optimizer_groups_and_polynomial_decay": (
        "nn.AdamWeightDecay([{'params': [p[0]], 'weight_decay': 0.0}, {'params': [p[1]], 'weight_decay': 0.3}],"
        " nn.PolynomialDecayLR(0.1, 0.01, 3, 2.0))",
        lambda: expect(
            "adamwd", [0.09 * (1 - min(s, 3) / 3) ** 2 + 0.01 for s in range(4)], {"gamma": 0.3}, eps=1e-6
        ),
        "adamwd_schedule",
    ),
    "sgd": ("nn.SGD(p, 0.1)", lambda: expect("sgd", [0.1] * 4), "sgd"),
    "sgd_momentum_dampening_weight_decay": (
        "nn.SGD(p, 0.1, momentum=0.9, dampening=0.3, weight_decay=0.05)",
        lambda: expect("sgd", [0.1] * 4, {"w": 0.05}, momentum=0.9, dampening=0.3),
        "sgd",
    ),
    "sgd_nesterov_loss_scale": (
        "nn.SGD(p, 0.1, momentum=0.9, nesterov=True, loss_scale=2.0, weight_decay=0.1)",
        lambda: expect("sgd", [0.1] * 4, {"w": 0.1}, loss_scale=2.0, momentum=0.9, nesterov=True),
        "sgd",
    ),
    "sgd_group_rate": (
        "nn.SGD([{'params': [p[0]], 'lr': 0.5}, {'params': [p[1]]}], 0.1, momentum=0.5)",
        lambda: expect("sgd", {"w": [0.5] * 4, "gamma": [0.1] * 4}, momentum=0.5),
        "sgd_groups",
    ),
    "momentum_weight_decay_loss_scale": (
        "nn.Momentum(p, 0.1, 0.9, weight_decay=0.1, loss_scale=2.0)",
        lambda: expect("momentum", [0.1] * 4, {"w": 0.1}, loss_scale=2.0, momentum=0.9),
        "momentum",
    ),
    "momentum_nesterov_rate_per_step": (
        "nn.Momentum(p, [0.1, 0.05, 0.02, 0.01], 0.9, use_nesterov=True)",
        lambda: expect("momentum", [0.1, 0.05, 0.02, 0.01], momentum=0.9, nesterov=True),
        "momentum",
    ),
}
ADAM_STATE = [
    "beta1_power",
    "beta2_power",
    "global_step",
    "moment1.gamma",
    "moment1.w",
    "moment2.gamma",
    "moment2.w",
]
STATE = {  # MindSpore's names of each optimizer's own Parameters (besides the weights)
    "adam": sorted([*ADAM_STATE, "learning_rate"]),
    "adam_schedule": ADAM_STATE,
    "ams": sorted([*ADAM_STATE, "learning_rate", "vhat.gamma", "vhat.w"]),
    "adam_groups": sorted([*ADAM_STATE, "learning_rate", "learning_rate_group_0"]),
    "adam_group_lists": sorted([*ADAM_STATE, "learning_rate_group_0"]),
    "adamwd": ["adam_m.gamma", "adam_m.w", "adam_v.gamma", "adam_v.w", "global_step", "learning_rate"],
    "adamwd_schedule": ["adam_m.gamma", "adam_m.w", "adam_v.gamma", "adam_v.w", "global_step"],
    "sgd": ["accum.gamma", "accum.w", "global_step", "learning_rate", "momentum", "stat.gamma", "stat.w"],
    "sgd_groups": sorted(
        ["accum.gamma", "accum.w", "global_step", "learning_rate", "learning_rate_group_0", "momentum"]
        + ["stat.gamma", "stat.w"]
    ),
    "momentum": ["global_step", "learning_rate", "moments.gamma", "moments.w", "momentum"],
}


def optimizer_program(name: str) -> str:
    return OPTIMIZER_PROGRAM.replace("MAKE", OPTIMIZER_CASES[name][0])


@pytest.mark.parametrize("name", sorted(OPTIMIZER_CASES))
def test_optimizer_steps_follow_the_textbook_rules(name, tmp_path):
    _, expected, state = OPTIMIZER_CASES[name]
    weights, step, out, order, own = run("symgrad", optimizer_program(name), tmp_path)
    assert_same(weights, expected(), rtol=2e-6, atol=1e-7, what=name)
    assert step.asnumpy().tolist() == [STEPS] and out.tolist() == [True, True]
    assert order == (["gamma", "w"] if "order" in name else ["w", "gamma"])
    assert own == STATE[state]


@needs_mindspore
@pytest.mark.parametrize("name", sorted(OPTIMIZER_CASES))
def test_optimizer_steps_match_mindspore(name, in_tmp):
    expected = run("mindspore", optimizer_program(name), in_tmp)
    got = run("symgrad", optimizer_program(name), in_tmp)
    assert_same(got[:3], expected[:3], rtol=1e-6, atol=1e-7, what=name)
    assert got[3:] == expected[3:]


# ----- gradients matched to the wrong Parameters -----
def two_weights():
    return [
        Parameter(Tensor(np.ones(3, np.float32)), name="w"),
        Parameter(Tensor(np.zeros(2, np.float32)), name="b"),
    ]


@pytest.mark.parametrize("make", [nn.Adam, nn.AdamWeightDecay, nn.SGD, lambda p: nn.Momentum(p, 0.1, 0.9)])
def test_optimizers_refuse_gradients_that_do_not_fit_their_parameters(make):
    p = two_weights()
    opt = make(p)
    g_w, g_b = Tensor(np.ones(3, np.float32)), Tensor(np.ones(2, np.float32))
    with pytest.raises(ValueError, match=r"gradient 0 has shape \(2,\), but it is matched to Parameter 'w'"):
        opt((g_b, g_w))  # swapped
    with pytest.raises(ValueError, match=r"1 gradients for 2 parameters \('w', 'b'\); .* by position"):
        opt((g_w,))
    with pytest.raises(TypeError, match=r"gradient 1, for Parameter 'b', is None"):
        opt((g_w, None))
    with pytest.raises(TypeError, match="one Tensor per Parameter"):
        opt(g_w)
    with pytest.raises(
        FloatingPointError, match=r"gradient of 'b' is inf at index \(1,\); no weight was changed"
    ):
        opt((g_w, Tensor(np.array([0.0, np.inf], np.float32))))
    assert [q.asnumpy().tolist() for q in p] == [[1.0, 1.0, 1.0], [0.0, 0.0]]
    assert opt.global_step.asnumpy().tolist() == [0]  # a refused call is no step
    opt((g_w, g_b))
    assert opt.global_step.asnumpy().tolist() == [1] and p[1].asnumpy().tolist() != [0.0, 0.0]


@needs_mindspore
def test_mindspore_also_refuses_a_gradient_of_another_shape(in_tmp):
    code = "p = [Parameter(f32(1.0, 1.0, 1.0), name='w'), Parameter(f32(0.0, 0.0), name='b')]\n"
    code += "result = nn.Adam(p)((f32(1.0, 1.0), f32(1.0, 1.0, 1.0)))"
    for lib in ("mindspore", "symgrad"):
        with pytest.raises(ValueError):
            run(lib, code, in_tmp)


def test_rate_lists_and_their_end():
    p = two_weights()
    opt = nn.SGD(p, [0.1, 0.2])
    grads = (Tensor(np.ones(3, np.float32)), Tensor(np.ones(2, np.float32)))
    assert opt.get_lr().asnumpy() == np.float32(0.1)
    opt(grads)
    assert opt.get_lr().asnumpy() == np.float32(0.2)
    opt(grads)
    np.testing.assert_allclose(p[0].asnumpy(), [1 - 0.3] * 3, rtol=1e-6)
    with pytest.raises(RuntimeError, match="has 2 values, none for step 2"):
        opt(grads)
    fixed = nn.Adam(two_weights(), 0.5)
    assert isinstance(fixed.get_lr(), Parameter) and fixed.get_lr().name == "learning_rate"
    grouped = nn.Momentum([{"params": [p[0]], "lr": 0.3}, {"params": [p[1]]}], 0.1, 0.9)
    assert [float(r.asnumpy()) for r in grouped.get_lr()] == [f32(0.3), f32(0.1)]
    assert grouped.get_lr_parameter(p[0]).name == "learning_rate_group_0"
    assert [r.name for r in grouped.get_lr_parameter([p[1], p[0]])] == [
        "learning_rate",
        "learning_rate_group_0",
    ]
    assert isinstance(nn.Adam(two_weights()), nn.Cell) and isinstance(nn.Adam(two_weights()), nn.Optimizer)


def test_optimizer_state_goes_with_the_training_cell():
    """As in MindSpore, a TrainOneStepCell's Parameters include its optimizer's state (what a checkpoint
    saves); the network's weights keep their names."""
    net = nn.Dense(2, 1)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params(), 0.1))
    assert [p.name for p in step.get_parameters()] == [
        "weight", "bias", "global_step", "learning_rate", "beta1_power", "beta2_power",
        "moment1.weight", "moment1.bias", "moment2.weight", "moment2.bias",
    ]  # fmt: skip
    assert [p.name for p in net.get_parameters()] == ["weight", "bias"]
