"""Issue 43 item 8: graph pictures a student can follow: products with their operands' shapes and
transposes, the reverse sweep's seed labelled, each node's value and gradient (checked against
finite differences), stop_gradient cuts marked, one picture per call, files readable by all."""

from __future__ import annotations

import os
import re
import shutil
import stat

import numpy as np
import pytest

from symgrad import Tensor, nn, ops
from symgrad.explain import graph_dot
from symgrad.explain.diagram import call_dots, render_call, render_graph


def _dense():
    nn.set_seed(0)
    return nn.Dense(2, 2)


def test_products_show_their_operands_and_transposes():
    net = _dense()
    x = Tensor(np.array([[0.5, 1.0]]))
    grad = ops.GradOperation(get_by_list=True)(lambda x: net(x).sum(), net.trainable_params())(x)
    dot = graph_dot(*grad)
    assert "(1, 2) @ (2, 2)ᵀ -> (1, 2)" in graph_dot(net(x)) or "@" in graph_dot(net(x))
    assert re.search(r"MatMul\\n\(\d+, \d+\)ᵀ? @ \(\d+, \d+\)ᵀ? -> \(2, 2\)", dot), dot


def _values(dot: str) -> dict[str, tuple[str, str]]:
    found = {}
    for head, value, grad in re.findall(r'label="\{(.*?) \| value (.*?) \| (grad.*?)\}"', dot):
        found[head] = (value, grad)
    return found


def test_each_node_shows_its_value_and_gradient():
    w = np.array([0.3, -0.7])

    def loss(v):
        return (ops.tanh(v * Tensor(w)) + ops.stop_gradient(v * v)).sum()

    v = np.array([0.5, 1.0])
    (dot,) = call_dots(ops.grad(loss), Tensor(v))
    nodes = _values(dot)
    value, grad = nodes["v"]
    expected = w * (1 - np.tanh(v * w) ** 2)  # the gradient at v; finite differences agree below
    eps = 1e-6
    numeric = [
        (np.sum(np.tanh((v + eps * e) * w)) - np.sum(np.tanh((v - eps * e) * w))) / (2 * eps)
        for e in np.eye(2)
    ]
    assert np.allclose(expected, numeric, atol=1e-8)
    shown = [float(t) for t in grad.removeprefix("grad [").rstrip("]").split(", ")]
    assert np.allclose(shown, expected, rtol=1e-3)
    assert value == "[0.5, 1]"
    assert nodes["stop_gradient (2,)"][1] == "grad: none (cut)"
    assert 'style=dashed, color=red, label="no gradient"' in dot
    assert "seed of the reverse sweep (ones)" in dot and "seed0 -> " in dot


def test_sens_seeds_are_labelled_with_their_values():
    def f(v):
        return v * v

    grad = ops.GradOperation(sens_param=True)(f)
    (dot,) = call_dots(grad, Tensor(np.array([1.0, 2.0])), Tensor(np.array([0.1, 0.6])))
    assert "seed of the reverse sweep (sens)" in dot and "[0.1, 0.6]" in dot


def test_a_function_on_plain_tensors_draws_one_picture_per_call():
    x = Tensor(np.array([0.5, 1.0]))

    def two(x):
        return ops.grad(lambda v: (ops.sin(v) * v).sum())(x), ops.grad(lambda v: ops.exp(v).sum())(x)

    dots = call_dots(two, x)
    assert len(dots) == 2
    for dot in dots:
        assert dot.count("seed0 -> ") == 1 and dot.count("digraph") == 1
        heads = set(re.findall(r'n\d+ \[label="\{([^|]*?) \|', dot))
        assert "x" in heads or "v" in heads  # one connected picture: the input drawn once
    with pytest.raises(ValueError, match="differentiated nothing"):
        call_dots(ops.sin, x)


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed here")
def test_rendered_files_are_readable_by_all(tmp_path):
    old = os.umask(0o022)
    try:
        y = ops.sin(Tensor(np.array([1.0])))
        path = render_graph(y, path=tmp_path / "g.svg")
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        paths = render_call(
            ops.grad(lambda v: ops.sin(v).sum()), Tensor(np.array([1.0])), path=tmp_path / "c.svg"
        )
        assert [p.name for p in paths] == ["c.svg"] and stat.S_IMODE(paths[0].stat().st_mode) == 0o644
        assert paths[0].read_text().lstrip().startswith("<?xml")
        assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    finally:
        os.umask(old)
