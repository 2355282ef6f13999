"""Checkpoint files (save_checkpoint, load_checkpoint, load_param_into_net): MindSpore 2.10's bytes,
every dtype, damaged and truncated files named, a failed save that keeps the old file.

The numbers asserted directly were computed by real MindSpore 2.10 on the CPU, so these tests run
without it; where MindSpore is installed the ``*_as_mindspore`` tests also run both libraries on the
same inputs and weights and compare checkpoint files both ways.
"""

from __future__ import annotations

import itertools
import os
import stat
from pathlib import Path

import numpy as np
import pytest

import symgrad
from symgrad import Parameter, Tensor, nn
from tests.nn.helpers import needs_mindspore

# ----- checkpoints -----

ARRAYS = {
    "w": (np.arange(6, dtype=np.float32).reshape(2, 3) / 7),
    "s": np.array(3.5, np.float32),
    "i": np.array([1, -2, 2**40], np.int64),
    "h": np.array([1.5, -0.25], np.float16),
    "n": np.array(7, np.int32),
    "d": np.array([[1e-300]], np.float64),
    "b": np.array([True, False]),
}
# mindspore.save_checkpoint([{"name": "w", "data": [[1, 2], [3, 4]] float32}, {"name": "n", "data": 7 int64}])
TINY = bytes.fromhex(
    "0a240a0177121f080208021207466c6f617433321a100000803f0000004000004040000080400a160a016e1211"
    "1205496e7436341a080700000000000000"
)


def test_the_file_is_mindspores_byte_for_byte(tmp_path):
    path = tmp_path / "tiny.ckpt"
    data = [
        {"name": "w", "data": Tensor(np.array([[1, 2], [3, 4]], np.float32))},
        {"name": "n", "data": Tensor(7)},
    ]
    symgrad.save_checkpoint(data, str(path))
    assert path.read_bytes() == TINY
    loaded = symgrad.load_checkpoint(str(path))
    assert list(loaded) == ["w", "n"] and loaded["n"].dtype == symgrad.int64 and loaded["n"].shape == ()
    assert isinstance(loaded["w"], Parameter) and loaded["w"].name == "w"


def test_every_dtype_scalars_and_strings_round_trip(tmp_path):
    path = tmp_path / "all"  # ".ckpt" is added, as MindSpore does
    symgrad.save_checkpoint(
        [{"name": k, "data": Tensor(v)} for k, v in ARRAYS.items()],
        str(path),
        append_dict={"epoch": 3, "lr": 0.5, "tag": "héllo"},
    )
    assert not path.exists() and (tmp_path / "all.ckpt").exists()
    mode = stat.S_IMODE(os.stat(tmp_path / "all.ckpt").st_mode)
    assert mode == stat.S_IRUSR  # read-only, as MindSpore leaves it
    loaded = symgrad.load_checkpoint(str(tmp_path / "all.ckpt"))
    assert list(loaded) == [*ARRAYS, "epoch", "lr", "tag"]
    for name, value in ARRAYS.items():
        got = loaded[name].asnumpy()
        assert got.dtype == value.dtype and got.shape == value.shape
        np.testing.assert_array_equal(got, value)
    assert loaded["tag"] == "héllo"
    assert loaded["epoch"].dtype == symgrad.int64 and loaded["lr"].dtype == symgrad.float32
    symgrad.save_checkpoint(loaded, str(tmp_path / "again.ckpt"))  # a loaded dict saves as it was
    assert (tmp_path / "again.ckpt").read_bytes() == (tmp_path / "all.ckpt").read_bytes()


def test_crc_check_detects_a_damaged_file(tmp_path):
    path = str(tmp_path / "crc.ckpt")
    symgrad.save_checkpoint([{"name": "w", "data": Tensor(ARRAYS["w"])}], path, crc_check=True)
    assert symgrad.load_checkpoint(path, crc_check=True)["w"].shape == (2, 3)
    data = bytearray(Path(path).read_bytes())
    data[20] ^= 0xFF
    os.chmod(path, 0o600)
    Path(path).write_bytes(bytes(data))
    with pytest.raises(ValueError, match="crc"):
        symgrad.load_checkpoint(path, crc_check=True)


@pytest.mark.parametrize(
    "damage",
    [
        lambda b: b[:5],
        lambda b: b[:50],
        lambda b: b[:-3],
        lambda b: bytes(range(256)) * 3,
        lambda b: b"\x00" * 64,
        lambda b: b.replace(b"\x1a\x18", b"\x1a\x14", 1),
    ],
    ids=["5 bytes", "50 bytes", "last 3 bytes cut", "junk", "zeros", "content shorter than its dims"],
)
def test_a_truncated_or_corrupted_file_gives_an_error_naming_it(tmp_path, damage):
    good = tmp_path / "good.ckpt"
    symgrad.save_checkpoint([{"name": k, "data": Tensor(v)} for k, v in ARRAYS.items()], str(good))
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes(damage(good.read_bytes()))
    with pytest.raises(ValueError, match="bad.ckpt"):
        symgrad.load_checkpoint(str(bad))
    with pytest.raises(ValueError, match="does not exist"):
        symgrad.load_checkpoint(str(tmp_path / "missing.ckpt"))


def test_a_failed_save_leaves_the_old_checkpoint(tmp_path, monkeypatch):
    path = tmp_path / "keep.ckpt"
    symgrad.save_checkpoint([{"name": "w", "data": Tensor(ARRAYS["w"])}], str(path))
    before = path.read_bytes()

    def full_disk(_fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(OSError):
        symgrad.save_checkpoint([{"name": "v", "data": Tensor(ARRAYS["d"])}], str(path))
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.ckpt"]


class Inner(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(np.ones((2, 3), np.float32), name="w")
        self.b = Parameter(np.zeros(3, np.float32), name="b")

    def construct(self, x):
        return x


class Outer(nn.Cell):
    def __init__(self):
        super().__init__()
        self.a = Inner()
        self.c = Parameter(np.array([1, 2], np.int32), name="c")

    def construct(self, x):
        return x


def test_load_param_into_net_returns_mindspores_two_lists(tmp_path):
    two = np.full((2, 3), 2.0, np.float32)
    new = lambda value, name="p": Parameter(value, name=name)  # noqa: E731
    net = Outer()
    assert symgrad.load_param_into_net(net, {"a.w": new(two), "x": new(np.ones(1, np.float32))}) == (
        ["c", "a.b"],
        ["x"],
    )
    np.testing.assert_array_equal(net.a.w.asnumpy(), two)
    # a dict saved from a wrapper: found behind the common prefix (MindSpore does not update ckpt_not_load)
    net = Outer()
    wrapped = {
        "network.a.w": new(two),
        "network.a.b": new(np.ones(3, np.float32)),
        "network.c": new(np.array([5, 6], np.int32)),
    }
    assert symgrad.load_param_into_net(net, wrapped) == ([], ["network.a.w", "network.a.b", "network.c"])
    np.testing.assert_array_equal(net.c.asnumpy(), [5, 6])
    assert symgrad.load_param_into_net(Outer(), {"network.a.w": new(two)}, strict_load=True) == (
        ["c", "a.w", "a.b"],
        ["network.a.w"],
    )
    net = Outer()  # float64 into float32 and int64 into int32 are cast unless strict_load
    assert symgrad.load_param_into_net(
        net, {"a.w": new(two.astype(np.float64)), "c": new(np.array([3, 4]))}
    ) == (["a.b"], [])
    assert net.a.w.dtype == symgrad.float32 and net.c.dtype == symgrad.int32
    for bad, strict in (
        ({"a.w": new(two.astype(np.float64))}, True),
        ({"c": new(np.array([3.0, 4.0]))}, False),
        ({"a.w": new(np.ones((3, 2), np.float32))}, False),
    ):
        with pytest.raises(RuntimeError):
            symgrad.load_param_into_net(Outer(), bad, strict_load=strict)
    with pytest.raises(TypeError):
        symgrad.load_param_into_net(Outer(), {"a.w": two})
    with pytest.raises(TypeError):
        symgrad.load_param_into_net(3, {})
    # a whole network through a file, into a fresh one
    net = Outer()
    net.a.w.set_data(two)
    symgrad.save_checkpoint(net, str(tmp_path / "net.ckpt"))
    fresh = Outer()
    assert list(symgrad.load_checkpoint(str(tmp_path / "net.ckpt"), net=fresh)) == ["c", "a.w", "a.b"]
    np.testing.assert_array_equal(fresh.a.w.asnumpy(), two)
    assert list(
        symgrad.load_checkpoint(str(tmp_path / "net.ckpt"), choice_func=lambda n: n.startswith("a."))
    ) == ["a.w", "a.b"]
    with pytest.raises(ValueError, match="empty"):
        symgrad.load_checkpoint(str(tmp_path / "net.ckpt"), filter_prefix=["a", "c"])


@needs_mindspore
def test_checkpoints_cross_between_the_libraries(ms, quiet, tmp_path):
    data = lambda lib: [{"name": k, "data": lib.Tensor(v)} for k, v in ARRAYS.items()]  # noqa: E731
    extra = {"epoch": 3, "lr": 0.5, "tag": "héllo"}
    ms.save_checkpoint(data(ms), str(tmp_path / "ms.ckpt"), append_dict=dict(extra), crc_check=True)
    symgrad.save_checkpoint(data(symgrad), str(tmp_path / "sg.ckpt"), append_dict=dict(extra), crc_check=True)
    assert (tmp_path / "sg.ckpt").read_bytes() == (tmp_path / "ms.ckpt").read_bytes()
    for lib, name in itertools.product((ms, symgrad), ("ms", "sg")):
        loaded = lib.load_checkpoint(str(tmp_path / f"{name}.ckpt"), crc_check=True)
        assert list(loaded) == [*ARRAYS, *extra]
        for key, value in ARRAYS.items():
            got = loaded[key].asnumpy()
            assert got.dtype == value.dtype and got.shape == value.shape and loaded[key].name == key
            np.testing.assert_array_equal(got, value)
        assert loaded["tag"] == "héllo"
    # a MindSpore network's file loads into the same network written with symgrad, and back
    ms_net = ms.nn.SequentialCell([ms.nn.Dense(3, 4), ms.nn.ReLU(), ms.nn.Dense(4, 2)])
    ms.save_checkpoint(ms_net, str(tmp_path / "net.ckpt"))
    sg_net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU(), nn.Dense(4, 2)])
    assert symgrad.load_param_into_net(sg_net, symgrad.load_checkpoint(str(tmp_path / "net.ckpt"))) == (
        [],
        [],
    )
    x = np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32)
    np.testing.assert_allclose(
        sg_net(Tensor(x)).asnumpy(), ms_net(ms.Tensor(x)).asnumpy(), rtol=1e-6, atol=1e-6
    )
    unknown = {"extra": Parameter(np.ones(2, np.float32), name="extra")}
    results = []
    for lib, net in ((ms, ms_net), (symgrad, sg_net)):
        params = lib.load_checkpoint(str(tmp_path / "net.ckpt"))
        params.pop("0.bias")
        params["extra"] = lib.Parameter(lib.Tensor(unknown["extra"].asnumpy()), name="extra")
        results.append(lib.load_param_into_net(net, params))
    assert results[0] == results[1] == (["0.bias"], ["extra"])
    bad = tmp_path / "bad.ckpt"
    bad.write_bytes((tmp_path / "ms.ckpt").read_bytes()[:50])
    for lib in (ms, symgrad):
        with pytest.raises(ValueError):
            lib.load_checkpoint(str(bad))
