"""Custom derivatives: ``custom_vjp(value, *inputs)`` is ``value`` with a user's reverse rule.

A Cell with a ``bprop`` method is traced as usual, and its output is wrapped in this
op, whose parameter is the rule (``symgrad.autodiff.custom_bprop.BpropRule``): the reverse sweep
asks the rule for the inputs' cotangents instead of differentiating the traced forward
pass; the forward sweep uses the traced derivative (MindSpore has no custom jvp for cells).
"""

from __future__ import annotations

from symgrad.core.registry import CUSTOM, GATHER, Api, OpDef, register

register(
    OpDef(
        name="custom_vjp",
        display="bprop",
        kind=CUSTOM,
        arity=None,
        infer=lambda args, params: (args[0].shape, args[0].dtype),
        sympy=lambda arrays, node: arrays[0],
        jvp=lambda node, tangents: tangents[0],
        vjp=lambda node, ct: (None, *node.params[0].cotangents(node, ct)),
        spellings={"numpy": "{0}", "mindspore": "{0}"},
        pattern=GATHER,
        api=Api(internal="a Cell's bprop method: the value of its construct with the user's reverse rule"),
        notation=lambda node, args: f"{args[0]} (derivative from {node.params[0]})",
    )
)
