"""MindSpore's checkpoints: ``save_checkpoint``, ``load_checkpoint``, ``load_param_into_net``.

The ``.ckpt`` file is MindSpore's protobuf ``Checkpoint`` message (``mindspore/train/
checkpoint_pb2.py``): ``repeated Value value = 1``, each ``Value`` a ``tag`` (1, the name) and a
``TensorProto tensor`` (2) of ``repeated int64 dims`` (1), ``tensor_type`` (2, "Float32", "Int64",
..., or "str") and ``tensor_content`` (3, the raw little-endian bytes). The wire format is written
and read here in a few lines (varints and length-delimited fields), so symgrad needs no protobuf.
Files MindSpore writes load here and files written here load in MindSpore, with the same names,
dtypes and values. A save is atomic (``symgrad.files``): a failed one leaves the old file intact.
"""

from __future__ import annotations

import binascii
import os
import stat
from collections.abc import Callable
from pathlib import Path

import numpy as np

from symgrad import dtype as mstype
from symgrad.files import atomic_file
from symgrad.nn.cell import Cell
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor

_CRC_MARK = b"crc_num"  # MindSpore's crc_check trailer: b"crc_num" + the CRC-32 in 10 big-endian bytes


# ----- the protobuf wire format -----


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # a negative int64 is ten bytes of two's complement
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2)."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def encode_entry(name: str, dims, tensor_type: str, content: bytes) -> bytes:
    """One ``Checkpoint`` message holding one named tensor (MindSpore writes one per Parameter; the
    file is their concatenation, which protobuf reads as one message)."""
    tensor = b"".join(_varint(1 << 3) + _varint(int(d)) for d in dims)
    tensor += _field(2, tensor_type.encode()) + _field(3, content)
    return _field(1, _field(1, name.encode()) + _field(2, tensor))


class _Reader:
    """Fields of one protobuf message: ``(number, wire type, value)``; a ValueError past its end."""

    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def varint(self) -> int:
        value = shift = 0
        while True:
            if self.at >= len(self.data) or shift > 63:
                raise ValueError("a varint runs past the end of its message")
            byte = self.data[self.at]
            self.at += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    def fields(self):
        while self.at < len(self.data):
            key = self.varint()
            number, wire = key >> 3, key & 7
            if wire == 0:
                yield number, wire, self.varint()
            elif wire in (1, 2, 5):
                size = {1: 8, 5: 4}.get(wire) or self.varint()
                if self.at + size > len(self.data):
                    raise ValueError(f"field {number} ({size} bytes) runs past the end of its message")
                yield number, wire, self.data[self.at : self.at + size]
                self.at += size
            else:
                raise ValueError(f"field {number} has wire type {wire}, which a checkpoint never holds")


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def decode_entries(data: bytes) -> list[tuple[str, list[int], str, bytes]]:
    """(name, dims, tensor_type, content) of each ``value`` of a ``Checkpoint`` message, in order."""
    entries = []
    for number, wire, value in _Reader(data).fields():
        if number != 1:
            continue
        if wire != 2:
            raise ValueError("a Checkpoint value is not a message")
        name, tensor, has_map = None, None, False
        for n, w, v in _Reader(value).fields():
            if n == 1 and w == 2:
                name = v.decode("utf-8")
            elif n == 2 and w == 2:
                tensor = v
            elif n == 3:
                has_map = True
        if name is None:
            raise ValueError("a Checkpoint value has no tag (its required name)")
        if tensor is None:
            raise ValueError(
                f"{name!r} holds {'a MapTensor, which symgrad cannot read' if has_map else 'no tensor'}"
            )
        dims, tensor_type, content = [], None, None
        for n, w, v in _Reader(tensor).fields():
            if n == 1 and w == 0:
                dims.append(_signed(v))
            elif n == 1 and w == 2:  # packed
                packed = _Reader(v)
                while packed.at < len(v):
                    dims.append(_signed(packed.varint()))
            elif n == 2 and w == 2:
                tensor_type = v.decode("utf-8")
            elif n == 3 and w == 2:
                content = v
        if tensor_type is None or content is None:
            raise ValueError(f"the tensor of {name!r} lacks its required tensor_type or tensor_content")
        entries.append((name, dims, tensor_type, content))
    return entries


# ----- saving -----


def _named_tensors(save_obj, choice_func) -> list[tuple[str, object]]:
    """(name, Tensor or str) pairs from a Cell, a list of Parameters or of {"name", "data"} dicts, or a dict."""
    if isinstance(save_obj, Cell):
        named: dict[str, object] = {}
        for _, p in save_obj.parameters_and_names():
            named[p.name] = p
        pairs = list(named.items())
    elif isinstance(save_obj, dict):
        for key in save_obj:
            if not isinstance(key, str):
                raise TypeError(
                    f"For save_checkpoint, when save_obj is made up by dict, the key should be str, got {type(key)}"
                )
        pairs = [(k, Tensor(v) if isinstance(v, np.ndarray) else v) for k, v in save_obj.items()]
    elif isinstance(save_obj, list):
        pairs = []
        for item in save_obj:
            if isinstance(item, dict) and "name" in item and "data" in item:
                if not isinstance(item["name"], str) or not isinstance(item["data"], Tensor):
                    raise TypeError(
                        "For save_checkpoint, each dict needs a str 'name' and a Tensor or Parameter 'data'"
                    )
                pairs.append((item["name"], item["data"]))
            elif isinstance(item, Parameter):
                pairs.append((item.name, item))
            else:
                raise TypeError(
                    f"For save_checkpoint, a list must hold Parameters or {{'name', 'data'}} dicts, got {type(item).__name__}"
                )
    else:
        raise TypeError(
            f"For 'save_checkpoint', the parameter 'save_obj' must be nn.Cell, list or dict, but got {type(save_obj)}."
        )
    return [(k, v) for k, v in pairs if choice_func is None or choice_func(k)]


def _entry(name: str, value) -> bytes:
    if isinstance(value, str):  # MindSpore stores a string as UTF-32 characters, dims [0]
        return encode_entry(name, [0], "str", np.array(value).tobytes())
    if not isinstance(value, Tensor):
        raise TypeError(
            f"For save_checkpoint, {name!r} must be a Parameter, Tensor or str, got {type(value).__name__}"
        )
    array = value.asnumpy()
    if array.size == 0:  # MindSpore writes no entry for an empty tensor (its slices loop never runs)
        return b""
    little = array.astype(array.dtype.newbyteorder("<"), copy=False)
    return encode_entry(name, array.shape, mstype.to_dtype(array.dtype).name, little.tobytes())


def save_checkpoint(
    save_obj,
    ckpt_file_name: str | os.PathLike,
    integrated_save: bool = True,
    async_save: bool = False,
    append_dict: dict | None = None,
    enc_key: bytes | None = None,
    enc_mode: str = "AES-GCM",
    choice_func: Callable[[str], bool] | None = None,
    crc_check: bool = False,
    format: str = "ckpt",  # noqa: A002 - MindSpore's name
    **kwargs,
) -> None:
    """Write the Parameters of ``save_obj`` (a Cell, a list, or a dict as ``load_checkpoint``
    returns) to ``ckpt_file_name`` (".ckpt" added unless it ends in "ckpt"), in MindSpore's format,
    atomically; ``append_dict`` adds numbers, strings or Tensors. Saves are synchronous (``async_save``
    gives the same file); encryption and safetensors are not supported."""
    if format != "ckpt":
        raise ValueError(f"For 'save_checkpoint', symgrad writes format 'ckpt' only, got {format!r}")
    if enc_key is not None:
        raise ValueError("For 'save_checkpoint', symgrad does not encrypt checkpoints (enc_key must be None)")
    if not isinstance(ckpt_file_name, str | os.PathLike):
        raise TypeError(f"For 'save_checkpoint', 'ckpt_file_name' must be a str, got {type(ckpt_file_name)}")
    path = os.path.realpath(ckpt_file_name)
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', {path} is a directory, it must be a file name.")
    if not path.endswith("ckpt"):
        path += ".ckpt"
    pairs = _named_tensors(save_obj, choice_func)
    for key, value in (append_dict or {}).items():
        if not isinstance(key, str) or not isinstance(value, bool | int | float | str | Tensor):
            raise TypeError(f"For 'save_checkpoint', append_dict holds {key!r}: {type(value).__name__}")
        pairs.append((key, value if isinstance(value, str | Tensor) else Tensor(value)))
    content = b"".join(_entry(name, value) for name, value in pairs)
    if crc_check:
        content += _CRC_MARK + binascii.crc32(content).to_bytes(10, byteorder="big")
    with atomic_file(path) as file:
        file.write(content)
    os.chmod(path, stat.S_IRUSR)  # read-only, as MindSpore leaves its checkpoints


# ----- loading -----

_NUMPY = {
    d.name: d.np
    for d in map(
        mstype.to_dtype,
        (np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.bool_),
    )
}


def _read(path: str, crc_check: bool) -> bytes:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ValueError(f"Failed to read the checkpoint file {path}: {exc}") from None
    if data[-17:-10] == _CRC_MARK:
        data, stored = data[:-17], int.from_bytes(data[-10:], byteorder="big")
        if crc_check and binascii.crc32(data) != stored:
            raise ValueError(
                f"For 'load_checkpoint', the crc check of {path} has failed; the file is damaged."
            )
    return data


def load_checkpoint(
    ckpt_file_name: str | os.PathLike,
    net=None,
    strict_load: bool = False,
    filter_prefix=None,
    dec_key: bytes | None = None,
    dec_mode: str = "AES-GCM",
    specify_prefix=None,
    choice_func: Callable[[str], bool] | None = None,
    crc_check: bool = False,
    remove_redundancy: bool = False,
    format: str = "ckpt",  # noqa: A002 - MindSpore's name
) -> dict:
    """The checkpoint's contents as ``{name: Parameter}`` (a str for a saved string), loaded into
    ``net`` too when given; ``specify_prefix``/``filter_prefix``/``choice_func`` pick names. A file
    that is missing, truncated or corrupted raises a ValueError naming it."""
    if format != "ckpt" or dec_key is not None:
        raise ValueError("For 'load_checkpoint', symgrad reads unencrypted 'ckpt' files only")
    path = os.path.realpath(ckpt_file_name)
    if not str(ckpt_file_name).endswith(format):
        raise ValueError(
            f"For 'load_checkpoint', the checkpoint file format must same with 'format', but got "
            f"file_name:'{ckpt_file_name}', format:'{format}'"
        )
    if not os.path.exists(path):
        raise ValueError(f"For 'load_checkpoint', the checkpoint file: {path} does not exist.")
    specify = (specify_prefix,) if isinstance(specify_prefix, str) else specify_prefix
    filtered = (filter_prefix,) if isinstance(filter_prefix, str) else filter_prefix
    try:
        entries = decode_entries(_read(path, crc_check))
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"Failed to read the checkpoint file {path}. The file may be corrupted or truncated, and the content "
            f"cannot be parsed ({exc})."
        ) from None
    result: dict = {}
    i = 0
    while i < len(entries):
        name, dims, tensor_type, _ = entries[i]
        j = i + 1
        while j < len(entries) and entries[j][0] == name:  # a large tensor is saved in slices
            j += 1
        content = b"".join(e[3] for e in entries[i:j])
        i = j
        if specify and not any(name.startswith(p) for p in specify):
            continue
        if filtered and any(name.startswith(p) for p in filtered):
            continue
        if specify is None and filtered is None and choice_func is not None and not choice_func(name):
            continue
        result[name] = _value(path, name, dims, tensor_type, content)
    if not result:
        raise ValueError(
            f"The loaded parameter dict of {path} is empty after filter or specify, please check whether "
            "'filter_prefix' or 'specify_prefix' are set correctly."
        )
    if net is not None:
        load_param_into_net(net, result, strict_load)
    return result


def _value(path: str, name: str, dims: list[int], tensor_type: str, content: bytes):
    """The Parameter (or str) that one entry holds, or a ValueError naming the file and the entry."""
    if tensor_type == "str":
        return str(np.frombuffer(content, f"<U{len(content) // 4}")[0]) if content else ""
    if tensor_type not in _NUMPY:
        raise ValueError(
            f"For 'load_checkpoint', {path}: {name!r} has tensor_type {tensor_type!r}, which symgrad cannot hold"
        )
    dtype = _NUMPY[tensor_type].newbyteorder("<")
    shape = () if dims == [0] else tuple(dims)
    if any(d < 0 for d in shape) or len(content) != int(np.prod(shape)) * dtype.itemsize:
        raise ValueError(
            f"Failed to read the checkpoint file {path}: {name!r} of shape {shape} and type {tensor_type} "
            f"needs {int(np.prod(shape)) * dtype.itemsize} bytes but holds {len(content)} (truncated or corrupted)."
        )
    return Parameter(np.frombuffer(content, dtype).astype(dtype.newbyteorder("=")).reshape(shape), name=name)


def _update(param: Parameter, new: Parameter, strict_load: bool) -> None:
    """MindSpore's ``_update_param``: equal shapes (or extra trailing 1s), equal dtypes, or a float
    (int) cast to another float (int) unless ``strict_load``; RuntimeError otherwise."""
    value = new.asnumpy()
    if value.shape != param.shape:
        extra = value.shape[param.ndim :]
        if value.ndim <= param.ndim or any(d != 1 for d in extra):
            raise RuntimeError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same shape as "
                f"{param.name} in the argument 'parameter_dict'. But got its shape {param.shape} in the argument "
                f"'net' and shape {value.shape} in the argument 'parameter_dict'."
            )
        value = value.reshape(param.shape)
    if value.dtype != param.dtype.np:
        kinds = {value.dtype.kind, param.dtype.np.kind}
        if strict_load or not (kinds == {"f"} or kinds == {"i"}):
            raise RuntimeError(
                f"For 'load_param_into_net', {param.name} in the argument 'net' should have the same type as "
                f"{param.name} in the argument 'parameter_dict'. but got its type {param.dtype} in the argument "
                f"'net' and type {new.dtype} in the argument 'parameter_dict'."
            )
    param.set_data(value)


def load_param_into_net(
    net, parameter_dict: dict, strict_load: bool = False, remove_redundancy: bool = False
):
    """Copy ``parameter_dict``'s values into ``net``'s Parameters of the same names; returns
    MindSpore's ``(param_not_load, ckpt_not_load)``: the network's names not found, and the dict's
    names not used. Without ``strict_load``, names still missing are looked for behind a common prefix
    (a dict saved from a wrapper such as ``WithLossCell``), as MindSpore does."""
    if not isinstance(net, Cell):
        raise TypeError(
            f"For 'load_param_into_net', the argument 'net' should be a Cell, but got {type(net)}."
        )
    if not isinstance(parameter_dict, dict):
        raise TypeError(
            f"For 'load_param_into_net', the argument 'parameter_dict' should be a dict, but got {type(parameter_dict)}."
        )
    for key, value in parameter_dict.items():
        if not isinstance(key, str) or not isinstance(value, Parameter | str | list):
            raise TypeError(
                f"For 'parameter_dict', the element in the argument 'parameter_dict' should be a 'str' and "
                f"'Parameter' , but got {type(key)} and {type(value)}."
            )
    param_not_load: list[str] = []
    ckpt_not_load = list(parameter_dict)
    params = [p for _, p in net.parameters_and_names()]
    for param in params:
        if param.name in parameter_dict:
            new = parameter_dict[param.name]
            if not isinstance(new, Parameter):  # a saved string: MindSpore skips it
                continue
            _update(param, new, strict_load)
            ckpt_not_load.remove(param.name)
        elif not param.name.startswith("accu_grads"):
            param_not_load.append(param.name)
    if param_not_load and not strict_load:
        _load_behind_prefix(params, parameter_dict, param_not_load, strict_load)
    return param_not_load, ckpt_not_load


def _load_behind_prefix(params, parameter_dict: dict, param_not_load: list[str], strict_load: bool) -> None:
    """MindSpore's ``_load_dismatch_prefix_params``: find a prefix that a dict name carries before a
    missing network name, load every missing name found behind it, and repeat."""
    prefix, longest = "", param_not_load[0]
    while prefix != longest and param_not_load:
        prefix = longest
        for net_name in param_not_load:
            for dict_name in parameter_dict:
                if dict_name.endswith(net_name):
                    prefix = dict_name[: -len(net_name)]
                    break
            if prefix != longest:
                break
        if prefix != longest:
            for param in params:
                behind = prefix + param.name
                if param.name in param_not_load and behind in parameter_dict:
                    _update(param, parameter_dict[behind], strict_load)
                    param_not_load.remove(param.name)


__all__ = ["load_checkpoint", "load_param_into_net", "save_checkpoint"]
