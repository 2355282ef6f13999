"""ModelCheckpoint and CheckpointConfig: files named, counted and pruned as MindSpore 2.10's (its
file list recorded from MindSpore, and compared live where MindSpore is installed), the prefix
renamed when used, the saved weights the ones trained, and bad arguments named."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import warnings

import numpy as np
import pytest

import symgrad
from symgrad import nn
from symgrad.train import CheckpointConfig, ModelCheckpoint

X = np.random.default_rng(0).normal(size=(12, 3)).astype(np.float32)
Y = X.sum(1, keepdims=True)
# MindSpore 2.10: Model.train(3 epochs of 3 batches) with save_checkpoint_steps=2, keep_checkpoint_max=3
MINDSPORE_FILES = ["net-2_3.ckpt", "net-3_2.ckpt", "net-3_3.ckpt"]


def _train_symgrad(directory, prefix="net", runs=1, **config):
    net = nn.Dense(3, 1)
    batches = [(X[i : i + 4], Y[i : i + 4]) for i in range(0, 12, 4)]
    for _ in range(runs):
        callback = ModelCheckpoint(prefix=prefix, directory=str(directory), config=CheckpointConfig(**config))
        model = symgrad.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
        model.train(3, batches, callbacks=[callback])
    return net, callback


def test_files_are_named_counted_and_pruned_as_mindspores(tmp_path):
    net, callback = _train_symgrad(tmp_path, save_checkpoint_steps=2, keep_checkpoint_max=3)
    assert sorted(os.listdir(tmp_path)) == MINDSPORE_FILES
    assert callback.latest_ckpt_file_name == str(tmp_path / "net-3_3.ckpt")
    saved = symgrad.load_checkpoint(str(tmp_path / "net-3_3.ckpt"))
    np.testing.assert_array_equal(saved["weight"].asnumpy(), net.weight.asnumpy())
    np.testing.assert_array_equal(saved["bias"].asnumpy(), net.bias.asnumpy())


def test_a_used_prefix_gets_a_number_and_every_step_is_the_default(tmp_path):
    _train_symgrad(tmp_path, runs=2, keep_checkpoint_max=2)
    names = sorted(os.listdir(tmp_path))
    assert names == ["net-3_2.ckpt", "net-3_3.ckpt", "net_1-3_2.ckpt", "net_1-3_3.ckpt"]


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="'prefix' must be a string without '/'"):
        ModelCheckpoint(prefix="a/b", directory=str(tmp_path))
    with pytest.raises(
        ValueError, match="save_checkpoint_steps and save_checkpoint_seconds cannot both be 0"
    ):
        CheckpointConfig(save_checkpoint_steps=0)
    with pytest.raises(ValueError, match="'keep_checkpoint_max' must be an int >= 0"):
        CheckpointConfig(keep_checkpoint_max=-1)
    with pytest.raises(TypeError, match="'config' must be a CheckpointConfig"):
        ModelCheckpoint(directory=str(tmp_path), config={"save_checkpoint_steps": 2})


@pytest.mark.skipif(importlib.util.find_spec("mindspore") is None, reason="MindSpore is not installed")
def test_the_file_lists_are_mindspores(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mindspore
        import mindspore.dataset as ds
        from mindspore.train import CheckpointConfig as MsConfig
        from mindspore.train import Model as MsModel
        from mindspore.train import ModelCheckpoint as MsCheckpoint

        with contextlib.suppress(Exception):  # MindSpore 2.10's first op under NumPy 2 fails once
            mindspore.ops.add(mindspore.Tensor(np.ones(2, np.float32)), 1)
        for _run in range(2):
            net = mindspore.nn.Dense(3, 1)
            data = ds.NumpySlicesDataset({"x": X, "y": Y}, shuffle=False).batch(4)
            callback = MsCheckpoint(
                "net", str(tmp_path / "ms"), MsConfig(save_checkpoint_steps=2, keep_checkpoint_max=3)
            )
            MsModel(net, mindspore.nn.MSELoss(), mindspore.nn.SGD(net.trainable_params(), 0.01)).train(
                3, data, callbacks=[callback]
            )
    _train_symgrad(tmp_path / "sg", runs=2, save_checkpoint_steps=2, keep_checkpoint_max=3)
    ckpts = sorted(n for n in os.listdir(tmp_path / "ms") if n.endswith(".ckpt"))
    assert sorted(os.listdir(tmp_path / "sg")) == ckpts
    assert ckpts[:3] == MINDSPORE_FILES


def test_time_monitor_prints_mindspores_epoch_line(tmp_path, capsys):
    """TimeMonitor's line as MindSpore 2.10 prints it: 'Train epoch time: T ms, per step time: S ms',
    S = T / steps per epoch; with data_time, the time between steps too."""
    import re

    from symgrad.train import TimeMonitor

    net = nn.Dense(3, 1)
    batches = [(X[i : i + 4], Y[i : i + 4]) for i in range(0, 12, 4)]
    model = symgrad.Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), 0.01))
    model.train(2, batches, callbacks=[TimeMonitor(data_time=True)])
    lines = [line for line in capsys.readouterr().out.splitlines() if "epoch time" in line]
    assert len(lines) == 2
    for line in lines:
        found = re.fullmatch(
            r"Train epoch time: ([\d.]+) ms, per step time: ([\d.]+) ms \(data time: ([\d.]+) ms\)", line
        )
        assert found, line
        epoch_ms, step_ms = float(found[1]), float(found[2])
        assert abs(step_ms - epoch_ms / 3) <= 1e-3 + 1e-6 * epoch_ms
    with pytest.raises(ValueError, match="TimeMonitor: data_size must be a positive int"):
        TimeMonitor(data_size=0)
