"""Image quality layers: ``SSIM``, as MindSpore 2.10's ``nn.SSIM``.

The structural similarity of two NCHW image batches (Wang, Bovik, Sheikh & Simoncelli 2004):
local means, variances and covariance under a normalised Gaussian window (a valid convolution of
each channel), ``(2 mu1 mu2 + c1)(2 s12 + c2) / ((mu1^2 + mu2^2 + c1)(s1^2 + s2^2 + c2))``,
averaged over the positions and then the channels: one value per image. Differentiable in both
images, from the rows it is made of.
"""

from __future__ import annotations

import numpy as np

from symgrad import ops
from symgrad.errors import OpError
from symgrad.nn.cell import Cell
from symgrad.tensor import Tensor


def gaussian_window(size: int, sigma: float) -> np.ndarray:
    """MindSpore's window: exp(-(x^2 + y^2) / (2 sigma^2)) on the offsets -size//2+1 .. size//2,
    normalised to sum 1, as a (1, 1, size, size) float32 kernel."""
    offsets = np.arange(-size // 2 + 1, size // 2 + 1, dtype=np.float32) ** 2
    g = np.exp(-(offsets[:, None] + offsets[None, :]) / np.float32(2 * sigma**2))
    return (g / g.sum()).astype(np.float32)[None, None]


class SSIM(Cell):
    """``SSIM(max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03)(img1, img2)``: the
    SSIM index of each image of two NCHW batches of one shape and dtype, shape (N,)."""

    def __init__(
        self,
        max_val=1.0,
        filter_size: int = 11,
        filter_sigma: float = 1.5,
        k1: float = 0.01,
        k2: float = 0.03,
    ):
        super().__init__()
        if isinstance(max_val, bool) or not isinstance(max_val, int | float):
            raise TypeError(
                f"For 'SSIM', 'max_val' must be an int or a float, but got {type(max_val).__name__}."
            )
        if max_val <= 0:
            raise ValueError(f"For 'SSIM', 'max_val' must be greater than 0, but got {max_val}.")
        if isinstance(filter_size, bool) or not isinstance(filter_size, int):
            raise TypeError(
                f"For 'SSIM', 'filter_size' must be an int, but got {type(filter_size).__name__}."
            )
        if filter_size < 1:
            raise ValueError(f"For 'SSIM', 'filter_size' must be at least 1, but got {filter_size}.")
        for name, value in (("filter_sigma", filter_sigma), ("k1", k1), ("k2", k2)):
            if not isinstance(value, float):
                raise TypeError(f"For 'SSIM', '{name}' must be a float, but got {type(value).__name__}.")
        if filter_sigma <= 0:
            raise ValueError(f"For 'SSIM', 'filter_sigma' must be greater than 0, but got {filter_sigma}.")
        self.max_val, self.filter_size, self.filter_sigma, self.k1, self.k2 = (
            max_val,
            filter_size,
            filter_sigma,
            k1,
            k2,
        )
        self.window = gaussian_window(filter_size, filter_sigma)

    def construct(self, img1, img2):
        for name, img in (("img1", img1), ("img2", img2)):
            if not isinstance(img, Tensor) or not img.dtype.is_float or img.ndim != 4:
                raise TypeError(
                    f"For 'SSIM', '{name}' must be a float NCHW Tensor, got {getattr(img, 'shape', type(img))}"
                )
        if img1.shape != img2.shape or img1.dtype != img2.dtype:
            raise OpError(
                f"SSIM: img1 and img2 must have one shape and dtype, got {img1.shape} {img1.dtype} and {img2.shape} {img2.dtype}"
            )
        n, c, h, w = img1.shape
        if min(h, w) < self.filter_size:
            raise ValueError(
                f"For 'SSIM', the images ({h}x{w}) must be at least filter_size {self.filter_size} wide"
            )
        # MindSpore scales images with max_val > 1 into [0, 1], whose range is then 1
        scale, max_val = (1.0 / self.max_val, 1.0) if self.max_val > 1 else (1.0, float(self.max_val))
        c1, c2 = (self.k1 * max_val) ** 2, (self.k2 * max_val) ** 2
        window = Tensor(self.window.astype(img1.dtype.np))

        def blur(t):  # each channel alone: (N * C, 1, H, W) under one window
            return ops.conv2d(t.reshape((n * c, 1, h, w)), window)

        x, y = img1 * scale, img2 * scale
        mu1, mu2 = blur(x), blur(y)
        s11, s22, s12 = blur(x * x) - mu1 * mu1, blur(y * y) - mu2 * mu2, blur(x * y) - mu1 * mu2
        ssim = (2 * mu1 * mu2 + c1) * (2 * s12 + c2) / ((mu1 * mu1 + mu2 * mu2 + c1) * (s11 + s22 + c2))
        per_channel = ops.mean(ssim.reshape((n, c, -1)), 2)
        return ops.mean(per_channel, -1)


__all__ = ["SSIM"]
