"""MindSpore's parallel context on one device: ``ParallelMode`` and ``set_auto_parallel_context``.

What MindSpore 2.10 keeps on one device without ``communication.init()``: the settings are checked,
stored and read back, and nothing runs in parallel (the group has one member;
``nn.DistributedGradReducer`` reads ``gradients_mean``). It imports nothing of symgrad, so
``context`` (``from mindspore.context import ParallelMode``) and ``runtime`` can both re-export it.
"""

from __future__ import annotations


class ParallelMode:
    """The parallel modes MindSpore names (plain strings, as in MindSpore)."""

    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODE_LIST = [STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL]


# MindSpore 2.10's defaults on one device; keys it sets but does not read back map to None
_PARALLEL_DEFAULTS: dict = {
    "all_reduce_fusion_config": [],
    "auto_parallel_new_interface": False,
    "auto_parallel_search_mode": "recursive_programming",
    "auto_pipeline": False,
    "comm_fusion": None,
    "communi_parallel_mode": "all_group_parallel",
    "dataset_strategy": "data_parallel",
    "device_num": 1,
    "dump_device_local_norm": False,
    "dump_local_norm": False,
    "dump_local_norm_path": "",
    "enable_alltoall": False,
    "enable_parallel_optimizer": False,
    "force_fp32_communication": False,
    "full_batch": False,
    "global_rank": 0,
    "grad_accumulation_step": 1,
    "gradient_fp32_sync": True,
    "gradients_mean": False,
    "init_param_in_compile": True,
    "loss_repeated_mean": True,
    "optimizer_weight_shard_aggregated_save": False,
    "optimizer_weight_shard_size": -1,
    "parallel_mode": ParallelMode.STAND_ALONE,
    "parameter_broadcast": False,
    "pipeline_result_broadcast": False,
    "pipeline_stages": 1,
    "search_mode": "recursive_programming",
    "sharding_propagation": False,
    "strategy_ckpt_load_file": "",
    "strategy_ckpt_save_file": "",
}
_SET_ONLY = ("group_ckpt_save_file", "parallel_optimizer_config", "pipeline_config", "strategy_ckpt_config",
             "pipeline_segments")  # fmt: skip
_parallel: dict = dict(_PARALLEL_DEFAULTS)


def _checked_setting(key: str, value):
    if key not in _PARALLEL_DEFAULTS and key not in _SET_ONLY:
        raise ValueError(f"Set context keyword {key} is not recognized!")
    default = _PARALLEL_DEFAULTS.get(key)
    if key == "parallel_mode" and value not in ParallelMode.MODE_LIST:
        raise ValueError(
            "The context configuration parameter 'parallel_mode' only support 'stand_alone', 'data_parallel', "
            f"'hybrid_parallel', 'semi_auto_parallel' and 'auto_parallel', but got the value : {value}."
        )
    if isinstance(default, bool) and not isinstance(value, bool):
        raise TypeError(f"The parameter '{key}' must be {bool}, but got {type(value)}")
    if key in ("device_num", "global_rank", "pipeline_stages", "grad_accumulation_step"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"The parameter '{key}' must be {int}, but got {type(value)}")
        low = 0 if key == "global_rank" else 1
        if not low <= value <= 4096:
            raise ValueError(
                f"The context configuration parameter '{key}' must be an integer in [{low}, 4096], "
                f"but got the value of {key} : {value}."
            )
    return value


def set_auto_parallel_context(**kwargs) -> None:
    """Store parallel settings (``parallel_mode``, ``gradients_mean``, ``device_num``, ...) with
    MindSpore's checks; on one device they change no result."""
    checked = {key: _checked_setting(key, value) for key, value in kwargs.items()}
    _parallel.update(checked)


def get_auto_parallel_context(attr_key: str):
    """A setting of ``set_auto_parallel_context`` (MindSpore's default before one is set)."""
    if attr_key not in _PARALLEL_DEFAULTS:
        raise ValueError(f"Get context keyword {attr_key} is not recognized!")
    return _parallel[attr_key]


def reset_auto_parallel_context() -> None:
    """Every parallel setting back to MindSpore's default."""
    _parallel.clear()
    _parallel.update(_PARALLEL_DEFAULTS)
