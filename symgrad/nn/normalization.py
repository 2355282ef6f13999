"""Normalisation layers: ``BatchNorm1d``, ``BatchNorm2d``, ``BatchNorm3d``, ``LayerNorm``,
``GroupNorm`` and ``Norm``, as MindSpore's."""

from __future__ import annotations

import numpy as np

from symgrad import dtype as mstype
from symgrad import ops
from symgrad.errors import OpError
from symgrad.nn.cell import Cell
from symgrad.nn.layers import initial_value
from symgrad.parameter import Parameter


class _BatchNorm(Cell):
    """Per-channel ``gamma * (x - mean) / sqrt(var + eps) + beta``. In training (``set_train()`` on
    it or on a cell that holds it) the batch's statistics are used and differentiated, and the
    moving ones are updated with ``momentum * moving + (1 - momentum) * batch`` (the unbiased
    variance), as MindSpore does; otherwise (a new Cell's default) the moving statistics are used."""

    ranks: tuple[int, ...] = ()

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.9,
        affine: bool = True,
        gamma_init="ones",
        beta_init="zeros",
        moving_mean_init="zeros",
        moving_var_init="ones",
        use_batch_statistics=None,
        data_format: str = "NCHW",
        dtype=mstype.float32,
    ):
        super().__init__()
        who = type(self).__name__
        if not isinstance(num_features, int) or num_features < 1:
            raise ValueError(f"{who}: num_features must be a positive int, got {num_features!r}")
        if not 0 <= momentum <= 1:
            raise ValueError(f"{who}: momentum must be a number in [0, 1], got {momentum!r}")
        if use_batch_statistics not in (None, True, False):
            raise ValueError(
                f"{who}: use_batch_statistics must be a bool or None, got {use_batch_statistics!r}"
            )
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.use_batch_statistics, self.data_format = use_batch_statistics, data_format
        np_dtype = mstype.to_dtype(dtype).np

        def parameter(init, name: str, trainable: bool) -> Parameter:
            value = initial_value(init, (num_features,), num_features, who).astype(np_dtype)
            return Parameter(value, name=name, requires_grad=trainable)

        self.moving_mean = parameter(moving_mean_init, "mean", False)
        self.moving_variance = parameter(moving_var_init, "variance", False)
        self.gamma = parameter(gamma_init, "gamma", affine)
        self.beta = parameter(beta_init, "beta", affine)

    def construct(self, x):
        if x.ndim not in self.ranks:
            raise OpError(
                f"{type(self).__name__}: input must have rank {' or '.join(map(str, self.ranks))}, "
                f"got shape {x.shape}"
            )
        training = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        return ops.BatchNorm(training, self.eps, 1.0 - self.momentum, self.data_format)(
            x, self.gamma, self.beta, self.moving_mean, self.moving_variance
        )[0]


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) inputs over every axis but the channels (axis 1)."""

    ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of NCHW inputs over N, H and W."""

    ranks = (4,)


class BatchNorm3d(Cell):
    """Batch normalisation of NCDHW inputs over N, D, H and W: MindSpore's, a ``BatchNorm2d``
    named ``bn2d`` (so its Parameters are ``bn2d.gamma``, ...) on the input seen as N, C, D*H, W."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float = 0.9,
        affine: bool = True,
        gamma_init="ones",
        beta_init="zeros",
        moving_mean_init="zeros",
        moving_var_init="ones",
        use_batch_statistics=None,
        dtype=mstype.float32,
    ):
        super().__init__()
        self.bn2d = BatchNorm2d(
            num_features, eps, momentum, affine, gamma_init, beta_init, moving_mean_init, moving_var_init,
            use_batch_statistics, "NCHW", dtype,
        )  # fmt: skip

    def construct(self, x):
        if x.ndim != 5:
            raise OpError(f"BatchNorm3d: input must have rank 5 (N, C, D, H, W), got shape {x.shape}")
        n, c, d, h, w = x.shape
        return self.bn2d(x.reshape((n, c, d * h, w))).reshape((n, c, d, h, w))


class GroupNorm(Cell):
    """``gamma * (x - mean) / sqrt(var + eps) + beta`` with the statistics of each of
    ``num_groups`` groups of channels per sample (the biased variance), ``gamma`` and ``beta``
    per channel, as MindSpore's ``nn.GroupNorm`` on (N, C, ...) inputs."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        gamma_init="ones",
        beta_init="zeros",
        dtype=mstype.float32,
    ):
        super().__init__()
        for name, value in (("num_groups", num_groups), ("num_channels", num_channels)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise TypeError(f"GroupNorm: {name} must be a positive int, got {value!r}")
        if num_channels % num_groups:
            raise ValueError(
                f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        np_dtype = mstype.to_dtype(dtype).np

        def parameter(init, name: str) -> Parameter:
            value = initial_value(init, (num_channels,), num_channels, "GroupNorm").astype(np_dtype)
            return Parameter(value, name=name, requires_grad=affine)

        self.gamma, self.beta = parameter(gamma_init, "gamma"), parameter(beta_init, "beta")

    def construct(self, x):
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise OpError(f"GroupNorm: input must be (N, {self.num_channels}, ...), got shape {x.shape}")
        grouped = x.reshape((x.shape[0], self.num_groups, -1))
        mean = ops.mean(grouped, 2, keep_dims=True)
        centred = grouped - mean
        variance = ops.mean(ops.square(centred), 2, keep_dims=True)
        y = (centred / ops.sqrt(variance + self.eps)).reshape(x.shape)
        per_channel = (self.num_channels,) + (1,) * (x.ndim - 2)
        return y * self.gamma.astype(x.dtype).reshape(per_channel) + self.beta.astype(x.dtype).reshape(
            per_channel
        )


class Norm(Cell):
    """sqrt(sum(x^2)) over ``axis`` (every axis when ``()``), as MindSpore's ``nn.Norm``: without
    ``keep_dims`` every axis of length 1 is then squeezed, the reduced ones and any other."""

    def __init__(self, axis=(), keep_dims: bool = False):
        super().__init__()
        if isinstance(axis, int):
            axis = (axis,)
        if not isinstance(axis, tuple | list) or not all(isinstance(a, int) for a in axis):
            raise TypeError(f"Norm: axis must be an int or a tuple of ints, got {axis!r}")
        if not isinstance(keep_dims, bool):
            raise TypeError(f"Norm: keep_dims must be a bool, got {keep_dims!r}")
        self.axis, self.keep_dims = tuple(axis), keep_dims

    def construct(self, x):
        axes = self.axis or tuple(range(x.ndim))
        out = ops.sqrt(ops.reduce_sum(ops.square(x), axes, keep_dims=True))
        return out if self.keep_dims else ops.squeeze(out)


class LayerNorm(Cell):
    """``gamma * (x - mean) / sqrt(var + epsilon) + beta``, the statistics over the axes from
    ``begin_norm_axis`` on (the biased variance), ``gamma`` and ``beta`` of shape
    ``normalized_shape`` applied from ``begin_params_axis`` on, as MindSpore's ``nn.LayerNorm``."""

    def __init__(
        self,
        normalized_shape,
        begin_norm_axis: int = -1,
        begin_params_axis: int = -1,
        gamma_init="ones",
        beta_init="zeros",
        epsilon: float = 1e-7,
        dtype=mstype.float32,
    ):
        super().__init__()
        if not isinstance(normalized_shape, tuple | list) or not all(
            isinstance(n, int) and n >= 1 for n in normalized_shape
        ):
            raise TypeError(
                f"LayerNorm: normalized_shape must be a tuple of positive ints, got {normalized_shape!r}"
            )
        self.normalized_shape = tuple(normalized_shape)
        self.begin_norm_axis, self.begin_params_axis, self.epsilon = (
            begin_norm_axis,
            begin_params_axis,
            epsilon,
        )
        np_dtype = mstype.to_dtype(dtype).np
        size = int(np.prod(self.normalized_shape))
        self.gamma = Parameter(
            initial_value(gamma_init, self.normalized_shape, size, "LayerNorm").astype(np_dtype), name="gamma"
        )
        self.beta = Parameter(
            initial_value(beta_init, self.normalized_shape, size, "LayerNorm").astype(np_dtype), name="beta"
        )

    def construct(self, x):
        norm_from = self.begin_norm_axis % x.ndim if -x.ndim <= self.begin_norm_axis < x.ndim else None
        params_from = self.begin_params_axis % x.ndim if -x.ndim <= self.begin_params_axis < x.ndim else None
        if norm_from is None or params_from is None or x.shape[params_from:] != self.normalized_shape:
            raise OpError(
                f"LayerNorm: input of shape {x.shape} does not fit normalized_shape {self.normalized_shape} "
                f"with begin_norm_axis {self.begin_norm_axis} and begin_params_axis {self.begin_params_axis}"
            )
        axes = tuple(range(norm_from, x.ndim))
        mean = ops.mean(x, axes, keep_dims=True)
        centred = x - mean
        variance = ops.mean(ops.square(centred), axes, keep_dims=True)
        return centred / ops.sqrt(variance + self.epsilon) * self.gamma + self.beta


__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "Norm"]
