"""``Tensor.register_hook(hook)``: MindSpore's (and PyTorch's) gradient hooks on tensors.

``hook(grad)`` sees the gradient of the tensor it is registered on and may return a replacement
(None keeps it). On a Parameter, or a tensor given as an input, the hook is kept on the tensor and
applied to the gradient that ``grad``/``GradOperation`` return for it. On a tensor computed inside
a traced call, the tensor becomes an identity whose reverse rule calls the hook (as HookBackward's
op does), so every later use of it sees the hooked gradient. ``handle.remove()`` turns it off.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import overload

from symgrad.autodiff.custom_bprop import with_bprop
from symgrad.core.graph import Const, Var
from symgrad.tensor import Tensor


class _TensorHook:
    """The reverse rule of a hooked tensor: its hook's replacement of the gradient, or the gradient."""

    def __init__(self, hook: Callable):
        self.hook = hook

    def bprop(self, x, out, dout):
        replaced = self.hook(dout)
        return (dout if replaced is None else replaced,)


class RemovableHandle:
    """What ``register_hook`` returns: ``remove()`` stops the hook from being called."""

    def __init__(self, hooks: list, hook: Callable):
        self._hooks, self._hook = hooks, hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)


def register_hook(tensor: Tensor, hook: Callable) -> RemovableHandle:
    """Register ``hook(grad) -> Tensor | None`` on ``tensor`` (see the module's docstring)."""
    if not callable(hook):
        raise TypeError(f"register_hook: hook must be callable, got {type(hook).__name__}")
    hooks = tensor.__dict__.setdefault("_hooks", [])
    hooks.append(hook)
    if not isinstance(tensor._node, Const | Var):  # computed in a trace: hook its reverse rule

        def live(grad):
            return hook(grad) if hook in hooks else None

        hooked = with_bprop(_TensorHook(live), (tensor,), tensor)
        tensor._node, tensor._env = hooked._node, {**tensor._env, **hooked._env}
        tensor._cache = None
    return RemovableHandle(hooks, hook)


@overload
def hooked(tensor, grad: Tensor) -> Tensor: ...
@overload
def hooked(tensor, grad: None) -> None: ...
def hooked(tensor, grad: Tensor | None) -> Tensor | None:
    """``grad`` passed through the hooks kept on ``tensor`` (a Parameter's, or an input's); a tensor
    computed in a trace runs its hooks in its own reverse rule instead."""
    hooks = getattr(tensor, "__dict__", {}).get("_hooks", ())
    if grad is None or not hooks or not isinstance(tensor._node, Const | Var):
        return grad
    for hook in list(hooks):
        replaced = hook(grad)
        grad = grad if replaced is None else replaced
    return grad


__all__ = ["RemovableHandle", "hooked", "register_hook"]
