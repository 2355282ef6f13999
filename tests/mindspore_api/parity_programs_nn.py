"""Programs of ``test_parity.py`` on layers and training: Dense, normalization, pooling, recurrent
layers, containers, losses, optimizers, learning rates, TrainOneStepCell, checkpoints.

Each is written once against ``ms`` (the library under test) and stores what it computed in
``result``.
"""

NN_PROGRAMS = {
    "layer_norm_and_its_parameters": """
net = nn.LayerNorm((2, 3), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
net.gamma.set_data(Tensor(np.array([[1.0, 2.0, 0.5], [1.5, -1.0, 1.0]], np.float32)))
x = Tensor(np.array([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], [[0.5, -1.0, 2.0], [0.0, 1.0, -2.0]]], np.float32))
def fn(x):
    return ops.mul(net(x), x).sum()
grads = ops.GradOperation(get_all=True, get_by_list=True)(fn, net.trainable_params())(x)
result = ([p.name for p in net.trainable_params()] == ["gamma", "beta"], net(x), grads)
""",
    "batch_norm_training_updates_moving_statistics": """
x = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5], [0.5, -1.0, 2.0]], np.float32))
moving_mean = Parameter(Tensor(np.zeros(3, np.float32)), name="moving_mean", requires_grad=False)
moving_var = Parameter(Tensor(np.ones(3, np.float32)), name="moving_var", requires_grad=False)
scale, bias = f32(1.0, 2.0, 0.5), f32(0.1, 0.2, 0.3)
norm = ops.BatchNorm(is_training=True, epsilon=1e-5, momentum=0.1)
def fn(x, scale, bias):
    return ops.mul(norm(x, scale, bias, moving_mean, moving_var)[0], x).sum()
grads = ops.grad(fn, (0, 1, 2))(x, scale, bias)
result = (grads, moving_mean.value(), moving_var.value())
""",
    "batch_norm_in_a_cell_follows_the_parents_set_train": """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(2, momentum=0.5)
    def construct(self, x):
        return ops.mul(self.bn(x), x)
net = Net().set_train()  # reaches the BatchNorm inside (MindSpore's add_flags_recursive)
x = Tensor(np.array([[1.0, 3.0], [3.0, 5.0], [2.0, -1.0]], np.float32).reshape(3, 2, 1, 1))
trained = (net(x), net.bn.moving_mean.value(), net.bn.moving_variance.value())
net.set_train(False)
result = (trained, net(x), ops.grad(lambda t: net(t).sum())(x))
""",
    "train_one_step_runs_the_network_once": """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm2d(2, momentum=0.5)
        self.w = Parameter(f32(1.0, 2.0), name="w")
    def construct(self, x):
        y = self.bn(ops.mul(x, ops.reshape(self.w, (1, 2, 1, 1))))
        return ops.add(ops.mul(ops.square(ops.add(y, x)).sum(), f32(0.1)), ops.square(self.w).sum())
x = Tensor(np.array([[1.0, 1.0], [3.0, 3.0]], np.float32).reshape(2, 2, 1, 1))
net = Net()
step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.1, 0.9), sens=2.0).set_train()
losses = [step(x) for _ in range(2)]  # the moving mean moves once a step
result = (losses, net.bn.moving_mean.value(), net.bn.moving_variance.value(), net.w.value(), net.bn.gamma.value())
""",
    "softmax_cross_entropy_trains": """
w0 = np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2], [-0.1, 0.2, 0.4]], np.float32)
net = nn.Dense(3, 3, weight_init=Tensor(w0), bias_init=Tensor(np.zeros(3, np.float32)))
sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
step = nn.TrainOneStepCell(nn.WithLossCell(net, sparse), nn.Momentum(net.trainable_params(), 0.1, 0.9))
x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
labels = Tensor(np.array([2, 0], np.int32))
losses = [step(x, labels) for _ in range(3)]
dense = nn.SoftmaxCrossEntropyWithLogits()
probabilities = Tensor(np.array([[0.0, 1.0, 0.0], [0.2, 0.3, 0.5]], np.float32))
def fn(logits):
    return dense(logits, probabilities).sum()
result = (losses, net.weight.value(), dense(x, probabilities), ops.grad(fn)(x))
""",
    "dense_batch_inputs_and_weights": """
net = nn.Dense(2, 3, weight_init="ones", bias_init="zeros", activation="sigmoid")
result = ops.grad(net, grad_position=0, weights=net.trainable_params())(Tensor(np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)))
""",
    "dense_sequential": """
net = nn.SequentialCell([nn.Dense(2, 3, weight_init="ones", bias_init="zeros", activation="tanh"), nn.Dense(3, 1, weight_init="ones", bias_init="zeros")])
result = ops.grad(net)(Tensor(np.array([[0.1, -0.3]], np.float32)))
""",
    "dense_with_tensor_inits_trains": """
w0 = np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]], np.float32)
net = nn.Dense(3, 2, weight_init=Tensor(w0), bias_init=Tensor(np.array([0.1, -0.1], np.float32)))
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
y = Tensor(np.array([[0.3, 0.1], [-0.2, 0.4]], np.float32))
losses = [step(x, y) for _ in range(3)]
result = (losses, net.weight.value(), net.bias.value())
""",
    "pooling_layers_in_every_mode": """
try:  # MindSpore 2.10 under NumPy 2: a process's first shape conversion can fail once
    ops.reshape(f32(0.0, 1.0), (-1,))
except SystemError:
    pass
x = Tensor((np.arange(2 * 2 * 5 * 6, dtype=np.float32).reshape(2, 2, 5, 6) % 7 - 3) / 2)  # ties on purpose
pools = [nn.MaxPool2d(2, 2), nn.MaxPool2d(3, 2, pad_mode="same"), nn.MaxPool2d((3, 2), 2, pad_mode="pad", padding=1, ceil_mode=True),
         nn.AvgPool2d(2, 2), nn.AvgPool2d(3, 2, pad_mode="same"), nn.AvgPool2d(3, (2, 1), pad_mode="pad", padding=1, count_include_pad=False),
         nn.MaxPool1d(3, 2, pad_mode="pad", padding=1), nn.AvgPool1d(3, 2, pad_mode="same")]
def fn(x):
    flat = ops.reshape(x, (2, 2, 30))
    terms = [ops.mul(p(x), p(x)).sum() for p in pools[:6]] + [ops.mul(p(flat), p(flat)).sum() for p in pools[6:]]
    return ops.addn(terms)
result = ([p(x) for p in pools[:6]], fn(x), ops.grad(fn)(x))
""",
    "lstm_and_gru_with_the_same_weights": """
def filled(net):
    for k, p in enumerate(net.get_parameters()):
        p.set_data(Tensor((np.sin(np.arange(p.size) * 0.7 + k) * 0.4).astype(np.float32).reshape(p.shape)))
    return net
lstm = filled(nn.LSTM(3, 4, batch_first=True, bidirectional=True))
gru = filled(nn.GRU(3, 4, num_layers=2))
x = Tensor((np.cos(np.arange(24) * 0.9) * 0.8).astype(np.float32).reshape(2, 4, 3))  # (batch, seq, input)
def fn(x):
    out, (h, c) = lstm(x)
    out2, h2 = gru(ops.transpose(x, (1, 0, 2)))
    return ops.mul(out, out).sum() + ops.mul(c, h).sum() + ops.mul(out2, h2[1]).sum()
names = [p.name for p in lstm.get_parameters()] == [f"{kind}_l0{suffix}" for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh") for suffix in ("", "_reverse")]
result = (names, lstm(x), gru(ops.transpose(x, (1, 0, 2))), ops.grad(fn, 0, lstm.trainable_params() + gru.trainable_params())(x))
""",
    "embedding_flatten_dropout_and_cell_list": """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(6, 4, embedding_table=Tensor(np.sin(np.arange(24, dtype=np.float32)).reshape(6, 4)), padding_idx=0)
        self.layers = nn.CellList([nn.Dense(8, 5, weight_init="ones", bias_init="zeros"), nn.Dense(5, 3, weight_init="ones", bias_init="zeros")])
        self.layers.append(nn.Dense(3, 2, weight_init="ones", bias_init="zeros"))
        self.flatten = nn.Flatten()
        self.drop = nn.Dropout(p=0.5)  # not training: the identity
    def construct(self, ids):
        x = self.flatten(self.embed(ids))
        for layer in self.layers:
            x = ops.tanh(layer(x))
        return self.drop(x)
net = Net()
ids = Tensor(np.array([[1, 5], [0, 3], [2, 2]], np.int32))
names = [p.name for p in net.trainable_params()] == ["embed.embedding_table"] + [f"layers.{i}.{w}" for i in range(3) for w in ("weight", "bias")]
result = (names, net(ids), ops.grad(lambda i: net(i).sum(), None, net.trainable_params())(ids))
""",
    "checkpoint_save_load_into_another_network": """
import os, tempfile
net = nn.SequentialCell([nn.Dense(2, 3, weight_init="ones", bias_init="ones"), nn.Dense(3, 1, weight_init="zeros", bias_init="ones")])
path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
ms.save_checkpoint(net, path, append_dict={"epoch": 4, "lr": 0.5})
loaded = ms.load_checkpoint(path)
other = nn.SequentialCell([nn.Dense(2, 3, weight_init="zeros", bias_init="zeros"), nn.Dense(3, 1, weight_init="ones", bias_init="zeros")])
lists = ms.load_param_into_net(other, loaded)
facts = (list(loaded) == ["0.weight", "0.bias", "1.weight", "1.bias", "epoch", "lr"], lists == ([], ["epoch", "lr"]))
result = (facts, loaded["epoch"], loaded["lr"], loaded["0.bias"], other(Tensor(np.array([[0.5, -1.0]], np.float32))))
""",
    "adam_with_a_cosine_schedule_trains_a_dense_layer": """
net = nn.Dense(3, 2, weight_init=Tensor(np.array([[0.2, -0.4, 0.1], [0.5, 0.3, -0.2]], np.float32)), bias_init="zeros")
opt = nn.Adam(net.trainable_params(), nn.CosineDecayLR(0.01, 0.1, 4), weight_decay=0.01, use_nesterov=True)
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.SmoothL1Loss(0.5, "mean")), opt)
x = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0]], np.float32))
y = Tensor(np.array([[0.3, 0.1], [-0.2, 0.4]], np.float32))
losses = [step(x, y) for _ in range(4)]
result = (losses, net.weight.value(), net.bias.value(), opt.global_step.value(), opt.moment1[0].value())
""",
    "sgd_and_momentum_step_on_gradients_by_list": """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(f32(1.0, -2.0, 0.5), name="w")
        self.beta = Parameter(f32(0.3), name="beta")  # no weight decay for a 'beta' (MindSpore's rule)
    def construct(self, x):
        return ops.square(ops.sin(self.w * x) + self.beta).sum()
nets = [Net(), Net()]
sgd = nn.SGD(nets[0].trainable_params(), [0.1, 0.05, 0.02], momentum=0.9, dampening=0.3, weight_decay=0.1)
momentum = nn.Momentum(nets[1].trainable_params(), 0.1, 0.9, weight_decay=0.05, loss_scale=2.0, use_nesterov=True)
x = f32(0.5, 1.5, -1.0)
for opt, net in ((sgd, nets[0]), (momentum, nets[1])):
    grad = ops.GradOperation(get_by_list=True)(net, opt.parameters)
    for _ in range(3):
        opt(grad(x))
result = ([n.w.value() for n in nets], [n.beta.value() for n in nets])
""",
    "classification_losses_and_their_gradients": """
logits = Tensor(np.array([[1.0, 2.0, -1.0], [0.5, -0.5, 2.0], [0.3, 0.1, -0.4]], np.float32))
labels = Tensor(np.array([2, -100, 1], np.int32))
targets = Tensor(np.array([[0.0, 1.0, 0.3], [0.9, 0.2, 0.5], [1.0, 0.0, 0.0]], np.float32))
def fn(z):
    ce = nn.CrossEntropyLoss(f32(1.0, 2.0, 0.5), label_smoothing=0.1)(z, labels)
    bce = nn.BCEWithLogitsLoss(pos_weight=f32(2.0, 0.5, 1.0))(z, targets)
    return ce + bce * 2 + nn.SmoothL1Loss(0.5, "sum")(z, targets) * 3 + ops.cross_entropy(z, targets, reduction="sum") * 5
result = (fn(logits), ops.grad(fn)(logits))
""",
    "learning_rate_lists_and_schedules": """
lists = (nn.exponential_decay_lr(0.1, 0.9, 6, 2, 2, True), nn.polynomial_decay_lr(0.1, 0.01, 6, 1, 3, 2.0, True),
         nn.cosine_decay_lr(0.01, 0.1, 6, 1, 4), nn.piecewise_constant_lr([2, 5], [0.1, 0.05]))
step = Tensor(np.array([5], np.int32))
schedules = (nn.NaturalExpDecayLR(0.1, 0.3, 2, True), nn.InverseDecayLR(0.1, 0.5, 3), nn.WarmUpLR(0.1, 8),
             nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5), nn.ExponentialDecayLR(0.1, 0.9, 2))
result = (lists, [s(step) for s in schedules])
""",
}
