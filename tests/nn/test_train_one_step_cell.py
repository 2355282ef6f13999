"""nn.TrainOneStepCell with every optimizer and loss: the weights MindSpore 2.10 trained, and the
same steps as the gradient by list followed by the optimizer.

Every behaviour is asserted without MindSpore, against a NumPy reference written here or numbers
MindSpore 2.10 printed on the CPU; where MindSpore is installed the same programs also run on it
(``LIB`` is the library) and the two results are compared to float32 precision.
"""

from __future__ import annotations

import numpy as np
import pytest

from symgrad import Tensor, nn
from symgrad.ops import GradOperation
from tests.nn.helpers import assert_same, needs_mindspore, run

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
