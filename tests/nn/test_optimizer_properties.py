"""MindSpore 2.10's optimizers (Adam, AdamWeightDecay, SGD, Momentum, parameter groups, per-step
rates) against the NumPy reference over Hypothesis' shapes, dtypes and hyperparameters.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from symgrad import Parameter, Tensor, nn, ops
from tests.nn.helpers import dtypes, reference, shapes, tolerance


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
