"""MindSpore 2.10's learning rates: the ``nn.*_lr`` lists and the ``nn.*LR`` schedules.

Every behaviour is asserted without MindSpore, against a NumPy reference written here or numbers
MindSpore 2.10 printed on the CPU; where MindSpore is installed the same programs also run on it
(``LIB`` is the library) and the two results are compared to float32 precision.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import Tensor, nn
from tests.nn.helpers import assert_same, needs_mindspore, run


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
