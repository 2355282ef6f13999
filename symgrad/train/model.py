"""``Model``: MindSpore's high-level training loop over a dataset of batches.

``Model(network, loss_fn, optimizer, metrics)`` wraps the network as MindSpore's does
(``WithLossCell`` then ``TrainOneStepCell``); ``train(epoch, dataset, callbacks)`` runs one step per
batch, ``eval(dataset)`` returns ``{metric name: value}`` and ``predict(*data)`` the network's output.
A dataset is anything with ``create_tuple_iterator()`` (a MindSpore dataset) or any iterable of
batches (tuples of NumPy arrays or Tensors, the label last); it is read again for every epoch.
``dataset_sink_mode`` changes nothing here (MindSpore feeds the same batches either way).
"""

from __future__ import annotations

from types import SimpleNamespace

from symgrad import runtime
from symgrad.nn.cell import Cell
from symgrad.nn.loss_scale import TrainOneStepWithLossScaleCell
from symgrad.nn.wrap import TrainOneStepCell, WithLossCell
from symgrad.train.callback import Callback, RunContext
from symgrad.train.metrics import Loss, metrics_from


def _callbacks(value) -> list[Callback]:
    items = [] if value is None else list(value) if isinstance(value, list | tuple) else [value]
    bad = [type(c).__name__ for c in items if not isinstance(c, Callback)]
    if bad:
        raise TypeError(f"Model: every callback must be a Callback, got {bad}")
    return items


class Model:
    """``Model(network, loss_fn=None, optimizer=None, metrics=None, eval_network=None, eval_indexes=None,
    amp_level="O0", boost_level="O0")``."""

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, eval_network=None,
                 eval_indexes=None, amp_level: str = "O0", boost_level: str = "O0", **kwargs):  # fmt: skip
        if not isinstance(network, Cell):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        if amp_level not in ("O0", "auto") and amp_level is not None:
            raise ValueError(
                f"Model: amp_level {amp_level!r} (mixed precision) is not supported; symgrad's Model "
                "computes in the network's dtypes (amp_level='O0'); use Cell.to_float for float16"
            )
        if eval_indexes is not None and (
            not isinstance(eval_indexes, list | tuple) or len(eval_indexes) != 3
        ):
            raise ValueError(
                f"Model: eval_indexes must be a list of 3 indexes (loss, outputs, label), got {eval_indexes!r}"
            )
        self._network, self._loss_fn, self._optimizer = network, loss_fn, optimizer
        self._metrics = metrics_from(metrics)
        self._eval_network, self._eval_indexes = eval_network, eval_indexes
        self._amp_level, self._boost_level, self._kwargs = amp_level, boost_level, kwargs
        self._train_network: TrainOneStepCell | None = None
        manager = kwargs.pop("loss_scale_manager", None)
        if manager is not None and not hasattr(manager, "get_update_cell"):
            raise TypeError(
                f"Model: loss_scale_manager must be a LossScaleManager, got {type(manager).__name__}"
            )
        if optimizer is not None:
            loss_net = WithLossCell(network, loss_fn) if loss_fn is not None else network
            update = manager.get_update_cell() if manager is not None else None
            if update is not None:
                self._train_network = TrainOneStepWithLossScaleCell(loss_net, optimizer, update)
            else:
                self._train_network = TrainOneStepCell(loss_net, optimizer)

    @property
    def train_network(self):
        return self._train_network

    @property
    def predict_network(self):
        return self._network

    @property
    def eval_network(self):
        return self._eval_network

    def _params(self, **values) -> SimpleNamespace:
        return SimpleNamespace(
            network=self._network, train_network=self._train_network, loss_fn=self._loss_fn,
            optimizer=self._optimizer, parallel_mode=runtime.get_auto_parallel_context("parallel_mode"),
            device_number=1, cur_epoch_num=0, cur_step_num=0, net_outputs=None, **values,
        )  # fmt: skip

    def train(self, epoch: int, train_dataset, callbacks=None, dataset_sink_mode: bool = False,
              sink_size: int = -1, initial_epoch: int = 0) -> None:  # fmt: skip
        """``epoch - initial_epoch`` passes over ``train_dataset``, one optimizer step per batch."""
        if self._train_network is None:
            raise ValueError("Model.train: the model has no optimizer; pass optimizer= to Model")
        for name, value, low in (("epoch", epoch, 1), ("initial_epoch", initial_epoch, 0)):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"Model.train: {name} must be an int >= {low}, got {value!r}")
        if initial_epoch >= epoch:
            raise ValueError(f"Model.train: initial_epoch {initial_epoch} must be less than epoch {epoch}")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
            raise ValueError(f"Model.train: sink_size must be -1 or a positive int, got {sink_size!r}")
        cbs = _callbacks(callbacks)
        batches = list(runtime._batches(train_dataset))
        if not batches:
            raise ValueError("Model.train: the dataset yields no batch")
        per_epoch = sink_size if dataset_sink_mode and sink_size > 0 else len(batches)
        params = self._params(epoch_num=epoch, batch_num=per_epoch, train_dataset=train_dataset, mode="train",
                              dataset_sink_mode=dataset_sink_mode, list_callback=cbs)  # fmt: skip
        params.cur_step_num = initial_epoch * per_epoch
        context = RunContext(params)
        self._train_network.set_train(True)
        for cb in cbs:
            cb.on_train_begin(context)
        position = 0
        for e in range(initial_epoch + 1, epoch + 1):
            params.cur_epoch_num = e
            for cb in cbs:
                cb.on_train_epoch_begin(context)
            for _ in range(per_epoch):
                batch = batches[position % len(batches)]
                position += 1
                params.cur_step_num += 1
                for cb in cbs:
                    cb.on_train_step_begin(context)
                params.net_outputs = self._train_network(*batch)
                for cb in cbs:
                    cb.on_train_step_end(context)
                if context.get_stop_requested():
                    break
            for cb in cbs:
                cb.on_train_epoch_end(context)
            if context.get_stop_requested():
                break
        for cb in cbs:
            cb.on_train_end(context)

    def _evaluated(self, batch: tuple) -> tuple:
        """(loss, outputs, label) of one batch, as MindSpore's ``WithEvalCell`` or ``eval_network`` gives them."""
        if self._eval_network is not None:
            out = self._eval_network(*batch)
            if self._eval_indexes is None:
                return (None, *out) if isinstance(out, tuple) and len(out) == 2 else (None, out, batch[-1])
            return tuple(out[i] for i in self._eval_indexes)
        if self._loss_fn is None:
            raise ValueError("Model.eval: the model needs loss_fn or eval_network to compute metrics")
        outputs = self._network(*batch[:-1])
        return self._loss_fn(outputs, batch[-1]), outputs, batch[-1]

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode: bool = False) -> dict:
        """``{name: value}`` of every metric over one pass of ``valid_dataset``, the network in eval mode."""
        if not self._metrics:
            raise ValueError(
                "For Model.eval, the model argument 'metrics' can not be None or empty, you should set the "
                "argument 'metrics' for model."
            )
        cbs = _callbacks(callbacks)
        params = self._params(mode="eval", valid_dataset=valid_dataset, batch_num=0, list_callback=cbs)
        context = RunContext(params)
        self._network.set_train(False)
        for metric in self._metrics.values():
            metric.clear()
        for cb in cbs:
            cb.on_eval_begin(context)
            cb.on_eval_epoch_begin(context)
        for batch in runtime._batches(valid_dataset):
            params.cur_step_num += 1
            params.batch_num += 1
            for cb in cbs:
                cb.on_eval_step_begin(context)
            loss, outputs, label = self._evaluated(batch)
            params.net_outputs = (loss, outputs, label)
            for metric in self._metrics.values():
                if isinstance(metric, Loss):
                    metric.update(loss)
                else:
                    metric.update(outputs, label)
            for cb in cbs:
                cb.on_eval_step_end(context)
        results = {name: metric.eval() for name, metric in self._metrics.items()}
        params.metrics = results
        for cb in cbs:
            cb.on_eval_epoch_end(context)
            cb.on_eval_end(context)
        return results

    def predict(self, *predict_data, backend=None, config=None):
        """The network's output for ``predict_data``, in eval mode."""
        self._network.set_train(False)
        return self._network(*predict_data)


__all__ = ["Model"]
