"""jit traces once per signature and reuses the graph only where that cannot change a result."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops

RNG = np.random.default_rng(7)
jit_module = importlib.import_module("symgrad.jit")  # symgrad.jit is the function


def _tensor(*shape, dtype=np.float64) -> Tensor:
    return Tensor(RNG.standard_normal(shape).astype(dtype))


def test_a_pure_function_is_traced_once_per_signature_and_its_results_follow_the_new_values():
    @symgrad.jit
    def f(x, y):
        return ops.sin(x) * y + 1.0, x.shape[0]

    for _ in range(3):
        x, y = _tensor(4), _tensor(4)
        out, n = f(x, y)
        np.testing.assert_allclose(out.asnumpy(), np.sin(x.asnumpy()) * y.asnumpy() + 1.0, rtol=1e-14)
        assert n == 4
    assert (f.cache.traces, f.cache.reuses, f.cache.full_runs) == (1, 2, 0)
    f(_tensor(5), _tensor(5))  # another shape
    f(_tensor(4, dtype=np.float32), _tensor(4, dtype=np.float32))  # another dtype
    assert f.cache.traces == 3


def test_results_of_two_reuses_combine_without_mixing_their_inputs():
    @symgrad.jit
    def double(x):
        return x * 2.0

    a, b = double(Tensor([1.0, 2.0])), double(Tensor([10.0, 20.0]))
    c = double(Tensor([100.0, 200.0]))
    assert (a + b + c).asnumpy().tolist() == [222.0, 444.0]


def test_python_values_are_part_of_the_signature():
    @symgrad.jit
    def power(x, n, mode):
        y = x
        for _ in range(n - 1):
            y = y * x
        return -y if mode == "negate" else y

    x = Tensor([1.5, -2.0])
    assert power(x, 2, "keep").asnumpy().tolist() == [2.25, 4.0]
    assert power(x, 3, "keep").asnumpy().tolist() == [3.375, -8.0]
    assert power(x, 3, "negate").asnumpy().tolist() == [-3.375, 8.0]
    assert power(x, 3, "negate").asnumpy().tolist() == [-3.375, 8.0]
    assert (power.cache.traces, power.cache.reuses) == (3, 1)


def test_control_flow_on_a_value_runs_every_call_in_full_without_warnings():
    @symgrad.jit
    def f(x):
        return x * 2 if float(x.sum()) > 0 else x * -3

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "derivatives do not flow" outside a differentiation
        assert f(Tensor([1.0])).asnumpy().tolist() == [2.0]
        assert f(Tensor([-1.0])).asnumpy().tolist() == [3.0]
        assert f(Tensor([2.0])).asnumpy().tolist() == [4.0]
    assert (f.cache.traces, f.cache.reuses, f.cache.full_runs) == (1, 0, 2)


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0])), name="w")

    @symgrad.jit
    def construct(self, x):
        return (self.w * ops.tanh(x)).sum()


def test_a_reused_construct_reads_the_weights_of_each_call_and_differentiates():
    net = Linear()
    x = Tensor(np.array([0.3, -0.7]))
    assert net(x).asnumpy() == pytest.approx(np.tanh(0.3) + 2 * np.tanh(-0.7), rel=1e-14)
    net.w.set_data(np.array([10.0, 20.0]))
    assert net(x).asnumpy() == pytest.approx(10 * np.tanh(0.3) + 20 * np.tanh(-0.7), rel=1e-14)
    dx, dw = ops.grad(net, 0, net.trainable_params())(x)
    np.testing.assert_allclose(dx.asnumpy(), [10 / np.cosh(0.3) ** 2, 20 / np.cosh(-0.7) ** 2], rtol=1e-14)
    np.testing.assert_allclose(dw[0].asnumpy(), np.tanh([0.3, -0.7]), rtol=1e-14)
    cache = Linear.construct.cache
    assert cache.reuses >= 2 and cache.full_runs == 0
    other = Linear()  # another Cell: its own traces
    traces = cache.traces
    other(x)
    assert cache.traces == traces + 1


def test_second_derivatives_flow_through_a_reused_trace():
    @symgrad.jit
    def f(x):
        return (x * x * x).sum()

    f(Tensor([1.0, 2.0]))
    hess = ops.grad(ops.grad(f))(Tensor([1.0, 2.0]))
    assert hess.asnumpy().tolist() == [6.0, 12.0] and f.cache.reuses >= 1


def test_a_gradient_computed_inside_a_jitted_function_is_reused_with_new_inputs_and_weights():
    net = Linear()
    gradient = ops.grad(net, 0, net.trainable_params())

    @symgrad.jit
    def step(x):
        return gradient(x)

    for k in range(3):
        x, w = np.array([0.5, k - 1.0]), np.array([1.0, 2.0 + k])
        net.w.set_data(w)
        dx, (dw,) = step(Tensor(x))
        np.testing.assert_allclose(dx.asnumpy(), w / np.cosh(x) ** 2, rtol=1e-14)  # d(w . tanh(x))/dx
        np.testing.assert_allclose(dw.asnumpy(), np.tanh(x), rtol=1e-14)
    assert (step.cache.traces, step.cache.reuses) == (1, 2)


def test_a_weight_read_into_python_is_never_frozen_into_a_trace():
    class Gated(nn.Cell):
        def __init__(self):
            super().__init__()
            self.gate = Parameter(Tensor(np.array(1.0)), name="gate")

        @symgrad.jit
        def construct(self, x):
            return x * 2 if float(self.gate) > 0 else x * 0

    net = Gated()
    assert net(Tensor([3.0])).asnumpy().tolist() == [6.0]
    net.gate.set_data(np.array(-1.0))
    assert net(Tensor([3.0])).asnumpy().tolist() == [0.0]
    assert Gated.construct.cache.reuses == 0


def test_a_call_that_changes_state_runs_in_full_every_time():
    class Accumulate(nn.Cell):  # MindSpore's test_grad_of_pyexecute_with_more_than_three_inputs
        def __init__(self):
            super().__init__()
            self.p = 4

        @symgrad.jit
        def construct(self, x):
            self.p = self.p + x
            return self.p

    net = Accumulate()
    assert net(Tensor([2])).asnumpy().tolist() == [6]
    assert net(Tensor([2])).asnumpy().tolist() == [8]
    assert Accumulate.construct.cache.reuses == 0


def test_the_training_flag_is_part_of_the_signature():
    class Scaled(nn.Cell):
        @symgrad.jit
        def construct(self, x):
            return x * 2 if self.training else x

    net = Scaled()
    x = Tensor([1.0])
    net.set_train(True)
    assert net(x).asnumpy().tolist() == [2.0]
    net.set_train(False)
    assert net(x).asnumpy().tolist() == [1.0]
    net.set_train(True)
    assert net(x).asnumpy().tolist() == [2.0]
    assert Scaled.construct.cache.traces == 2


def test_keyword_arguments_and_other_objects_run_in_full():
    @symgrad.jit
    def f(x, scale=1.0, table=None):
        return x * scale + (table["b"] if table else 0.0)

    x = Tensor([1.0])
    assert f(x, scale=3.0).asnumpy().tolist() == [3.0]
    assert f(x, 2.0, {"b": 1.0}).asnumpy().tolist() == [3.0]
    assert f.cache.full_runs == 2 and f.cache.traces == 0


def test_a_returned_generator_is_a_list_on_every_path():
    @symgrad.jit
    def f(x):
        return (x * k for k in range(2))

    first, again = f(Tensor([1.0])), f(Tensor([3.0]))
    assert isinstance(first, list) and [t.asnumpy().tolist() for t in again] == [[0.0], [3.0]]


def test_python_state_is_read_once_per_signature_as_in_graph_mode():
    """The documented retrace rule: a plain global read by a pure trace is the first call's."""
    settings = {"scale": 2.0}

    @symgrad.jit
    def f(x):
        return x * settings["scale"]

    assert f(Tensor([1.0])).asnumpy().tolist() == [2.0]
    settings["scale"] = 5.0
    assert f(Tensor([1.0])).asnumpy().tolist() == [2.0]
    assert f(Tensor([1.0, 1.0])).asnumpy().tolist() == [5.0, 5.0]  # a new signature traces anew


def test_the_traces_kept_are_bounded(monkeypatch):
    monkeypatch.setattr(jit_module, "SIGNATURES_KEPT", 2)

    @symgrad.jit
    def f(x):
        return x + 1.0

    for n in range(1, 6):
        assert f(Tensor(np.zeros(n))).asnumpy().tolist() == [1.0] * n
    assert len(f.cache.unowned) == 2 and f.cache.traces == 5


class Frozen(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.array([1.0, 2.0])), name="w", requires_grad=False)

    def construct(self, x):
        return (self.w * x).sum()


def test_the_execution_mode_is_part_of_the_signature():
    """PyNative gives a frozen Parameter a zero gradient, GRAPH_MODE differentiates it."""
    net = Frozen()
    gradient = ops.GradOperation(get_by_list=True)(net, symgrad.ParameterTuple([net.w]))

    def step(x):
        return gradient(x)[0]

    jitted = symgrad.jit(step)
    modes = [symgrad.PYNATIVE_MODE, symgrad.GRAPH_MODE, symgrad.PYNATIVE_MODE, symgrad.GRAPH_MODE]
    for k, mode in enumerate(modes):
        symgrad.set_context(mode=mode)
        x = Tensor(np.array([3.0, 4.0 + k]))
        expected = step(x).asnumpy()
        assert expected.tolist() == ([0.0, 0.0] if mode == symgrad.PYNATIVE_MODE else [3.0, 4.0 + k])
        np.testing.assert_array_equal(jitted(x).asnumpy(), expected)
    assert (jitted.cache.traces, jitted.cache.reuses) == (2, 2)


def _writer(a, b):
    a[0] = b.sum()
    return a * 2.0


def test_a_write_into_a_tensor_argument_reaches_the_caller_on_every_call():
    jitted = symgrad.jit(_writer)
    for k in range(3):
        x, y, b = Tensor(np.array([1.0, 2.0]) + k), Tensor(np.array([1.0, 2.0]) + k), Tensor([k, 10.0])
        expected = _writer(x, b)
        out = jitted(y, b)
        assert y.asnumpy().tolist() == x.asnumpy().tolist() == [k + 10.0, k + 2.0]
        np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())
    assert jitted.cache.reuses == 0


def test_a_write_into_a_parameter_argument_reaches_it_on_every_call():
    def bump(w, x):
        w[1] = 7.0
        return w * x

    jitted = symgrad.jit(bump)
    for k in range(3):
        w, v = Parameter(Tensor([k, 1.0]), name="w"), Parameter(Tensor([k, 1.0]), name="v")
        out, expected = jitted(w, Tensor([2.0, 3.0])), bump(v, Tensor([2.0, 3.0]))
        assert w.asnumpy().tolist() == v.asnumpy().tolist() == [k, 7.0]
        np.testing.assert_array_equal(out.asnumpy(), expected.asnumpy())


def test_a_write_into_an_argument_differentiates_as_without_jit():
    jitted = symgrad.jit(_writer)
    for _ in range(2):
        x, b = Tensor([1.0, 2.0]), Tensor([3.0, 4.0])
        got = ops.grad(jitted, (0, 1))(x, b)
        expected = ops.grad(_writer, (0, 1))(x, b)
        for g, e in zip(got, expected):
            np.testing.assert_array_equal(g.asnumpy(), e.asnumpy())
        assert x.asnumpy().tolist() == [1.0, 2.0]  # a differentiated call writes into its own inputs


def test_a_write_into_a_tensor_outside_the_call_is_made_on_every_call():
    log = Tensor(np.zeros(3))

    def record(x, k):
        log[k] = x.sum()
        return x * 2.0

    jitted = symgrad.jit(record)
    for k in range(3):
        assert jitted(Tensor([1.0, k]), 0).asnumpy().tolist() == [2.0, 2.0 * k]
        assert log.asnumpy().tolist() == [1.0 + k, 0.0, 0.0]
    assert jitted.cache.reuses == 0


def test_the_training_flags_of_sub_cells_are_part_of_the_signature():
    class Scaled(nn.Cell):
        def construct(self, x):
            return x * 2 if self.training else x

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.inner = Scaled()

        @symgrad.jit
        def construct(self, x):
            return self.inner(x) + 1.0

    net = Outer()
    for k, flag in enumerate([True, False, True, False]):
        net.inner.set_train(flag)  # the child alone: the outer Cell's flag stays False
        x = Tensor([1.0 + k])
        assert net(x).asnumpy().tolist() == Outer.construct.__wrapped__(net, x).asnumpy().tolist()
    assert Outer.construct.cache.traces == 2


def test_requires_grad_of_a_cells_parameters_is_part_of_the_signature():
    class Step(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Frozen()
            self.grad = ops.GradOperation(get_by_list=True)

        @symgrad.jit
        def construct(self, x):
            return self.grad(self.net, symgrad.ParameterTuple([self.net.w]))(x)[0]

    step = Step()
    for k, frozen in enumerate([True, False, True, False]):
        step.net.w.requires_grad = not frozen
        x = Tensor([3.0, 4.0 + k])
        expected = Step.construct.__wrapped__(step, x).asnumpy()
        assert expected.tolist() == ([0.0, 0.0] if frozen else [3.0, 4.0 + k])
        np.testing.assert_array_equal(step(x).asnumpy(), expected)
    assert Step.construct.cache.reuses == 2


def test_a_write_into_a_local_tensor_gives_each_calls_values():
    """Any write into a Tensor makes the call run in full (a local one too: symgrad cannot tell them apart)."""

    @symgrad.jit
    def f(x):
        y = x * 1.0
        y[0] = x.sum()
        return y

    for k in range(3):
        assert f(Tensor([1.0, k])).asnumpy().tolist() == [1.0 + k, k]
    assert (f.cache.traces, f.cache.full_runs) == (1, 2)
