"""MindSpore 2.10's training API in symgrad: optimizers, learning-rate schedules and losses.

Every behaviour is asserted without MindSpore, against a NumPy reference written here or numbers
MindSpore 2.10 printed on the CPU; where MindSpore is installed the same programs also run on it
(``LIB`` is the library) and the two results are compared to float32 precision.
"""

from __future__ import annotations

import importlib.util
import math
import runpy
import warnings

import numpy as np
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import Parameter, Tensor, nn, ops
from symgrad.ops import GradOperation

needs_mindspore = pytest.mark.skipif(
    importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed (pip install mindspore)"
)

HEADER = """
import numpy as np
ms = __import__(LIB)
nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter
f32 = lambda *v: Tensor(np.array(v, np.float32))
"""


def run(lib: str, code: str, directory):
    """``result`` of ``code`` run against ``lib`` from a real file (MindSpore reads function source)."""
    path = directory / f"program_{lib}.py"
    path.write_text(HEADER.replace("LIB", repr(lib)) + code)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return runpy.run_path(str(path))["result"]


def arrays(value) -> list[np.ndarray]:
    """The leaves of nested tuples, lists and dicts as arrays, in order."""
    if isinstance(value, dict):
        return [a for k in sorted(value) for a in arrays(value[k])]
    if isinstance(value, tuple | list):
        return [a for item in value for a in arrays(item)]
    return [np.asarray(value.asnumpy() if hasattr(value, "asnumpy") else value)]


def assert_same(got, expected, rtol=1e-5, atol=1e-6, what=""):
    got, expected = arrays(got), arrays(expected)
    assert len(got) == len(expected), what
    for i, (g, e) in enumerate(zip(got, expected)):
        assert g.shape == e.shape, f"{what}[{i}]: shape {g.shape} != {e.shape}"
        if e.dtype.kind in "fc":
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=f"{what}[{i}]")
        else:
            np.testing.assert_array_equal(g, e, err_msg=f"{what}[{i}]")


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run MindSpore from a scratch directory (it writes its compiler's failure reports to the cwd)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def f32(value: float) -> float:
    """``value`` as MindSpore holds hyperparameters: rounded to float32."""
    return float(np.float32(value))


# ======================================================================================
# Optimizers
# ======================================================================================


def reference(
    rule: str,
    w,
    grads,
    rates,
    decay=0.0,
    loss_scale: float = 1.0,
    beta1: float = 0.9,
    beta2: float = 0.999,
    eps: float = 1e-8,
    momentum: float = 0.0,
    dampening: float = 0.0,
    nesterov: bool = False,
    amsgrad: bool = False,
) -> np.ndarray:
    """The weights after the steps, by the textbook rule in float64 (``decay`` a number or one per step)."""
    w = np.array(w, np.float64)
    b1, b2, eps, mu, damp = (f32(v) for v in (beta1, beta2, eps, momentum, dampening))
    m, v, v_max, accum = np.zeros_like(w), np.zeros_like(w), np.zeros_like(w), None
    b1_power = b2_power = np.float32(1)  # beta1^t and beta2^t: float32 Parameters in MindSpore
    for t, (g, lr) in enumerate(zip(grads, rates), start=1):
        lr, wd = f32(lr), f32(decay[t - 1] if isinstance(decay, list) else decay)
        g = np.asarray(g, np.float64)
        if rule == "adamwd":  # decoupled decay, no bias correction
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            w = w - lr * (m / (np.sqrt(v) + eps) + wd * w)
            continue
        g = (g + wd * loss_scale * w) / loss_scale
        if rule == "adam":
            m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
            v_max = np.maximum(v_max, v)
            top = b1 * m + (1 - b1) * g if nesterov and not amsgrad else m
            b1_power, b2_power = b1_power * np.float32(b1), b2_power * np.float32(b2)
            lr_t = lr * math.sqrt(1 - float(b2_power)) / (1 - float(b1_power))
            w = w - lr_t * top / (np.sqrt(v_max if amsgrad else v) + eps)
        elif rule == "momentum":  # Nesterov with the accumulation before the step, as MindSpore's kernel
            before = np.zeros_like(w) if accum is None else accum
            accum = mu * before + g
            w = w - lr * (g + mu * before if nesterov else accum)
        elif rule == "sgd":
            if mu > 0:
                accum = g if accum is None else mu * accum + (1 - damp) * g
                g = g + mu * accum if nesterov else accum
            w = w - lr * g
    return w


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


TRAIN_PROGRAM = """
w0 = np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]], np.float32)
x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [0.0, 1.0, 1.0]], np.float32))
targets = {
    "mse": Tensor(np.array([[0.3, 0.1], [-0.2, 0.4], [1.0, -1.0]], np.float32)),
    "smooth_l1": Tensor(np.array([[0.3, 0.1], [-0.2, 0.4], [1.0, -1.0]], np.float32)),
    "ce": Tensor(np.array([1, 0, 1], np.int32)),
    "bce_logits": Tensor(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], np.float32)),
}
losses = {"mse": nn.MSELoss(), "smooth_l1": nn.SmoothL1Loss(0.5, "mean"), "ce": nn.CrossEntropyLoss(label_smoothing=0.1),
          "bce_logits": nn.BCEWithLogitsLoss()}
optimizers = {
    "adam": lambda p: nn.Adam(p, nn.ExponentialDecayLR(0.1, 0.5, 2, True), weight_decay=0.01),
    "adamwd": lambda p: nn.AdamWeightDecay(p, nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1), weight_decay=0.1),
    "sgd": lambda p: nn.SGD(p, 0.1, momentum=0.9, dampening=0.5),
    "momentum": lambda p: nn.Momentum(p, nn.CosineDecayLR(0.01, 0.1, 5), 0.9, use_nesterov=True),
}
result = {}
for o, make in optimizers.items():
    for l, loss in losses.items():
        net = nn.Dense(3, 2, weight_init=Tensor(w0), bias_init=Tensor(np.array([0.1, -0.1], np.float32)))
        step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), make(net.trainable_params()))
        values = [step(x, targets[l]) for _ in range(5)]
        result[o + "_" + l] = (values, net.weight.value(), net.bias.value())
"""
MINDSPORE_TRAINED = {  # (losses, weight, bias) that MindSpore 2.10 printed for TRAIN_PROGRAM on the CPU
    "adam_ce": (
        [0.40479251742362976, 0.3434229791164398, 0.3009544909000397, 0.28461432456970215, 0.2714221477508545],
        [[0.5124022364616394, -0.7111868262290955, 0.2570056915283203], [0.17739956080913544, 0.611318826675415, -0.3494349718093872]],
        [-0.21474479138851166, 0.21474477648735046],
    ),
    "sgd_mse": (
        [0.9566667079925537, 0.635478675365448, 0.36505305767059326, 0.2442280650138855, 0.28062570095062256],
        [[0.24324068427085876, 0.28621742129325867, -0.13256299495697021], [0.40642306208610535, -0.4178144931793213, 0.11419621855020523]],
        [0.3484475016593933, -0.3485976457595825],
    ),
    "momentum_bce_logits": (
        [0.9904265999794006, 0.9487840533256531, 0.8804259300231934, 0.8127050399780273, 0.765604555606842],
        [[0.2334872931241989, -0.16505685448646545, -0.04997139796614647], [0.4477684795856476, 0.15488046407699585, 0.06820882111787796]],
        [0.15922953188419342, -0.06457114219665527],
    ),
    "adamwd_smooth_l1": (
        [0.7166666984558105, 0.36730673909187317, 0.5105204582214355, 0.3366507291793823, 0.12298417091369629],
        [[-0.6948765516281128, 0.13901978731155396, 0.10576926916837692], [1.3542394638061523, -0.23552511632442474, -0.1579165905714035]],
        [0.5524255037307739, -0.5176822543144226],
    ),
}  # fmt: skip


def test_train_one_step_cell_gives_what_mindspore_printed(tmp_path):
    got = run("symgrad", TRAIN_PROGRAM, tmp_path)
    for name, (losses, weight, bias) in MINDSPORE_TRAINED.items():
        expected = [np.float32(v) for v in losses], np.array(weight, np.float32), np.array(bias, np.float32)
        assert_same(got[name], expected, rtol=1e-5, atol=1e-6, what=name)


@needs_mindspore
def test_train_one_step_cell_with_every_optimizer_and_loss_matches_mindspore(in_tmp):
    expected, got = run("mindspore", TRAIN_PROGRAM, in_tmp), run("symgrad", TRAIN_PROGRAM, in_tmp)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert_same(got[name], expected[name], rtol=1e-5, atol=1e-6, what=name)


@pytest.mark.parametrize(
    "make",
    [
        lambda p: nn.Adam(p, nn.InverseDecayLR(0.1, 0.5, 1), weight_decay=0.01, use_amsgrad=True),
        lambda p: nn.AdamWeightDecay(p, [0.1, 0.05, 0.02], weight_decay=0.1),
        lambda p: nn.SGD(p, 0.1, momentum=0.9, nesterov=True, loss_scale=8.0),
        lambda p: nn.Momentum(p, 0.1, 0.9, weight_decay=0.1),
    ],
)
def test_train_one_step_cell_is_the_gradient_by_list_then_the_optimizer(make):
    """TrainOneStepCell and ``optimizer(GradOperation(get_by_list=True)(loss, optimizer.parameters)(...))``
    (MindSpore's matching of gradients to Parameters by position) take the same steps, bit for bit."""
    x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
    y = Tensor(np.array([[0.3, 0.1], [-0.2, 0.4]], np.float32))
    nets = [
        nn.Dense(
            3,
            2,
            weight_init=Tensor(np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]], np.float32)),
            bias_init="zeros",
        )
        for _ in "ab"
    ]
    loss_nets = [nn.WithLossCell(net, nn.MSELoss()) for net in nets]
    step = nn.TrainOneStepCell(loss_nets[0], make(nets[0].trainable_params()))
    optimizer = make(nets[1].trainable_params())
    grad = GradOperation(get_by_list=True)(loss_nets[1], optimizer.parameters)
    for _ in range(3):
        expected_loss = loss_nets[1](x, y).asnumpy()
        assert optimizer(grad(x, y)) == (True, True)
        np.testing.assert_array_equal(step(x, y).asnumpy(), expected_loss)
    for a, b in zip(nets[0].trainable_params(), nets[1].trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


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


# ----- properties against the NumPy reference -----
shapes = st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple)
dtypes = st.sampled_from([np.float32, np.float64])


def tolerance(dtype) -> dict:
    return {"rtol": 1e-6, "atol": 1e-9} if dtype == np.float64 else {"rtol": 2e-5, "atol": 2e-6}


def run_steps(opt, weight: Parameter, grads) -> np.ndarray:
    for g in grads:
        opt((Tensor(g),))
    return weight.asnumpy()


def weight_and_grads(seed: int, shape, dtype, steps: int, name: str = "w"):
    rng = np.random.default_rng(seed)
    w0 = rng.uniform(-2, 2, shape).astype(dtype)
    grads = [rng.normal(0, 1, shape).astype(dtype) for _ in range(steps)]
    return w0, Parameter(Tensor(w0), name=name), grads


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    steps=st.integers(1, 4),
    lr=st.floats(1e-4, 1.0),
    beta1=st.floats(0.05, 0.99),
    beta2=st.floats(0.5, 0.9999),
    eps=st.sampled_from([1e-8, 1e-6, 1e-3]),
    weight_decay=st.sampled_from([0.0, 0.01, 0.5]),
    loss_scale=st.sampled_from([1.0, 4.0, 1024.0]),
    nesterov=st.booleans(),
    amsgrad=st.booleans(),
    locking=st.booleans(),
    dense_variant=st.sampled_from([{}, {"use_lazy": True}, {"use_offload": True}]),
    name=st.sampled_from(["w", "ln.gamma", "bn.beta"]),
)
def test_adam_property(
    seed, shape, dtype, steps, lr, beta1, beta2, eps, weight_decay, loss_scale, nesterov, amsgrad, locking,
    dense_variant, name,
):  # fmt: skip
    """use_locking, and use_lazy or use_offload (which differ for sparse gradients only), change nothing."""
    w0, w, grads = weight_and_grads(seed, shape, dtype, steps, name)
    opt = nn.Adam(
        [w], lr, beta1, beta2, eps, locking, nesterov, weight_decay, loss_scale, amsgrad,
        **({} if amsgrad else dense_variant),
    )  # fmt: skip
    decay = weight_decay if name == "w" else 0.0  # names with beta or gamma are not decayed
    expected = reference(
        "adam",
        w0,
        grads,
        [lr] * steps,
        decay,
        loss_scale,
        beta1,
        beta2,
        eps,
        nesterov=nesterov,
        amsgrad=amsgrad,
    )
    got = run_steps(opt, w, grads)
    assert got.dtype == dtype and got.shape == shape
    np.testing.assert_allclose(got, expected, **tolerance(dtype))


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    steps=st.integers(1, 4),
    lr=st.floats(1e-4, 1.0),
    beta1=st.floats(0.05, 0.99),
    beta2=st.floats(0.5, 0.9999),
    eps=st.sampled_from([1e-6, 1e-3]),
    weight_decay=st.sampled_from([0.0, 0.01, 0.5]),
)
def test_adam_weight_decay_property(seed, shape, dtype, steps, lr, beta1, beta2, eps, weight_decay):
    w0, w, grads = weight_and_grads(seed, shape, dtype, steps)
    opt = nn.AdamWeightDecay([w], lr, beta1, beta2, eps, weight_decay)
    expected = reference("adamwd", w0, grads, [lr] * steps, weight_decay, 1.0, beta1, beta2, eps)
    np.testing.assert_allclose(run_steps(opt, w, grads), expected, **tolerance(dtype))


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    steps=st.integers(1, 4),
    lr=st.floats(1e-4, 1.0),
    momentum=st.sampled_from([0.0, 0.5, 0.9, 0.99]),
    dampening=st.sampled_from([0.0, 0.1, 0.7]),
    nesterov=st.booleans(),
    weight_decay=st.sampled_from([0.0, 0.01, 0.5]),
    loss_scale=st.sampled_from([1.0, 4.0]),
)
def test_sgd_property(seed, shape, dtype, steps, lr, momentum, dampening, nesterov, weight_decay, loss_scale):
    nesterov = nesterov and momentum > 0
    dampening = 0.0 if nesterov else dampening
    w0, w, grads = weight_and_grads(seed, shape, dtype, steps)
    opt = nn.SGD([w], lr, momentum, dampening, weight_decay, nesterov, loss_scale)
    expected = reference(
        "sgd", w0, grads, [lr] * steps, weight_decay, loss_scale,
        momentum=momentum, dampening=dampening, nesterov=nesterov,
    )  # fmt: skip
    np.testing.assert_allclose(run_steps(opt, w, grads), expected, **tolerance(dtype))


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    steps=st.integers(1, 4),
    lr=st.floats(1e-4, 1.0),
    momentum=st.sampled_from([0.0, 0.5, 0.9]),
    nesterov=st.booleans(),
    weight_decay=st.sampled_from([0.0, 0.01, 0.5]),
    loss_scale=st.sampled_from([1.0, 4.0]),
)
def test_momentum_property(seed, shape, dtype, steps, lr, momentum, nesterov, weight_decay, loss_scale):
    w0, w, grads = weight_and_grads(seed, shape, dtype, steps)
    opt = nn.Momentum([w], lr, momentum, weight_decay, loss_scale, nesterov)
    expected = reference(
        "momentum", w0, grads, [lr] * steps, weight_decay, loss_scale, momentum=momentum, nesterov=nesterov
    )
    np.testing.assert_allclose(run_steps(opt, w, grads), expected, **tolerance(dtype))


class _Ramp(nn.Cell):
    """A weight decay that grows with the step (a Cell of the step, as MindSpore's dynamic decay)."""

    def construct(self, global_step):
        return ops.cast(global_step, np.float32) * 0.01 + 0.02


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    dtype=dtypes,
    groups=st.lists(
        st.tuples(
            st.integers(1, 2),  # Parameters in the group
            st.none()
            | st.floats(1e-3, 0.5)
            | st.lists(st.floats(0.0, 0.5), min_size=3, max_size=3),  # its lr
            st.none() | st.sampled_from([0.0, 0.1, "ramp"]),  # its weight_decay
        ),
        min_size=1,
        max_size=3,
    ),
    default_decay=st.sampled_from([0.0, 0.05, "ramp"]),
    reverse=st.booleans(),
    rule=st.sampled_from(["adam", "momentum"]),
)
def test_parameter_groups_property(seed, dtype, groups, default_decay, reverse, rule):
    """Each group's lr (a number or one per step) and weight_decay (a number or a Cell of the step),
    the optimizer's where a group has none; ``order_params`` orders ``optimizer.parameters``."""
    rng = np.random.default_rng(seed)
    steps, default_lr = 3, 0.1
    spec, weights, grads, dicts = [], [], {}, []
    ramp = [0.02 + 0.01 * s for s in range(steps)]
    for k, (count, lr, decay) in enumerate(groups):
        members = []
        for j in range(count):
            name = f"g{k}.w{j}"  # no beta/gamma: every grouped weight with a decay > 0 decays
            w0 = rng.uniform(-2, 2, (2,)).astype(dtype)
            members.append(Parameter(Tensor(w0), name=name))
            grads[name] = [rng.normal(0, 1, (2,)).astype(dtype) for _ in range(steps)]
            rates = [default_lr] * steps if lr is None else lr if isinstance(lr, list) else [lr] * steps
            d = default_decay if decay is None else decay
            spec.append((name, w0, rates, ramp if d == "ramp" else d))
        group: dict = {"params": members}
        if lr is not None:
            group["lr"] = lr
        if decay is not None:
            group["weight_decay"] = _Ramp() if decay == "ramp" else decay
        dicts.append(group)
        weights += members
    order = weights[::-1] if reverse else weights
    if reverse:
        dicts.append({"order_params": order})
    decay_arg = _Ramp() if default_decay == "ramp" else default_decay
    if rule == "adam":
        opt = nn.Adam(dicts, default_lr, weight_decay=decay_arg)
    else:
        opt = nn.Momentum(dicts, default_lr, 0.9, weight_decay=decay_arg)
    assert [p.name for p in opt.parameters] == [p.name for p in order]
    for step in range(steps):
        opt(tuple(Tensor(grads[p.name][step]) for p in opt.parameters))
    for (name, w0, rates, decay), p in zip(spec, weights):
        expected = reference(rule, w0, grads[name], rates, decay, momentum=0.9 if rule == "momentum" else 0.0)
        np.testing.assert_allclose(p.asnumpy(), expected, **tolerance(dtype), err_msg=name)


class _Listed(nn.LearningRateSchedule):
    def __init__(self, rates):
        super().__init__()
        self.rates = rates

    def construct(self, global_step):
        return Tensor(np.float32(self.rates[int(global_step.asnumpy()[0])]))


@settings(max_examples=25)
@given(
    seed=st.integers(0, 2**16),
    rates=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=4),
    form=st.sampled_from(["list", "tuple", "array", "tensor", "schedule"]),
)
def test_every_form_of_per_step_rates_property(seed, rates, form):
    w0, w, grads = weight_and_grads(seed, (3,), np.float32, len(rates))
    given_rates = {
        "list": list(rates), "tuple": tuple(rates), "array": np.array(rates),
        "tensor": Tensor(np.array(rates, np.float32)), "schedule": _Listed(rates),
    }[form]  # fmt: skip
    opt = nn.SGD([w], given_rates, momentum=0.5)
    expected = reference("sgd", w0, grads, rates, momentum=0.5)
    np.testing.assert_allclose(run_steps(opt, w, grads), expected, **tolerance(np.float32))


# ======================================================================================
# Learning rates
# ======================================================================================


def reference_lr_list(name: str, *args) -> list[float]:
    """Per-step rates of the ``nn.*_lr`` functions, written independently of symgrad's loop (NumPy)."""
    if name == "piecewise_constant_lr":
        milestone, rates = args
        return np.repeat(rates, np.diff([0, *milestone])).tolist()
    if name == "warmup_lr":
        lr, total, per_epoch, warmup = args
        epoch = np.arange(total) // per_epoch
        return (lr * np.minimum(epoch, warmup) / warmup).tolist()
    if name == "cosine_decay_lr":
        low, high, total, per_epoch, decay_epoch = args
        epoch = np.minimum(np.arange(total) // per_epoch, decay_epoch)
        return (low + 0.5 * (high - low) * (1 + np.cos(np.pi * epoch / decay_epoch))).tolist()
    if name == "polynomial_decay_lr":
        lr, end, total, per_epoch, decay_epoch, power, *update = args
        epoch = np.arange(total) // per_epoch
        if update and update[0]:
            horizon = decay_epoch * np.maximum(np.ceil(epoch / decay_epoch), 1)
        else:
            horizon, epoch = decay_epoch, np.minimum(epoch, decay_epoch)
        return ((lr - end) * (1 - epoch / horizon) ** power + end).tolist()
    lr, rate, total, per_epoch, decay_epoch, *stair = args
    p = (np.arange(total) // per_epoch) / decay_epoch
    if stair and stair[0]:
        p = np.floor(p) * (decay_epoch if name == "natural_exp_decay_lr" else 1)
    elif name == "natural_exp_decay_lr":
        p = p * decay_epoch
    return {
        "exponential_decay_lr": lambda: lr * rate**p,
        "natural_exp_decay_lr": lambda: lr * np.exp(-rate * p),
        "inverse_decay_lr": lambda: lr / (1 + rate * p),
    }[name]().tolist()


LR_LISTS = [
    ("exponential_decay_lr", (0.1, 0.9, 12, 2, 3)),
    ("exponential_decay_lr", (0.1, 0.9, 12, 2, 3, True)),
    ("natural_exp_decay_lr", (0.1, 0.3, 12, 2, 3)),
    ("natural_exp_decay_lr", (0.1, 0.3, 12, 2, 3, True)),
    ("inverse_decay_lr", (0.1, 0.5, 12, 2, 3)),
    ("inverse_decay_lr", (0.1, 0.5, 12, 2, 3, True)),
    ("cosine_decay_lr", (0.01, 0.1, 12, 2, 3)),
    ("polynomial_decay_lr", (0.1, 0.01, 12, 2, 3, 0.5)),
    ("polynomial_decay_lr", (0.1, 0.01, 14, 2, 3, 2.0, True)),
    ("warmup_lr", (0.1, 12, 2, 3)),
    ("piecewise_constant_lr", ([2, 5, 10], [0.1, 0.05, 0.01])),
]
MINDSPORE_LISTS = {  # printed by MindSpore 2.10
    ("exponential_decay_lr", True): [0.1] * 6 + [0.09000000000000001] * 6,
    ("cosine_decay_lr", False): [0.1, 0.1, 0.0775, 0.0775] + [0.032500000000000015] * 2 + [0.01] * 6,
    ("piecewise_constant_lr", False): [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01],
    ("warmup_lr", False): [0.0, 0.0, 0.03333333333333333, 0.03333333333333333, 0.06666666666666667,
                           0.06666666666666667] + [0.10000000000000002] * 6,
}  # fmt: skip


@pytest.mark.parametrize(("name", "args"), LR_LISTS)
def test_learning_rate_lists(name, args):
    got = getattr(nn, name)(*args)
    assert isinstance(got, list) and all(isinstance(v, float) for v in got)
    np.testing.assert_allclose(got, reference_lr_list(name, *args), rtol=1e-13, atol=0)
    key = (name, args[-1] is True)
    if key in MINDSPORE_LISTS:
        assert got == MINDSPORE_LISTS[key]


@needs_mindspore
def test_learning_rate_lists_are_mindsporess_to_the_bit(in_tmp):
    code = f"result = [getattr(nn, name)(*args) for name, args in {LR_LISTS!r}]"
    assert run("symgrad", code, in_tmp) == run("mindspore", code, in_tmp)


@settings(max_examples=60)
@given(
    name=st.sampled_from(["exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr"]),
    lr=st.floats(1e-4, 1.0),
    rate=st.floats(0.01, 2.0),
    total=st.integers(1, 30),
    per_epoch=st.integers(1, 5),
    decay_epoch=st.integers(1, 5),
    stair=st.booleans(),
)
def test_decay_lists_property(name, lr, rate, total, per_epoch, decay_epoch, stair):
    args = (lr, rate, total, per_epoch, decay_epoch, stair)
    np.testing.assert_allclose(getattr(nn, name)(*args), reference_lr_list(name, *args), rtol=1e-12)


@settings(max_examples=60)
@given(
    low=st.floats(0.0, 0.5),
    span=st.floats(1e-3, 1.0),
    power=st.floats(0.1, 3.0),
    total=st.integers(1, 30),
    per_epoch=st.integers(1, 5),
    decay_epoch=st.integers(1, 5),
    update=st.booleans(),
    milestones=st.lists(st.integers(1, 6), min_size=1, max_size=4),
)
def test_cosine_polynomial_warmup_and_piecewise_lists_property(
    low, span, power, total, per_epoch, decay_epoch, update, milestones
):
    high = low + span
    for name, args in [
        ("cosine_decay_lr", (low, high, total, per_epoch, decay_epoch)),
        ("polynomial_decay_lr", (high, low, total, per_epoch, decay_epoch, power, update)),
        ("warmup_lr", (high, total, per_epoch, decay_epoch)),
        (
            "piecewise_constant_lr",
            (list(np.cumsum(milestones).tolist()), [low + k * span for k in range(len(milestones))]),
        ),
    ]:
        np.testing.assert_allclose(
            getattr(nn, name)(*args), reference_lr_list(name, *args), rtol=1e-12, atol=1e-15
        )


def reference_schedule(name: str, args: tuple, step: int) -> float:
    """The schedules' rate at ``step`` as MindSpore computes it in float32."""
    s = np.float32(step)
    if name == "CosineDecayLR":
        low, high, n = args
        return low + 0.5 * (high - low) * (1 + math.cos(math.pi * min(step, n) / n))
    if name == "PolynomialDecayLR":
        lr, end, n, power, *update = args
        horizon = n * max(math.ceil(step / n), 1) if update and update[0] else n
        return (lr - end) * (1 - min(step, horizon) / horizon) ** power + end
    if name == "WarmUpLR":
        lr, n = args
        return lr * min(step, n) / n
    lr, rate, n, *stair = args
    p = float(s / np.float32(n))
    if name == "NaturalExpDecayLR":
        return lr * math.exp(-rate * (step // n * n if stair and stair[0] else step))
    p = math.floor(p) if stair and stair[0] else p
    return lr * rate**p if name == "ExponentialDecayLR" else lr / (1 + rate * p)


SCHEDULES = [
    ("ExponentialDecayLR", (0.1, 0.9, 4)),
    ("ExponentialDecayLR", (0.1, 0.9, 4, True)),
    ("NaturalExpDecayLR", (0.1, 0.3, 4)),
    ("NaturalExpDecayLR", (0.1, 0.3, 4, True)),
    ("InverseDecayLR", (0.1, 0.5, 4)),
    ("InverseDecayLR", (0.1, 0.5, 4, True)),
    ("CosineDecayLR", (0.01, 0.1, 6)),
    ("PolynomialDecayLR", (0.1, 0.01, 6, 0.5)),
    ("PolynomialDecayLR", (0.1, 0.01, 4, 2.0, True)),
    ("WarmUpLR", (0.1, 6)),
]
SCHEDULE_STEPS = (0, 1, 2, 3, 5, 7, 10, 13)
MINDSPORE_SCHEDULES = {  # printed by MindSpore 2.10 at SCHEDULE_STEPS
    ("CosineDecayLR", False): [0.1, 0.0939711481, 0.0774999931, 0.0549999997, 0.0160288661, 0.01, 0.01, 0.01],
    ("PolynomialDecayLR", True): [
        0.1,
        0.060625,
        0.0325,
        0.015625,
        0.02265625,
        0.01140625,
        0.0125,
        0.013164062,
    ],
}


@pytest.mark.parametrize(("name", "args"), SCHEDULES)
def test_learning_rate_schedules(name, args):
    cell = getattr(nn, name)(*args)
    assert isinstance(cell, nn.LearningRateSchedule) and isinstance(cell, nn.Cell)
    for step in SCHEDULE_STEPS:
        value = cell(Tensor(np.array([step], np.int32)))
        assert value.shape == (1,) and value.dtype == np.float32
        np.testing.assert_allclose(value.asnumpy(), [reference_schedule(name, args, step)], rtol=1e-6)
    assert cell(Tensor(3, np.int32)).shape == ()  # the step's shape
    key = (name, args[-1] is True)
    if key in MINDSPORE_SCHEDULES:
        got = [cell(Tensor(np.array([s], np.int32))).asnumpy()[0] for s in SCHEDULE_STEPS]
        np.testing.assert_allclose(got, MINDSPORE_SCHEDULES[key], rtol=1e-6)


@needs_mindspore
def test_learning_rate_schedules_match_mindspore(in_tmp):
    code = f"""
steps = [Tensor(np.array([s], np.int32)) for s in {SCHEDULE_STEPS!r}]
result = [[getattr(nn, name)(*args)(s) for s in steps] for name, args in {SCHEDULES!r}]
"""
    assert_same(run("symgrad", code, in_tmp), run("mindspore", code, in_tmp), rtol=1e-6, atol=0)


@settings(max_examples=60)
@given(
    name=st.sampled_from(["ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR"]),
    lr=st.floats(1e-4, 1.0),
    rate=st.floats(0.01, 0.99),
    n=st.integers(1, 10),
    stair=st.booleans(),
    step=st.integers(0, 40),
)
def test_decay_schedules_property(name, lr, rate, n, stair, step):
    value = getattr(nn, name)(lr, rate, n, stair)(Tensor(np.array([step], np.int32)))
    np.testing.assert_allclose(
        value.asnumpy(), [reference_schedule(name, (lr, rate, n, stair), step)], rtol=2e-6
    )


@settings(max_examples=60)
@given(
    low=st.floats(0.0, 0.5),
    span=st.floats(1e-3, 1.0),
    power=st.floats(0.1, 3.0),
    n=st.integers(1, 10),
    update=st.booleans(),
    step=st.integers(0, 40),
)
def test_cosine_polynomial_and_warmup_schedules_property(low, span, power, n, update, step):
    high = low + span
    for name, args in [
        ("CosineDecayLR", (low, high, n)),
        ("PolynomialDecayLR", (high, low, n, power, update)),
        ("WarmUpLR", (high, n)),
    ]:
        value = getattr(nn, name)(*args)(Tensor(np.array([step], np.int32))).asnumpy()
        np.testing.assert_allclose(value, [reference_schedule(name, args, step)], rtol=2e-6, atol=1e-9)


# ======================================================================================
# Losses
# ======================================================================================


def reduce_np(values: np.ndarray, reduction: str):
    return values.mean() if reduction == "mean" else values.sum() if reduction == "sum" else values


def smooth_l1_np(x, y, beta, reduction):
    """(value, d value.sum() / dx)."""
    beta = f32(beta)
    d = x - y
    small = np.abs(d) < beta
    value = np.where(small, 0.5 * d * d / beta, np.abs(d) - 0.5 * beta)
    grad = np.where(small, d / beta, np.sign(d))
    return reduce_np(value, reduction), grad / (d.size if reduction == "mean" else 1)


def huber_np(x, y, delta, reduction):
    d = x - y
    small = np.abs(d) < delta
    value = np.where(small, 0.5 * d * d, delta * (np.abs(d) - 0.5 * delta))
    grad = np.where(small, d, delta * np.sign(d))
    return reduce_np(value, reduction), grad / (d.size if reduction == "mean" else 1)


def bce_with_logits_np(x, t, weight, pos_weight, reduction):
    w = 1.0 if weight is None else weight
    scale = 1.0 if pos_weight is None else 1 + (pos_weight - 1) * t
    softplus = np.logaddexp(0, -x)
    value = w * ((1 - t) * x + scale * softplus)
    grad = w * ((1 - t) - scale / (1 + np.exp(x)))
    grad = np.broadcast_to(grad, x.shape)
    return reduce_np(value, reduction), grad / (x.size if reduction == "mean" else 1)


def bce_np(p, t, weight, reduction):
    eps = 1e-12
    w = 1.0 if weight is None else weight
    value = -w * (t * np.log(p + eps) + (1 - t) * np.log(1 - p + eps))
    grad = -w * (t / (p + eps) - (1 - t) / (1 - p + eps))
    return reduce_np(value, reduction), grad / (p.size if reduction == "mean" else 1)


def cross_entropy_np(logits, target, weight, ignore_index, reduction, smoothing):
    """(value, d value.sum() / d logits): the loss is ``-sum(Q * log_softmax)`` for target weights Q,
    whose gradient is ``softmax * sum_c(Q) - Q``."""
    axis = 0 if logits.ndim == 1 else 1
    classes = logits.shape[axis]
    along = [1] * logits.ndim
    along[axis] = classes
    w = np.ones(classes) if weight is None else weight
    w = w.reshape(along)
    shifted = logits - logits.max(axis, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis, keepdims=True))
    if target.dtype.kind == "f":
        q = (target * (1 - smoothing) + smoothing / classes) * w
        norm = logits.size / classes if reduction == "mean" else 1.0
    else:
        keep = np.expand_dims(target != ignore_index, axis)
        one_hot = (np.expand_dims(np.where(target == ignore_index, 0, target % classes), axis)
                   == np.arange(classes).reshape(along))  # fmt: skip
        q = w * keep * ((1 - smoothing) * one_hot + smoothing / classes)
        norm = (w * one_hot * keep).sum() if reduction == "mean" else 1.0
    per_example = -(q * log_p).sum(axis) / norm
    value = per_example if reduction == "none" else per_example.sum()
    grad = (np.exp(log_p) * q.sum(axis, keepdims=True) - q) / norm
    return value, grad


def value_and_input_grad(loss, *args):
    """The loss and the gradient of its sum in the first argument, from symgrad."""
    value = loss(*args)
    return value, ops.grad(lambda a: loss(a, *args[1:]).sum())(args[0])


def close(dtype) -> dict:
    return {"rtol": 1e-10, "atol": 1e-12} if dtype == np.float64 else {"rtol": 2e-5, "atol": 2e-6}


reductions = st.sampled_from(["none", "mean", "sum"])


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    beta=st.floats(0.05, 3.0),
    reduction=reductions,
)
def test_smooth_l1_loss_property(seed, shape, dtype, beta, reduction):
    rng = np.random.default_rng(seed)
    x, y = (rng.normal(0, 2, shape).astype(dtype) for _ in range(2))
    value, grad = value_and_input_grad(nn.SmoothL1Loss(beta, reduction), Tensor(x), Tensor(y))
    expected_value, expected_grad = smooth_l1_np(x.astype(float), y.astype(float), beta, reduction)
    assert value.dtype == dtype and grad.dtype == dtype
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=shapes,
    dtype=dtypes,
    delta=st.floats(0.05, 3.0) | st.integers(1, 3),
    reduction=reductions,
)
def test_huber_loss_property(seed, shape, dtype, delta, reduction):
    rng = np.random.default_rng(seed)
    x, y = (rng.normal(0, 2, shape).astype(dtype) for _ in range(2))
    value, grad = value_and_input_grad(nn.HuberLoss(reduction, delta), Tensor(x), Tensor(y))
    expected_value, expected_grad = huber_np(x.astype(float), y.astype(float), delta, reduction)
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))


@settings(max_examples=40)
@given(
    seed=st.integers(0, 2**16),
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
    dtype=dtypes,
    reduction=reductions,
    weighted=st.sampled_from(["none", "full", "last_axis"]),
    pos_weighted=st.sampled_from(["none", "full", "last_axis"]),
)
def test_bce_with_logits_loss_property(seed, shape, dtype, reduction, weighted, pos_weighted):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, shape).astype(dtype)
    t = rng.uniform(0, 1, shape).astype(dtype)
    shapes_of = {"none": None, "full": shape, "last_axis": shape[-1:]}
    w, pw = (
        None if shapes_of[k] is None else rng.uniform(0.1, 3, shapes_of[k]).astype(dtype)
        for k in (weighted, pos_weighted)
    )
    loss = nn.BCEWithLogitsLoss(
        reduction, None if w is None else Tensor(w), None if pw is None else Tensor(pw)
    )
    value, grad = value_and_input_grad(loss, Tensor(x), Tensor(t))

    def cast(a):
        return None if a is None else a.astype(float)

    expected_value, expected_grad = bce_with_logits_np(
        x.astype(float), t.astype(float), cast(w), cast(pw), reduction
    )
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))
    functional = nn.loss.binary_cross_entropy_with_logits(
        Tensor(x), Tensor(t), loss.weight, loss.pos_weight, reduction
    )
    np.testing.assert_array_equal(functional.asnumpy(), value.asnumpy())


@settings(max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    shape=st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple),
    dtype=dtypes,
    reduction=reductions,
    weighted=st.booleans(),
)
def test_bce_loss_property(seed, shape, dtype, reduction, weighted):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, shape).astype(dtype)
    t = rng.uniform(0, 1, shape).astype(dtype)
    w = rng.uniform(0.1, 3, shape).astype(dtype) if weighted else None
    loss = nn.BCELoss(None if w is None else Tensor(w), reduction)
    value, grad = value_and_input_grad(loss, Tensor(p), Tensor(t))
    expected_value, expected_grad = bce_np(
        p.astype(float), t.astype(float), None if w is None else w.astype(float), reduction
    )
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))


@settings(max_examples=50)
@given(
    seed=st.integers(0, 2**16),
    batch=st.lists(st.integers(1, 3), min_size=0, max_size=3).map(tuple),
    classes=st.integers(1, 4),
    dtype=dtypes,
    reduction=reductions,
    weighted=st.booleans(),
    smoothing=st.sampled_from([0.0, 0.1, 0.5, 1.0, 1.5]),
    ignore_index=st.sampled_from([-100, 0, 1]),
    labels=st.sampled_from(["indices", "probabilities"]),
)
def test_cross_entropy_property(
    seed, batch, classes, dtype, reduction, weighted, smoothing, ignore_index, labels
):
    rng = np.random.default_rng(seed)
    shape = (classes,) if not batch else (batch[0], classes, *batch[1:])
    logits = rng.normal(0, 2, shape).astype(dtype)
    weight = rng.uniform(0.1, 3, classes).astype(dtype) if weighted else None
    if labels == "indices":
        target = rng.integers(-classes, classes, shape[:1] + shape[2:] if batch else ()).astype(np.int32)
        target[rng.uniform(size=target.shape) < 0.2] = ignore_index
        if reduction == "mean" and np.all(target == ignore_index):
            target[...] = classes - 1 if ignore_index != classes - 1 else 0  # a mean over nothing is NaN
    else:
        target = rng.dirichlet(np.ones(classes), shape[:1] + shape[2:] if batch else ())
        target = np.moveaxis(target, -1, 1 if batch else 0).astype(dtype)
    args = (weight if weight is None else Tensor(weight), ignore_index, reduction, smoothing)
    value, grad = value_and_input_grad(
        lambda x, t: ops.cross_entropy(x, t, *args), Tensor(logits), Tensor(target)
    )
    expected_value, expected_grad = cross_entropy_np(
        logits.astype(float), target if labels == "indices" else target.astype(float),
        None if weight is None else weight.astype(float), ignore_index, reduction, smoothing,
    )  # fmt: skip
    np.testing.assert_allclose(value.asnumpy(), expected_value, **close(dtype))
    np.testing.assert_allclose(grad.asnumpy(), expected_grad, **close(dtype))
    if (
        smoothing <= 1.0
        and dtype == np.float32
        and (labels == "probabilities" or target.ndim == logits.ndim - 1)
    ):
        cell = nn.CrossEntropyLoss(args[0], ignore_index, reduction, smoothing)
        np.testing.assert_array_equal(cell(Tensor(logits), Tensor(target)).asnumpy(), value.asnumpy())


def test_loss_gradients_are_the_closed_forms_sympy_derives():
    t, pw = sympy.Rational(1, 5), sympy.Integer(2)
    loss = nn.BCEWithLogitsLoss("sum", pos_weight=Tensor(np.array([2.0, 2.0])))
    g = ops.grad(lambda x: loss(x, Tensor(np.array([0.2, 0.2]))))(Tensor(np.array([0.3, -1.2])))
    inputs = sorted(
        sympy.Matrix(g.expr).free_symbols, key=str
    )  # x1, x2: symgrad names inputs after the argument
    for a, got in zip(inputs, g.expr):
        forward = (1 - t) * a + (1 + (pw - 1) * t) * sympy.log(1 + sympy.exp(-a))
        assert sympy.simplify(sympy.nsimplify(got) - sympy.diff(forward, a)) == 0
    ce = nn.CrossEntropyLoss(label_smoothing=0.25)
    g = ops.grad(lambda x: ce(x, Tensor(np.array([1, 0], np.int32))))(
        Tensor(np.array([[0.3, -1.2], [0.5, 0.1]]))
    )
    x1, x2, x3, x4 = sorted(sympy.Matrix(g.expr).free_symbols, key=str)
    forward = 0
    for x0, x1_, label in ((x1, x2, 1), (x3, x4, 0)):  # the mean of -(7/8 log p_label + 1/8 log p_other)
        log_norm = sympy.log(sympy.exp(x0) + sympy.exp(x1_))
        log_p = (x0 - log_norm, x1_ - log_norm)
        forward += -(sympy.Rational(7, 8) * log_p[label] + sympy.Rational(1, 8) * log_p[1 - label]) / 2
    point = {x1: 0.3, x2: -1.2, x3: 0.5, x4: 0.1}
    for got, a in zip(np.ravel(g.expr), (x1, x2, x3, x4)):
        assert abs(float(sympy.nsimplify(got).subs(point) - sympy.diff(forward, a).subs(point))) < 1e-14


@pytest.mark.parametrize(
    "loss",
    [
        lambda x: nn.SmoothL1Loss(0.7, "mean")(x, Tensor(np.array([[0.1, 0.5], [-1.0, 2.0]]))),
        lambda x: nn.HuberLoss("sum", 0.9)(x, Tensor(np.array([[0.1, 0.5], [-1.0, 2.0]]))),
        lambda x: nn.BCELoss(Tensor(np.array([[1.0, 2.0], [0.5, 1.5]])))(
            ops.sigmoid(x), Tensor(np.array([[0.2, 0.9], [1.0, 0.0]]))
        ),
        lambda x: ops.cross_entropy(
            x, Tensor(np.array([1, -100], np.int32)), Tensor(np.array([0.3, 2.0])), label_smoothing=0.3
        ),
        lambda x: ops.cross_entropy(
            x, Tensor(np.array([[0.1, 0.9], [0.6, 0.4]])), reduction="sum", label_smoothing=0.2
        ),
    ],
)
def test_loss_gradients_match_finite_differences(loss):
    x0 = np.array([[0.3, -1.1], [1.4, 0.05]])
    grad = ops.grad(loss)(Tensor(x0)).asnumpy()
    h = 1e-6
    for index in np.ndindex(x0.shape):
        step = np.zeros_like(x0)
        step[index] = h
        fd = (loss(Tensor(x0 + step)).asnumpy() - loss(Tensor(x0 - step)).asnumpy()) / (2 * h)
        assert abs(grad[index] - fd) < 1e-8, index


LOSS_PROGRAM = """
x = Tensor(np.array([[0.5, -1.5, 2.0, 0.0], [1.2, 3.0, -0.2, 0.7]], np.float32))
y = Tensor(np.array([[0.0, 0.0, 1.0, 0.3], [1.0, -1.0, 0.5, 0.7]], np.float32))
t = Tensor(np.array([[0.0, 1.0, 0.3, 0.9], [1.0, 0.2, 0.5, 0.0]], np.float32))
p = Tensor(np.array([[0.1, 0.6, 0.35, 0.9], [0.99, 0.2, 0.5, 0.02]], np.float32))
w4, pw4 = Tensor(np.array([1.0, 2.0, 0.5, 1.5], np.float32)), Tensor(np.array([3.0, 0.5, 1.0, 2.0], np.float32))
w24 = Tensor(np.array([[1.0, 2.0, 0.5, 1.5], [3.0, 0.5, 1.0, 2.0]], np.float32))
logits = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [0.3, 0.1, -0.4], [2.0, 1.0, 0.0]], np.float32))
labels = Tensor(np.array([2, 0, -100, 1], np.int32))
probs = Tensor(np.array([[0.1, 0.7, 0.2], [0.3, 0.3, 0.4], [1.0, 0.0, 0.0], [0.25, 0.25, 0.5]], np.float32))
cw = Tensor(np.array([1.0, 2.0, 0.5], np.float32))
def with_grads(loss, a, b):
    def summed(a, b):
        return loss(a, b).sum()
    return [loss(a, b), ops.grad(summed, (0, 1))(a, b)]
result = {}
for red in ("none", "mean", "sum"):
    for beta in (1.0, 0.3, 2.5):
        result[f"smooth_l1_{red}_{beta}"] = with_grads(nn.SmoothL1Loss(beta, red), x, y)
    huber = nn.HuberLoss(red, 1.5)  # MindSpore 2.10's PyNative huber_loss fails under NumPy 2: jitted here
    result[f"huber_{red}"] = with_grads(ms.jit(huber.construct), x, y)
    for name, w, pw in (("plain", None, None), ("w", w4, None), ("pw", None, pw4), ("both", w4, pw4)):
        result[f"bce_logits_{red}_{name}"] = with_grads(nn.BCEWithLogitsLoss(red, w, pw), x, t)
    for name, w in (("plain", None), ("w", w24)):
        result[f"bce_{red}_{name}"] = with_grads(nn.BCELoss(w, red), p, t)
    for smoothing in (0.0, 0.2):
        for name, w in (("plain", None), ("w", cw)):
            ce = nn.CrossEntropyLoss(w, -100, red, smoothing)
            result[f"ce_indices_{red}_{smoothing}_{name}"] = [ce(logits, labels), ops.grad(lambda a: ce(a, labels).sum())(logits)]
            result[f"ce_probabilities_{red}_{smoothing}_{name}"] = with_grads(ce, logits, probs)
            other = Tensor(np.array([2, 1, 0, -1], np.int32))
            result[f"ops_ce_{red}_{smoothing}_{name}"] = [ops.cross_entropy(logits, other, w, 1, red, smoothing)]
lg = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1.5)
lb = Tensor(np.array([[0, 2, 1, 1], [2, 2, 0, -1]], np.int32))
result["ce_spatial"] = [ops.cross_entropy(lg, lb, cw, 1, "mean", 0.1), ops.grad(lambda a, w: ops.cross_entropy(a, lb, w, 1, "mean", 0.1), (0, 1))(lg, cw)]
result["ce_spatial_none"] = [ops.cross_entropy(lg, lb, None, -100, "none", 0.0)]
result["ce_one_example"] = [ops.cross_entropy(Tensor(np.array([1.0, 2.0, 0.5], np.float32)), Tensor(np.array(1, np.int32)), cw, -100, "mean", 0.2)]
result["ce_int64_labels"] = [ops.cross_entropy(logits, Tensor(np.array([2, 0, 1, 1], np.int64)))]
result["ce_float64"] = [ops.cross_entropy(Tensor(logits.asnumpy().astype(np.float64)), labels, None, -100, "sum", 0.3)]
"""


@needs_mindspore
def test_losses_and_their_gradients_match_mindspore(in_tmp):
    """Values, and gradients in both arguments (weights' gradients: see test_losses_differentiate_their_weights)."""
    expected, got = run("mindspore", LOSS_PROGRAM, in_tmp), run("symgrad", LOSS_PROGRAM, in_tmp)
    assert sorted(got) == sorted(expected)
    for name in expected:
        assert_same(got[name], expected[name], rtol=1e-5, atol=1e-6, what=name)


def test_losses_give_the_numbers_mindspore_printed(tmp_path):
    got = run("symgrad", LOSS_PROGRAM, tmp_path)
    printed = {  # MindSpore 2.10, CPU
        "ce_indices_mean_0.2_w": 1.7267327308654785,
        "ce_probabilities_mean_0.0_plain": 1.2531328201293945,
        "ops_ce_mean_0.2_w": 1.8816941976547241,
        "ce_spatial": 1.3092589378356934,
        "ce_one_example": 0.48400431871414185,
        "bce_logits_mean_both": 1.6369471549987793,
        "bce_mean_w": 0.36709854006767273,
        "smooth_l1_mean_0.3": 0.8958333134651184,
    }
    for name, value in printed.items():
        np.testing.assert_allclose(got[name][0].asnumpy(), value, rtol=2e-6, err_msg=name)


def test_losses_differentiate_their_weights():
    """MindSpore 2.10 returns zero gradients for BCELoss's and BCEWithLogitsLoss's weight and pos_weight
    (its kernels do not differentiate them); symgrad returns the derivatives (cross_entropy's weight
    gradient is MindSpore's too: LOSS_PROGRAM's ce_spatial)."""
    x, t = Tensor(np.array([[1.0, -0.5]])), Tensor(np.array([[0.3, 0.8]]))

    def loss(w, pw):
        return nn.loss.binary_cross_entropy_with_logits(x, t, w, pw, "sum")

    w, pw = np.array([1.0, 2.0]), np.array([3.0, 0.5])
    gw, gpw = ops.grad(loss, (0, 1))(Tensor(w), Tensor(pw))
    xs, ts = x.asnumpy()[0], t.asnumpy()[0]
    softplus = np.logaddexp(0, -xs)
    np.testing.assert_allclose(gw.asnumpy(), (1 - ts) * xs + (1 + (pw - 1) * ts) * softplus, rtol=1e-12)
    np.testing.assert_allclose(gpw.asnumpy(), w * ts * softplus, rtol=1e-12)


# ======================================================================================
# Argument checks: the error types MindSpore raises
# ======================================================================================

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
