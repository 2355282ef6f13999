"""``mindspore.train``: ``Model`` (train, eval and predict over batches), callbacks and metrics."""

from symgrad.train.callback import Callback, LossMonitor, RunContext, TimeMonitor
from symgrad.train.checkpoint_callback import CheckpointConfig, ModelCheckpoint
from symgrad.train.metrics import MAE, MSE, Accuracy, Loss, Metric
from symgrad.train.model import Model

__all__ = [
    "MAE", "MSE", "Accuracy", "Callback", "CheckpointConfig", "Loss", "LossMonitor", "Metric", "Model",
    "ModelCheckpoint", "RunContext", "TimeMonitor",
]  # fmt: skip
