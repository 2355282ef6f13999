"""MindSpore 2.10's nn.Flatten, nn.Dropout and nn.Embedding.

The numbers asserted directly were computed by real MindSpore 2.10 on the CPU, so these tests run
without it; where MindSpore is installed the ``*_as_mindspore`` tests also run both libraries on the
same inputs and weights and compare values, gradients and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import symgrad
from symgrad import Tensor, nn, ops
from tests.nn.helpers import needs_mindspore

# ----- Flatten, Dropout, Embedding -----


def test_flatten_merges_the_axes_from_start_dim_to_end_dim():
    x = Tensor(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, -2)(x).shape == (6, 4)
    assert nn.Flatten(1, 1)(x) is x
    assert nn.Flatten(0)(Tensor(np.float32(2.0))).shape == (1,)
    np.testing.assert_array_equal(
        ops.grad(lambda t: ops.square(nn.Flatten()(t)).sum())(x).asnumpy(), 2 * x.asnumpy()
    )
    with pytest.raises(ValueError):
        nn.Flatten()(Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError):
        nn.Flatten(2, 1)(x)
    with pytest.raises(TypeError):
        nn.Flatten(1.0)(x)


def test_dropout_is_the_identity_outside_training():
    x = Tensor(np.ones((4, 5), np.float32))
    drop = nn.Dropout(p=0.5)
    assert drop(x) is x
    assert nn.Dropout(p=0).set_train()(x) is x
    assert nn.Dropout(keep_prob=1.0).set_train()(x) is x
    assert nn.Dropout(p=0.5).set_train().set_train(False)(x) is x


def test_dropout_in_training_keeps_one_minus_p_and_scales_by_its_inverse():
    nn.set_seed(7)
    x = Tensor(np.full((400, 250), 2.0, np.float32))
    drop = nn.Dropout(p=0.2).set_train()
    out = drop(x).asnumpy()
    assert set(np.unique(out)) == {0.0, np.float32(2.5)}
    assert abs((out == 0).mean() - 0.2) < 0.005  # 100000 draws: the standard deviation is 0.0013
    again = drop(x).asnumpy()
    assert not np.array_equal(out, again)  # a new mask on each call
    grad = ops.grad(lambda t: drop(t).sum())(x).asnumpy()
    assert set(np.unique(grad)) == {0.0, np.float32(1.25)}  # the mask of that call, scaled
    keep = nn.Dropout(keep_prob=0.75).set_train()(x).asnumpy()  # MindSpore's deprecated form
    assert set(np.unique(keep)) == {0.0, np.float32(2 / 0.75)}
    nn.set_seed(7)
    np.testing.assert_array_equal(nn.Dropout(p=0.2).set_train()(x).asnumpy(), out)  # seeded
    assert nn.Dropout(p=0.5).set_train()(Tensor(np.ones(3, np.float16))).dtype == symgrad.float16


def test_a_jitted_dropout_draws_a_new_mask_on_each_call():
    x = Tensor(np.ones((50, 50), np.float32))
    drop = nn.Dropout(p=0.5).set_train()
    step = symgrad.jit(lambda t: drop(t).sum())
    totals = {float(step(x).asnumpy()) for _ in range(3)}
    assert len(totals) == 3


def test_dropout_arguments_as_mindspore_checks_them():
    for bad, kind in (
        (dict(p=1), ValueError),
        (dict(p=-0.1), ValueError),
        (dict(p="a"), TypeError),
        (dict(keep_prob=1), TypeError),
        (dict(keep_prob=0.0), ValueError),
    ):
        with pytest.raises(kind):
            nn.Dropout(**bad)
    with pytest.raises(TypeError):
        nn.Dropout(p=0.5).set_train()(Tensor(np.ones(3, np.int32)))


def test_embedding_picks_rows_and_sends_their_gradients_to_the_table():
    table = np.arange(15, dtype=np.float32).reshape(5, 3)
    embed = nn.Embedding(5, 3, embedding_table=Tensor(table), padding_idx=1)
    assert embed.embedding_table.name == "embedding_table"
    np.testing.assert_array_equal(embed.embedding_table.asnumpy()[1], [0, 0, 0])  # padding row zeroed
    ids = Tensor(np.array([[0, 1, 1], [4, 2, 1]], np.int32))
    out = embed(ids)
    assert out.shape == (2, 3, 3)
    np.testing.assert_array_equal(out.asnumpy()[1, 0], [12, 13, 14])
    w = Tensor(np.arange(18, dtype=np.float32).reshape(2, 3, 3))
    (grad,) = ops.grad(lambda t: ops.mul(embed(t), w).sum(), None, embed.trainable_params())(ids)
    # as MindSpore: repeated ids add up, and the padding row is trained like the others
    np.testing.assert_array_equal(
        grad.asnumpy(), [[0, 1, 2], [24, 27, 30], [12, 13, 14], [0, 0, 0], [9, 10, 11]]
    )
    assert embed(Tensor(np.int64(2))).shape == (3,)
    with pytest.raises(RuntimeError):
        embed(Tensor(np.array([5], np.int32)))
    with pytest.raises(TypeError):
        embed(Tensor(np.array([1.0], np.float32)))
    with pytest.raises(ValueError):
        nn.Embedding(5, 3, padding_idx=5)
    with pytest.raises(TypeError):
        nn.Embedding(5.0, 3)


@needs_mindspore
def test_flatten_dropout_and_embedding_as_mindspore(ms, quiet):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for args in ((), (1, 1), (2, 1), (3,), (1.0,)):
        results = []
        for lib in (ms, symgrad):
            try:
                results.append(lib.nn.Flatten(*args)(lib.Tensor(x)).shape)
            except (TypeError, ValueError) as exc:
                results.append(type(exc))
        assert results[0] == results[1], args
    for lib in (ms, symgrad):
        out = lib.nn.Dropout(p=0.2).set_train()(lib.Tensor(np.ones((100, 100), np.float32))).asnumpy()
        assert set(np.unique(out)) == {0.0, np.float32(1.25)} and abs((out == 0).mean() - 0.2) < 0.02
    table = np.sin(np.arange(15, dtype=np.float32)).reshape(5, 3)
    ids = np.array([[0, 1, 1], [4, 2, 1]], np.int32)
    results = []
    for lib in (ms, symgrad):
        embed = lib.nn.Embedding(5, 3, embedding_table=lib.Tensor(table), padding_idx=2)
        w = lib.Tensor(np.cos(np.arange(18, dtype=np.float32)).reshape(2, 3, 3))
        loss = lambda t, e=embed, w=w, lib=lib: lib.ops.mul(e(t), w).sum()  # noqa: E731
        (grad,) = lib.ops.grad(loss, None, embed.trainable_params())(lib.Tensor(ids))
        results.append((embed(lib.Tensor(ids)).asnumpy(), grad.asnumpy(), embed.embedding_table.asnumpy()))
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_allclose(got, expected, rtol=1e-6)
