"""MindSpore behaviours of ops beyond the guide: small surface ops, MultitypeFuncGraph and HyperMap,
the BatchNorm primitive (the conformance issue), each checked
against an independent value.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn, ops
from symgrad import dtype as mstype


def test_small_surface_ops():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    a, b = ops.split(x, 1, axis=0)
    assert a.shape == (1, 3) and b.asnumpy().tolist() == [[3.0, 4.0, 5.0]]
    assert ops.concat((x, x), 1).shape == (2, 6)
    np.testing.assert_array_equal(ops.concat((x, x), 1).asnumpy(), np.concatenate([x.asnumpy()] * 2, 1))
    assert ops.Shape()(x) == (2, 3)
    assert ops.ReduceMax()(x, 1).asnumpy().tolist() == [2.0, 5.0]
    g = ops.grad(lambda v: ops.ReduceMax()(v, 1).sum())(x)
    assert g.asnumpy().tolist() == [[0, 0, 1], [0, 0, 1]]
    assert ops.AddN()((x, x, x)).asnumpy().tolist() == (3 * x.asnumpy()).tolist()
    np.testing.assert_allclose(
        ops.gelu(Tensor([1.0])).asnumpy(), [0.5 * (1 + math.erf(1 / math.sqrt(2)))], rtol=1e-6
    )
    assert ops.ones_like(x).asnumpy().sum() == 6 and symgrad.initializer("zeros", (2,)).shape == (2,)
    batched = ops.vmap(lambda v: (v * v).sum())(x)
    assert batched.asnumpy().tolist() == [5.0, 50.0]


# ----- MultitypeFuncGraph and HyperMap -----


def test_hyper_map_of_a_multitype_func_graph_as_mindspore_returns_it():
    """Expected values printed by MindSpore 2.10 CPU for the same calls."""
    from symgrad.ops.composite import HyperMap, MultitypeFuncGraph

    add = MultitypeFuncGraph("add")

    @add.register("Tensor", "Tensor")
    def _tensors(a, b):
        return a + b

    @add.register("Number", "Number")
    def _numbers(a, b):
        return a * 10 + b

    t = Tensor(np.array([1.0, 2.0], np.float32))
    mapped = HyperMap(add)((t, 1), (t, 2))
    assert mapped[1] == 12 and mapped[0].asnumpy().tolist() == [2.0, 4.0]
    assert HyperMap(add)([1, (2, 3)], [4, (5, 6)]) == (14, (25, 36))  # lists map to a tuple
    assert HyperMap()(add, (1, 2), (3, 4)) == (13, 24)
    with pytest.raises(ValueError, match=r"'add': no function registered for \(str, int\)"):
        add("a", 1)


def test_gradient_through_a_hyper_mapped_branch():
    """MindSpore's test_grad_operation_hypermap_control_flow: both branches pick z."""
    ctrl = ops.MultitypeFuncGraph("ctrl")

    @ctrl.register("Tensor", "Tuple")
    def _pick(x, pair):
        return pair[0] if x > 0 else pair[1]

    class Net(nn.Cell):
        def construct(self, x, y, z):
            return ops.HyperMap(ctrl)((x, y), ((z, x), (y, z)))

    args = [Tensor(v, mstype.float32) for v in (2.0, -3.0, 0.5)]
    with pytest.warns(UserWarning, match="control flow"):
        grads = ops.GradOperation(get_all=True)(Net())(*args)
    assert [float(g.asnumpy()) for g in grads] == [0.0, 0.0, 2.0]


# ----- BatchNorm -----

_BN_X = np.array([[1.0, 2.0], [3.0, 7.0], [0.5, -1.0]], np.float32)


def _bn_params(tag: str):
    values = ([1.5, 0.5], [0.1, -0.2], [0.3, 0.4], [2.0, 3.0])
    return [Parameter(Tensor(np.array(v, np.float32)), name=f"{n}{tag}") for n, v in zip("sbmv", values)]


def test_batch_norm_matches_mindspore_in_inference_and_training():
    """Expected values printed by MindSpore 2.10 CPU for the same inputs."""
    scale, bias, mean, var = _bn_params("i")
    out = ops.BatchNorm()(Tensor(_BN_X), scale, bias, mean, var)
    np.testing.assert_allclose(out[0].asnumpy()[1], [2.963775157928467, 1.7052526473999023], rtol=1e-6)
    assert all(o.asnumpy().tolist() == [0.0, 0.0] for o in out[1:])
    assert mean.asnumpy().tolist() == np.float32([0.3, 0.4]).tolist()  # inference keeps the statistics

    scale, bias, mean, var = _bn_params("t")
    y, zero1, zero2, batch_mean, batch_var = ops.BatchNorm(is_training=True)(
        Tensor(_BN_X), scale, bias, mean, var
    )
    np.testing.assert_allclose(y.asnumpy()[0], [-0.5943620800971985, -0.3010152280330658], rtol=1e-6)
    np.testing.assert_allclose(batch_mean.asnumpy(), [1.5, 2.6666667461395264], rtol=1e-6)
    np.testing.assert_allclose(batch_var.asnumpy(), [1.1666666269302368, 10.888888359069824], rtol=1e-6)
    assert zero1.asnumpy().tolist() == zero2.asnumpy().tolist() == [0.0, 0.0]
    np.testing.assert_allclose(mean.asnumpy(), [0.42000001668930054, 0.6266666650772095], rtol=1e-6)
    np.testing.assert_allclose(var.value().asnumpy(), [1.9749999046325684, 4.3333330154418945], rtol=1e-6)


def test_batch_norm_gradient_flows_through_the_batch_statistics():
    weights = Tensor(np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))

    def f(x, s, b):
        mean, var = (Parameter(Tensor(np.full(2, v)), name=n) for n, v in (("m", 0.0), ("v", 1.0)))
        y = ops.BatchNorm(is_training=True)(x, s, b, mean, var)[0]
        return (y**2 * weights).sum()

    args = [Tensor(_BN_X.astype(np.float64)), Tensor(np.array([1.5, 0.5])), Tensor(np.array([0.1, -0.2]))]
    report = symgrad.verify(f, *args)
    assert report.ok, str(report)
    gx = ops.grad(f)(*args).asnumpy()
    np.testing.assert_allclose(
        gx[:, 0], [5.374113082885742, -1.074663519859314, -4.299448490142822], rtol=2e-5
    )
    with pytest.raises(
        ValueError, match=r"BatchNorm: scale must have shape \(2,\) for input_x of shape \(3, 2\), got \(3,\)"
    ):
        ops.BatchNorm()(args[0], Tensor(np.ones(3)), *args[2:], Tensor(np.zeros(2)), Tensor(np.ones(2)))
