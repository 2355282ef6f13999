"""Programs of ``test_parity.py`` on ops and their derivatives: bias_add, gathers, reductions,
activations, products, mindspore.numpy, the ops of issue 42.

Each is written once against ``ms`` (the library under test) and stores what it computed in
``result``.
"""

OPS_PROGRAMS = {
    "bias_add_in_both_layouts": """
x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 2, 2) / 10)
b3, b2 = f32(0.5, -1.0, 2.0), f32(1.5, -0.25)
def fn(x, b3, b2):
    y = ops.BiasAdd()(x, b3)
    z = ops.BiasAdd(data_format="NHWC")(x, b2)
    return ops.mul(ops.mul(y, y), z).sum() + ops.bias_add(x, b3).sum()
result = (ops.BiasAdd()(x, b3), fn(x, b3, b2), ops.grad(fn, (0, 1, 2))(x, b3, b2))
""",
    "gather_and_cumsum": """
x = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.5]], np.float32))
columns = Tensor(np.array([[2, 0], [2, 1]], np.int32))
rows = Tensor(np.array([1, 0, 1], np.int32))
def fn(x):
    picked = ops.square(ops.gather(x, columns, 1)).sum() + ops.mul(ops.Gather()(x, rows, 0), f32(3.0)).sum()
    return picked + ops.mul(ops.cumsum(x, 1), x).sum() + ops.mul(ops.CumSum(exclusive=True, reverse=True)(x, 0), x).sum()
result = (ops.gather(x, columns, 1), ops.CumSum(True, True)(x, 1), ops.cumsum(x, 0), fn(x), ops.grad(fn)(x))
""",
    "tensor_methods": """
def fn(x):
    return x.reshape(3, 2).transpose(1, 0).sum() + x.mean() * 3 + (x.sum(axis=1, keepdims=True) * x).sum()
result = ops.grad(fn)(Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)))
""",
    "reduce_mean_axes": """
def fn(x):
    return ops.ReduceMean(keep_dims=True)(ops.exp(x), (0, 1)).sum() + ops.ReduceSum()(x * x, -1).sum()
result = ops.grad(fn)(Tensor(np.array([[0.1, -0.2], [0.3, 0.4]], np.float32)))
""",
    "division_and_neg": """
def fn(x, y):
    return ops.neg(ops.div(x, y)) + ops.Square()(y)
result = ops.grad(fn, (0, 1))(f32(1.0, 4.0), f32(2.0, -0.5))
""",
    "matmul_transposes": """
a, b = Tensor(np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)), Tensor(np.array([[0.5, 1.0, -1.0], [2.0, 0.0, 1.0]], np.float32))
def product(a, b):
    return ops.MatMul(transpose_b=True)(a, b)
result = ops.GradOperation(get_all=True)(product)(a, b)
""",
    "reductions_and_shapes": """
def fn(x):
    y = ops.ReduceSum(keep_dims=True)(x * x, 1)
    z = ops.Reshape()(ops.Transpose()(x, (1, 0)), (6,))
    return ops.ReduceMean()(y) + (z * f32(1, 2, 3, 4, 5, 6)).sum()
result = ops.grad(fn)(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)))
""",
    "kinks": "result = (ops.grad(ops.relu)(f32(0.0, 1.0, -1.0)), ops.grad(ops.abs)(f32(0.0, 2.0, -2.0)), ops.grad(ops.maximum, (0, 1))(f32(1.0, 2.0), f32(1.0, 3.0)))",
    "inverse_trig": "result = ops.grad(lambda x: ops.asin(x) + ops.acos(x) * 2 + ops.atan(x) + ops.atanh(x))(f32(0.1, -0.4))",
    "pow_div_log": "result = ops.grad(lambda x, y: ops.pow(x, y) / ops.log(x + 2), (0, 1))(f32(1.5, 2.0), f32(2.0, 0.5))",
    "smooth_activations": """
x = f32(-1.5, -0.2, 0.0, 0.3, 2.0)
def fn(x):
    return (ops.softplus(x) * 2 + ops.silu(x) * 3 + ops.erfc(x) * 5 + ops.log1p(x * x) * 7
            + ops.expm1(x) * 11 + ops.gelu(x) * 13 + nn.GELU()(x) * 17).sum()
def smooth(x):  # MindSpore has no second derivative of GeLU (GeLUGrad has no bprop)
    return (ops.softplus(x) * 2 + ops.silu(x) * 3 + ops.erfc(x) * 5 + ops.log1p(x * x) * 7 + ops.expm1(x) * 11).sum()
result = (fn(x), ops.grad(fn)(x), ops.grad(ops.grad(smooth))(x))
""",
    "atan2_both_arguments": """
result = ops.grad(lambda y, x: ops.atan2(y, x).sum(), (0, 1))(f32(0.5, -1.0, 2.0), f32(-0.7, 1.2, 0.3))
""",
    "kinked_activations": """
x = f32(-1.5, -0.2, 0.0, 0.3, 2.0)
def fn(x):
    return (ops.leaky_relu(x, 0.2) * 2 + nn.LeakyReLU(0.1)(x) + ops.elu(x, 1.0) * 3
            + ops.clip_by_value(x, Tensor(-0.2, ms.float32), Tensor(0.3, ms.float32)) * 5).sum()
result = (fn(x), ops.grad(fn)(x))
""",
    "softmax_family": """
w = f32(0.5, -1.0, 2.0, -0.7, 1.2)
def fn(x):
    return (ops.softmax(x) * w).sum() + (ops.log_softmax(x) * w).sum() + ops.logsumexp(x, 0) + ops.norm(x)
x = f32(-1.5, -0.2, 0.1, 0.3, 2.0)
# first order only: MindSpore 2.10 has no second derivative of softmax/log_softmax, and its second
# derivatives of logsumexp and norm drop terms (symgrad's match finite differences: tests/ops/test_more_ops.py)
result = (fn(x), ops.grad(fn)(x))
""",
    "products_and_minimum": """
x = f32(-1.5, -0.2, 0.0, 0.3, 2.0)
result = (ops.grad(lambda t: ops.ReduceProd()(t, 0))(x), ops.grad(lambda t: ops.prod(t * t + 1))(x),
          ops.grad(lambda t: ops.ReduceMin()(t) * 3)(x), ops.grad(lambda t: ops.ReduceMax(keep_dims=True)(t, 0))(x))
""",
    "tile_and_batch_matmul": """
a = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)
b = Tensor(np.arange(40, dtype=np.float32).reshape(2, 4, 5) / 20)
def fn(a, b):
    return ops.square(ops.BatchMatMul()(a, b)).sum() + (ops.tile(a, (1, 2, 1)) * ops.tile(a, (1, 2, 1))).sum()
result = ops.grad(fn, (0, 1))(a, b)
""",
    "select_and_floor_div": """
x, y = f32(-1.5, -0.2, 0.3, 2.0), f32(0.5, -1.0, 2.0, -0.7)
def fn(x, y):
    return (ops.where(x > 0, x * y, y * y) + ops.Select()(x < y, ops.sin(x), y) + ops.FloorDiv()(x, y) * x).sum()
result = (fn(x, y), ops.grad(fn, (0, 1))(x, y))
""",
    "squeeze_and_cast": """
x = f32(0.5, -1.0, 2.0)
def fn(x):
    y = ops.Squeeze()(ops.ExpandDims()(x, 0))
    return ops.square(ops.Cast()(y, ms.float64)).sum() + ops.Squeeze(0)(ops.ExpandDims()(x * 3, 0)).sum()
result = (fn(x), ops.grad(fn)(x))
""",
    "functional_matmul_batches": """
a = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 10)
b = Tensor(np.arange(20, dtype=np.float32).reshape(4, 5) / 20)
v = Tensor(np.array([0.5, -1.0, 2.0, 0.25], np.float32))
w = Tensor(np.array([1.5, -0.5, 0.75], np.float32))
def fn(a, b, v, w):
    return ops.square(ops.matmul(a, b)).sum() + ops.matmul(a, v).sum() + ops.matmul(w, ops.matmul(a, b)).sum()
result = (ops.matmul(a, b), ops.grad(fn, (0, 1, 2, 3))(a, b, v, w))
""",
    "mindspore_numpy_pinn_residual": """
mnp = ms.numpy
try:  # MindSpore 2.10 under NumPy 2: a process's first Tensor-and-number op can fail once
    mnp.linspace(0, 1, 3)
except SystemError:
    pass
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w1 = Parameter(Tensor(np.array([[0.5, -0.3, 0.8]], np.float32)), name="w1")
        self.b1 = Parameter(f32(0.1, -0.2, 0.05), name="b1")
        self.w2 = Parameter(Tensor(np.array([[0.7], [-0.4], [0.25]], np.float32)), name="w2")
    def construct(self, x):
        return mnp.matmul(mnp.tanh(mnp.matmul(x, self.w1) + self.b1), self.w2)
net = Net()
x = mnp.expand_dims(mnp.linspace(0.1, 0.9, 5), 1)
u_xx = ops.GradOperation()(ops.GradOperation()(net))
def loss(x):  # -u'' = pi^2 sin(pi x), MindFlow-style
    residual = mnp.add(u_xx(x), mnp.multiply(mnp.square(mnp.pi), mnp.sin(mnp.pi * x)))
    return mnp.mean(mnp.square(residual)) + mnp.mean(mnp.power(net(mnp.zeros((1, 1))), 2))
# (the gradient in the weights is left out: MindSpore 2.10 in PyNative mode drops what the inner
# GradOperation's result owes to the weights, d/dw2 sum(u_x^2) = 0; symgrad's matches finite differences)
result = (x, net(x), u_xx(x), loss(x), ops.grad(loss)(x))
""",
    "mindspore_numpy_grid_reductions_and_shapes": """
mnp = ms.numpy
try:  # MindSpore 2.10 under NumPy 2: a process's first Tensor-and-number op can fail once
    mnp.linspace(0, 1, 3)
except SystemError:
    pass
xs, ts = mnp.meshgrid(mnp.linspace(0, 1, 3), mnp.linspace(0, 0.5, 2))
points = mnp.stack((mnp.ravel(xs), mnp.ravel(ts)), axis=1)
w = Tensor(np.array([[0.8, -0.6, 0.3], [0.2, 0.5, -0.9]], np.float32))
def fn(w):
    h = mnp.tanh(mnp.dot(points, w))
    left, right = mnp.split(h, [1], axis=1)
    parts = mnp.concatenate((mnp.exp(left), mnp.log(mnp.abs(right) + 1)), axis=1)
    spread = mnp.amax(parts, axis=0) - mnp.amin(parts, axis=0) + mnp.std(parts, axis=0)
    clipped = mnp.clip(mnp.transpose(parts), -0.5, 1.2)
    return mnp.sum(spread) + mnp.norm(clipped) + mnp.mean(mnp.where(parts > 0.5, parts, mnp.zeros_like(parts)))
result = (points, mnp.arange(5), mnp.eye(2, 3, 1), mnp.full((2,), 1.5), fn(w), ops.grad(fn)(w))
""",
    "new_ops_of_issue_42": """
x = Tensor(np.array([[0.3, -0.5, 0.7], [0.2, 0.9, -0.4]], np.float32))
index = Tensor(np.array([[0, 2], [1, 1]], np.int32))
def fn(x):
    y = ops.L2Normalize(axis=1)(x)
    picked = ops.GatherD()(y, 1, index)
    where, largest = ops.ArgMaxWithValue(axis=1)(x)
    smallest = ops.min(x, 0)[0]
    mixed = ops.mul(ops.one_hot(where, 3, Tensor(1.0, ms.float32), Tensor(0.0, ms.float32)), x)
    shaped = ops.flatten(ops.unsqueeze(ops.tril(x), 0)) + ops.cat((x, ops.flip(x, (1,))), 1).sum()
    return (ops.square(picked).sum() + largest.sum() + ops.mul(smallest, smallest).sum() + mixed.sum()
            + shaped.sum() + ops.rsqrt(ops.reciprocal(ops.exp2(x))).sum() + ops.amax(ops.hypot(x, y), 0).sum())
facts = (ops.dtype(x) == ms.float32, ops.shape(x), ops.rank(x), ops.size(x))
made = (ops.zeros((2,)), ops.ones((1, 2)), ops.eye(2, 3), ops.linspace(-1.0, 1.0, 4), ops.arange(1, 7, 2),
        ops.full((2,), 3), ops.fill(ms.float32, (2,), 0.5), ops.meshgrid(f32(1.0, 2.0), f32(3.0, 4.0, 5.0)))
result = (fn(x), ops.grad(fn)(x), facts, made, ops.argmax(x, 1), ops.depend(x, ops.sin(x)))
""",
}
