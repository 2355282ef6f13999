"""Cell state as MindSpore 2.10 keeps it: ``set_train`` reaches every sub-cell (BatchNorm inside a
network trains), Parameter names get their attribute path (``a.w``, ``b.w``) when a cell is
assigned, and the training wrappers run the network once per step (BatchNorm's moving statistics
move once). Each test states MindSpore's values; where MindSpore is installed the same program
also runs on it and the two must agree."""

from __future__ import annotations

import importlib.util
import runpy
import warnings

import numpy as np
import pytest

from symgrad import Parameter, Tensor, nn, ops
from symgrad.autodiff.api import GradOperation
from symgrad.pinn import load_checkpoint, save_checkpoint

needs_mindspore = pytest.mark.skipif(
    importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed (pip install mindspore)"
)

HEADER = """
import numpy as np
ms = LIB
ms.set_context(mode=ms.PYNATIVE_MODE)
nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter
f32 = lambda *v: Tensor(np.array(v, np.float32))
class Empty(nn.Cell):
    def construct(self, x):
        return x
"""


def run(lib: str, code: str, directory) -> object:
    """``code``'s ``result`` with ``ms`` being ``lib`` (from a real file: MindSpore reads sources)."""
    path = directory / f"cell_state_{lib}.py"
    path.write_text(HEADER.replace("LIB", f"__import__({lib!r})") + code)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return runpy.run_path(str(path))["result"]


def plain(value):
    """Tensors as nested lists, so results of both libraries compare with ==."""
    if isinstance(value, tuple | list):
        return [plain(v) for v in value]
    return np.asarray(value.asnumpy()).tolist() if hasattr(value, "asnumpy") else value


def check(code: str, expected, tmp_path, mindspore: bool = False) -> None:
    """symgrad's ``result`` is ``expected``; with ``mindspore``, MindSpore's is too."""
    for lib in ("symgrad", "mindspore") if mindspore else ("symgrad",):
        assert plain(run(lib, code, tmp_path)) == expected, lib


# ----- 1. set_train reaches every sub-cell -----
TRAINING_FLAGS = """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(2)
        self.body = nn.SequentialCell([nn.Dense(2, 2), nn.BatchNorm2d(2)])
net = Net()
flags = lambda: [net.training, net.bn.training, net.body.training, net.body[0].training, net.body[1].training]
new = flags()
net.set_train()
on = flags()
net.late = nn.BatchNorm2d(2)  # added after set_train: keeps its own flag
late = net.late.training
net.set_train(False)
off = flags() + [net.late.training]
shared = nn.BatchNorm2d(2)
a, b = Empty(), Empty()
a.s, b.s = shared, shared
a.set_train()
by_a = shared.training
b.set_train(False)
phases = [net.phase, net.bn.phase, Empty().phase, Empty().set_train().phase]
result = [new, on, late, off, by_a, shared.training, phases]
"""
TRAINING_EXPECTED = [
    [False] * 5,
    [True] * 5,
    False,
    [False] * 6,
    True,
    False,
    ["predict", "train", "train", "train"],
]


@pytest.mark.parametrize("mindspore", [False, pytest.param(True, marks=needs_mindspore)])
def test_set_train_reaches_every_sub_cell_as_mindspore(mindspore, tmp_path):
    check(TRAINING_FLAGS, TRAINING_EXPECTED, tmp_path, mindspore)


BN_IN_A_PARENT = """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(2, momentum=0.5)
    def construct(self, x):
        return self.bn(x)
net = Net().set_train()
x = Tensor(np.array([[1.0, 3.0], [3.0, 5.0]], np.float32).reshape(2, 2, 1, 1))
y = net(x)
trained = (y, net.bn.moving_mean.value(), net.bn.moving_variance.value())
net.set_train(False)
result = [trained, net(x), net.bn.moving_mean.value()]
"""


@pytest.mark.parametrize("mindspore", [False, pytest.param(True, marks=needs_mindspore)])
def test_batch_norm_2d_in_a_parent_trains_and_infers_with_it(mindspore, tmp_path):
    """Batch mean [2, 4], momentum 0.5: moving mean [1, 2]; unbiased variance 2: moving 1.5."""
    one = 1 / np.sqrt(1 + 1e-5)
    expected = [
        [np.array([-one, -one, one, one]).reshape(2, 2, 1, 1).tolist(), [1.0, 2.0], [1.5, 1.5]],
        ((np.array([[1.0, 3.0], [3.0, 5.0]]) - [1.0, 2.0]) / np.sqrt(1.5 + 1e-5))
        .reshape(2, 2, 1, 1)
        .tolist(),
        [1.0, 2.0],
    ]
    for lib in ("symgrad", "mindspore") if mindspore else ("symgrad",):
        got = plain(run(lib, BN_IN_A_PARENT, tmp_path))
        for g, e in zip(got[0] + got[1:], expected[0] + expected[1:]):
            np.testing.assert_allclose(g, e, rtol=1e-6, err_msg=lib)


def test_batch_norm_1d_in_a_parent_moves_its_statistics():
    """(MindSpore 2.10's BatchNorm1d fails in PyNative mode under NumPy 2; in GRAPH_MODE it gave
    moving mean [1, 2] for this input, as BatchNorm2d does above.)"""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.bn = nn.BatchNorm1d(2, momentum=0.5)

        def construct(self, x):
            return self.bn(x)

    net = Net()
    x = Tensor(np.array([[1.0, 3.0], [3.0, 5.0]], np.float32))
    net.set_train()
    net(x)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), [1.0, 2.0])
    np.testing.assert_allclose(net.bn.moving_variance.asnumpy(), [1.5, 1.5])
    net.set_train(False)
    np.testing.assert_allclose(net(x).asnumpy(), (x.asnumpy() - [1.0, 2.0]) / np.sqrt(1.5 + 1e-5), rtol=1e-6)
    np.testing.assert_allclose(net.bn.moving_mean.asnumpy(), [1.0, 2.0])


# ----- 4. flags: what MindSpore propagates (add_flags_recursive, set_train) and what it does not -----
FLAGS = """
e = Empty()
e.c = Empty()
e.add_flags_recursive(foo=1)
first = [e.foo, e.c.foo, dict(e.get_flags()), dict(e.c.get_flags())]
e.set_train()
g = Empty()
g.c = Empty()
g.set_grad()
result = [first, e.get_flags(), e.c.get_flags(), [g.requires_grad, g.c.requires_grad, Empty().requires_grad]]
"""


@pytest.mark.parametrize("mindspore", [False, pytest.param(True, marks=needs_mindspore)])
def test_flags_are_attributes_set_recursively_and_set_grad_is_not(mindspore, tmp_path):
    expected = [
        [1, 1, {"foo": 1}, {"foo": 1}],
        {"foo": 1, "training": True},
        {"foo": 1, "training": True},
        [True, False, False],
    ]
    check(FLAGS, expected, tmp_path, mindspore)


# ----- 2. Parameter names -----
NAMES = """
def P(name=None):
    value = Tensor(np.ones(2, np.float32))
    return Parameter(value, name=name) if name else Parameter(value)
class Leaf(nn.Cell):
    def __init__(self, name="w"):
        super().__init__()
        self.w = P(name)
class Renamed(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = P("foo")
class Two(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a, self.b = Leaf(), Leaf()
class Nest(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a, self.c, self.d = Two(), Renamed(), Leaf(None)
class Holder(nn.Cell):
    def __init__(self, **cells):
        super().__init__()
        for k, v in cells.items():
            setattr(self, k, v)
class Holds(nn.Cell):
    def __init__(self, p):
        super().__init__()
        self.w = p
class Shares(nn.Cell):
    def __init__(self):
        super().__init__()
        p = P("s")
        self.a, self.b = Holds(p), Holds(p)
class Twice(nn.Cell):
    def __init__(self):
        super().__init__()
        leaf = Leaf()
        self.a, self.b = leaf, leaf
class NoPrefix(nn.Cell):
    def __init__(self):
        super().__init__(auto_prefix=False)
        self.a, self.b = Leaf(), Renamed()
class FillLater(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Empty()
        self.a.w = P("w")  # given after the sub-cell was assigned: no prefix
def names(net):
    return [[n for n, _ in net.parameters_and_names()], [p.name for p in net.trainable_params()]]
two = Two()
wrapped = nn.WithLossCell(two, nn.MSELoss())
nn.TrainOneStepCell(wrapped, nn.Momentum(two.trainable_params(), 0.1, 0.9))
late = Empty()
late.x = Leaf()
outer = Empty()
outer.inner = late
result = [
    names(Two()), names(Nest()), names(Leaf()), names(Renamed()),
    names(nn.SequentialCell([nn.Dense(2, 2), Leaf()])), names(Holder(body=nn.SequentialCell(nn.Dense(2, 2), Leaf()))),
    [p.name for p in wrapped.trainable_params()], names(two), names(Shares()), names(Twice()),
    [n for n, _ in Twice().cells_and_names()], names(NoPrefix()), names(Holder(z=NoPrefix())),
    names(outer), names(Holder(bn=nn.BatchNorm2d(2))), names(nn.BatchNorm2d(2)), names(FillLater()),
]
"""
NAMES_EXPECTED = [
    [["a.w", "b.w"], ["a.w", "b.w"]],
    [["a.a.w", "a.b.w", "c.weight", "d.w"], ["a.a.w", "a.b.w", "c.weight", "d.w"]],
    [["w"], ["w"]],
    [["weight"], ["foo"]],  # a top-level cell keeps given names
    [["0.weight", "0.bias", "1.w"], ["0.weight", "0.bias", "1.w"]],
    [["body.0.weight", "body.0.bias", "body.1.w"], ["body.0.weight", "body.0.bias", "body.1.w"]],
    ["a.w", "b.w"],  # WithLossCell and TrainOneStepCell leave names alone
    [["a.w", "b.w"], ["a.w", "b.w"]],
    [["a.w"], ["b.w"]],  # a shared Parameter: listed once, named by its last cell
    [["a.w"], ["b.w"]],  # one cell under two attributes: listed once, named by the last
    ["", "a"],
    [["a.w", "b.weight"], ["w", "foo"]],
    [["z.a.w", "z.b.weight"], ["z.a.w", "z.b.weight"]],
    [["inner.x.w"], ["inner.x.w"]],
    [["bn.moving_mean", "bn.moving_variance", "bn.gamma", "bn.beta"], ["bn.gamma", "bn.beta"]],
    [["moving_mean", "moving_variance", "gamma", "beta"], ["gamma", "beta"]],
    [["a.w"], ["w"]],
]


@pytest.mark.parametrize("mindspore", [False, pytest.param(True, marks=needs_mindspore)])
def test_parameter_names_follow_mindspore(mindspore, tmp_path):
    check(NAMES, NAMES_EXPECTED, tmp_path, mindspore)


def test_two_sub_cells_with_a_parameter_named_w_can_be_checkpointed(tmp_path):
    class Leaf(nn.Cell):
        def __init__(self, value: float):
            super().__init__()
            self.w = Parameter(Tensor(np.full(2, value, np.float32)), name="w")

    class Two(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a, self.b = Leaf(1.0), Leaf(2.0)

    saved, loaded = Two(), Two()
    loaded.a.w.set_data(np.zeros(2, np.float32))
    path = save_checkpoint(tmp_path / "two.npz", saved)
    load_checkpoint(path, loaded)
    np.testing.assert_array_equal(loaded.a.w.asnumpy(), [1.0, 1.0])
    np.testing.assert_array_equal(loaded.b.w.asnumpy(), [2.0, 2.0])


# ----- 3. the training wrappers run the network once per step -----
BN_STEP = """
class BNLoss(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(2, momentum=0.5)
        self.w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    def construct(self, x):
        y = self.bn(x * ops.reshape(self.w, (1, 2, 1, 1)))
        return ops.square(y).sum() * 0.1 + ops.square(self.w).sum()
x = Tensor(np.array([[1.0, 1.0], [3.0, 3.0]], np.float32).reshape(2, 2, 1, 1))  # x * w: batch mean [2, 4]
out = []
for sens in (1.0, 2.0):
    net = BNLoss()
    step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1), sens=sens).set_train()
    out.append([step(x), net.bn.moving_mean.value(), net.w.value()])
net = BNLoss().set_train()
value, grads = nn.ForwardValueAndGrad(net, weights=net.trainable_params(), get_by_list=True)(x)
result = out + [[value, net.bn.moving_mean.value(), grads[0]]]
"""


@pytest.mark.parametrize("mindspore", [False, pytest.param(True, marks=needs_mindspore)])
def test_training_wrappers_move_batch_norm_statistics_once_per_step(mindspore, tmp_path):
    """The loss is 0.1 * 4 * (1 - 1e-5 / ...) + 5; d/dw of 5 = |w|^2 is [2, 4], the BatchNorm part
    ~0; a step of 0.1 (twice that with sens 2) gives [0.8, 1.6] ([0.6, 1.2])."""
    for lib in ("symgrad", "mindspore") if mindspore else ("symgrad",):
        got = plain(run(lib, BN_STEP, tmp_path))
        for (loss, mean, w), expected_w in zip(got, ([0.8, 1.6], [0.6, 1.2], [2.0, 4.0])):
            np.testing.assert_allclose(loss, 5.4, rtol=1e-5, err_msg=lib)
            np.testing.assert_allclose(mean, [1.0, 2.0], err_msg=lib)  # not [1.5, 3]: one forward
            np.testing.assert_allclose(w, expected_w, rtol=1e-5, err_msg=lib)


@pytest.mark.parametrize("sens", [1.0, 2.0])
def test_train_one_step_gives_the_loss_and_weights_of_a_forward_and_a_separate_gradient(sens):
    """Without BatchNorm one evaluation gives what the former two did, bit for bit."""

    def network():
        net = nn.Dense(
            3,
            2,
            weight_init=Tensor(np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]], np.float32)),
            bias_init="zeros",
        )
        return net, nn.WithLossCell(net, nn.MSELoss())

    x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
    y = Tensor(np.array([[0.3, 0.1], [-0.2, 0.4]], np.float32))
    net, loss_net = network()
    step = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), 0.1, 0.9), sens=sens)
    losses = [step(x, y).asnumpy() for _ in range(3)]

    old_net, old_loss_net = network()
    optimizer = nn.Momentum(old_net.trainable_params(), 0.1, 0.9)
    grad = GradOperation(get_by_list=True)(lambda *a: old_loss_net(*a) * sens, optimizer.parameters)
    old_losses = []
    for _ in range(3):  # what TrainOneStepCell did before: the forward, then the gradient's own
        old_losses.append(old_loss_net(x, y).asnumpy())
        optimizer(grad(x, y))
    np.testing.assert_array_equal(losses, old_losses)
    np.testing.assert_array_equal(net.weight.asnumpy(), old_net.weight.asnumpy())
    np.testing.assert_array_equal(net.bias.asnumpy(), old_net.bias.asnumpy())


def test_forward_value_and_grad_keeps_its_results_shapes():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    x = Tensor(np.array([[1.0, 2.0]], np.float32))
    value, (gx, gw) = nn.ForwardValueAndGrad(net, get_all=True, get_by_list=True)(x)
    np.testing.assert_allclose(value.asnumpy(), [[3.0]])
    assert len(gx) == 1 and len(gw) == 2
    np.testing.assert_allclose(gx[0].asnumpy(), [[1.0, 1.0]])
    value, g = nn.ForwardValueAndGrad(net, sens_param=True)(x, Tensor(np.array([[2.0]], np.float32)))
    np.testing.assert_allclose(g.asnumpy(), [[2.0, 2.0]])
    assert nn.ForwardValueAndGrad(net)(x)[1].shape == (1, 2)
    assert ops.grad(net)(x).shape == (1, 2)
