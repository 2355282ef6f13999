"""The public differentiation API, MindSpore's signatures over one engine.

``GradOperation``, ``grad``, ``value_and_grad``, ``jvp``, ``vjp``, ``jacfwd``,
``jacrev``, ``hessian`` and ``laplacian`` only sort arguments and results; the work is in
:mod:`symgrad.autodiff.differentiate`.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

from symgrad.autodiff import recording
from symgrad.autodiff.differentiate import check_positions, forward, in_dtype_of, reverse
from symgrad.autodiff.forward_laplacian import forward_laplacian, input_directions
from symgrad.autodiff.jacobian import jacobian_node
from symgrad.autodiff.tracing import (
    Trace,
    as_outputs,
    check_arguments,
    check_tensor_input,
    fn_name,
    named_like,
    trace_inputs,
)
from symgrad.core.families.structural import zeros_like
from symgrad.errors import EmptyPositionError, GradError, GradNotFoundError, GradTypeError, SensCountError
from symgrad.parameter import Parameter
from symgrad.tensor import Tensor


def _weights_list(weights, who: str) -> tuple[list[Parameter], bool]:
    """Parameters to differentiate, and whether the caller gave a single one."""
    if isinstance(weights, Parameter):
        return [weights], True
    if isinstance(weights, str | bytes) or not hasattr(weights, "__iter__"):
        raise GradTypeError(
            f"{who}: weights must be a Parameter or a tuple or list of Parameters, got {type(weights).__name__}"
        )
    items = list(weights)
    for w in items:
        if not isinstance(w, Parameter):
            raise GradTypeError(f"{who}: weights must be Parameters, got {type(w).__name__}")
    return items, False


def check_flags(who: str, **flags) -> None:
    """A TypeError for a flag that is not a bool (``has_aux=1``), as MindSpore's validator raises."""
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise GradTypeError(f"{who}: {name!r} must be a bool, got {type(value).__name__} {value!r:.40}")


def check_callable(fn, who: str, error: type[Exception] = GradTypeError) -> None:
    """``fn`` must be callable: MindSpore raises TypeError (ValueError in ``jvp``)."""
    if not callable(fn):
        raise error(f"{who}: fn must be callable (a function or a Cell), got {type(fn).__name__}")


def check_sens_kind(sens, who: str) -> None:
    """A sens given to ``grad``/``GradOperation`` that is neither a Tensor nor a structure of them
    (a number, a NumPy array): MindSpore raises RuntimeError (its size is not the network's)."""
    if sens is not None and not isinstance(sens, Tensor | tuple | list | dict):
        raise SensCountError(
            f"{who}: the sens value must be a Tensor (or a tuple of them) shaped like the network's "
            f"output, got {type(sens).__name__}"
        )


def check_aux_outputs(outputs: list, is_tuple: bool, who: str) -> None:
    """With ``has_aux=True`` the function must return more than one output (MindSpore's ValueError)."""
    if not is_tuple or len(outputs) < 2:
        raise GradError(
            f"{who}: with has_aux=True fn must return more than one output (the first is differentiated, "
            f"the rest are auxiliary), got {len(outputs) if is_tuple else 'one'}"
        )


class GradOperation:
    """MindSpore's ``GradOperation(get_all, get_by_list, sens_param)``.

    ``GradOperation(...)(net[, weights])`` returns a function of the network's
    inputs (plus the sens value when ``sens_param=True``) that returns:
    the first input's gradient; all inputs' gradients as a tuple (``get_all``);
    the weights' gradients as a tuple (``get_by_list``); or
    ``(inputs_grads, weights_grads)`` with both flags.
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False, sens_param: bool = False):
        check_flags("GradOperation", get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn: Callable, weights=None) -> Callable:
        check_callable(fn, "GradOperation")
        params, single_weight = (
            default_weights(fn, weights, "GradOperation") if self.get_by_list else ([], False)
        )

        def gradient_function(*args, **kwargs):
            # keyword arguments go to ``fn`` and are not differentiated; ``sens=`` may be one of them
            sens = kwargs.pop("sens", None) if self.sens_param else None
            target = functools.partial(fn, **kwargs) if kwargs else fn
            if self.sens_param and sens is not None:
                check_arguments(target, args, "the sens value was given as sens=")
            elif self.sens_param:
                if not args:
                    raise GradError(
                        "GradOperation(sens_param=True): the last argument must be the sens value"
                    )
                args, sens = args[:-1], args[-1]
                check_sens_kind(sens, "GradOperation")
                check_arguments(
                    target,
                    args,
                    "with sens_param=True the last argument is the sens value: pass the inputs, then sens",
                )
            # get_all differentiates every Tensor input; other arguments pass through
            if self.get_all:
                positions = [p for p, a in enumerate(args) if isinstance(a, Tensor)]
            else:  # the first input, unless only the weights were asked for
                positions = [] if self.get_by_list or not args else [0]
            result = reverse(target, args, positions, params, sens, who="GradOperation")
            gin = tuple(g for g in result.input_grads if g is not None)
            gw = result.weight_grads[0] if single_weight else tuple(result.weight_grads)
            if self.get_all and self.get_by_list:
                return gin, gw
            if self.get_by_list:
                return gw
            return gin if self.get_all or not gin else gin[0]  # () when no Tensor input

        return named_like(fn, gradient_function)


def default_weights(fn: Callable, weights, who: str) -> tuple[list[Parameter], bool]:
    """Like ``_weights_list``, where None means the network's trainable Parameters (as in MindSpore)."""
    if weights is None:
        return (list(fn.trainable_params()) if hasattr(fn, "trainable_params") else []), False
    return _weights_list(weights, who)


def _positions(grad_position, who: str) -> tuple[list[int], bool]:
    """The positions as a list, and whether one int was given; as MindSpore checks them."""
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    positions = [grad_position] if single else grad_position
    if not isinstance(positions, tuple | list) or not all(
        isinstance(p, int) and not isinstance(p, bool) for p in positions
    ):
        raise GradTypeError(f"{who}: grad_position must be an int or a tuple of ints, got {grad_position!r}")
    if not positions:
        raise EmptyPositionError(
            f"{who}: grad_position is an empty tuple; give positions, or None with weights"
        )
    if any(p < 0 for p in positions):
        raise GradError(f"{who}: grad_position {grad_position!r} has a negative position; positions are >= 0")
    if len(set(positions)) != len(positions):
        raise GradError(f"{who}: grad_position {grad_position!r} repeats a position")
    return list(positions), single


def _grad_impl(fn, grad_position, weights, has_aux, sens_param, return_ids, with_value: bool):
    who = "value_and_grad" if with_value else "grad"
    check_callable(fn, who)
    check_flags(who, has_aux=has_aux, sens_param=sens_param, return_ids=return_ids)
    if grad_position is None and weights is None:
        raise GradError(f"{who}: grad_position and weights cannot both be None")
    positions, single_pos = _positions(grad_position, who) if grad_position is not None else ([], False)
    params, single_w = _weights_list(weights, who) if weights is not None else ([], False)

    def grad_fn(*args):
        sens = None
        if sens_param:
            if not args:
                raise GradError(f"{who}(sens_param=True): the last argument must be the sens value")
            args, sens = args[:-1], args[-1]
            check_sens_kind(sens, who)
        result = reverse(fn, args, positions, params, sens, has_aux, who)
        if has_aux:
            check_aux_outputs(result.outputs, result.is_tuple, who)
        gin: list = [(p, g) for p, g in zip(positions, result.input_grads) if g is not None]
        gw: list = [(w.name, g) for w, g in zip(params, result.weight_grads)]
        if not return_ids:
            gin, gw = [g for _, g in gin], [g for _, g in gw]
        if single_pos:
            g_pos = gin[0] if gin else ()  # () when the input is no Tensor, as in MindSpore
        else:
            g_pos = tuple(gin)
        g_w = gw[0] if single_w else tuple(gw)
        if grad_position is None:
            grads = g_w
        elif weights is None:
            grads = g_pos
        else:
            grads = (g_pos, g_w)
        outs = result.outputs
        if with_value:
            return result.value, grads  # MindSpore: the whole output, aux included, is the value
        if has_aux:
            return grads, tuple(outs[1:])
        return grads

    return named_like(fn, grad_fn)


def get_grad(gradients, identifier):
    """The gradient for ``identifier`` (a position or a Parameter) in ``grad(..., return_ids=True)``'s result."""
    key = identifier.name if isinstance(identifier, Parameter) else identifier

    def search(item):
        if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], Tensor):
            if not isinstance(item[0], Tensor) and item[0] == key and type(item[0]) is type(key):
                return item[1]
        if isinstance(item, tuple):
            for sub in item:
                found = search(sub)
                if found is not None:
                    return found
        return None

    found = search(gradients)
    if found is None:
        raise GradNotFoundError(
            f"get_grad: no gradient for {identifier!r:.60} in the given gradients; pass the result of "
            "grad(..., return_ids=True) and a position or Parameter that was differentiated"
        )
    return found


def grad(
    fn: Callable,
    grad_position=0,
    weights=None,
    has_aux: bool = False,
    sens_param: bool = False,
    return_ids: bool = False,
) -> Callable:
    """Gradient of ``fn`` w.r.t. inputs ``grad_position`` and/or ``weights``.

    An int ``grad_position`` gives a Tensor, a tuple gives a tuple; with ``weights``
    the result is ``(inputs_grads, weights_grads)``. With ``sens_param=True`` the
    last argument weights the outputs (a tuple for a tuple of outputs). With
    ``has_aux=True`` only the first output is differentiated and the rest are
    returned as ``(grads, aux)``.
    """
    return _grad_impl(fn, grad_position, weights, has_aux, sens_param, return_ids, False)


def value_and_grad(
    fn: Callable, grad_position=0, weights=None, has_aux: bool = False, return_ids: bool = False
) -> Callable:
    """Like :func:`grad`, returning ``(value, grads)``."""
    return _grad_impl(fn, grad_position, weights, has_aux, False, return_ids, True)


def as_tuple(x) -> tuple:
    return tuple(x) if isinstance(x, tuple | list) else (x,)


def check_tangent_structure(inputs, v, who: str) -> None:
    """``v`` must be shaped as ``inputs``: a Tensor for a Tensor, a tuple (list) of as many for a
    tuple (list). MindSpore raises TypeError ("Type Join Failed") for another kind of container."""
    sequence = (tuple, list)
    if isinstance(inputs, sequence) and len(inputs) == 1 and isinstance(v, Tensor):
        return  # nn.Jvp passes its one input as a tuple of one with its Tensor v
    if isinstance(inputs, sequence) != isinstance(v, sequence) or (
        isinstance(inputs, sequence) and type(inputs) is not type(v)
    ):
        raise GradTypeError(
            f"{who}: v must have the structure of the inputs (a Tensor for a Tensor, a tuple for a tuple), "
            f"got inputs of type {type(inputs).__name__} and v of type {type(v).__name__}"
        )


def check_fn_takes(fn: Callable, inputs: tuple, who: str) -> None:
    """A TypeError when ``fn`` cannot be called with ``inputs`` (MindSpore: "The parameters number of
    the function is 1, but the number of provided arguments is 2")."""
    try:
        signature = inspect.signature(getattr(fn, "construct", fn))
    except (TypeError, ValueError):
        return
    try:
        signature.bind(*inputs)
    except TypeError as exc:
        raise GradTypeError(
            f"{who}: {fn_name(fn)} cannot be called with {len(inputs)} input(s): {exc}"
        ) from None


def jvp(fn: Callable, inputs, v, has_aux: bool = False):
    """Forward mode: ``(fn(*inputs), J @ v)``; ``inputs`` and ``v`` are a Tensor or tuples."""
    check_callable(fn, "jvp", GradError)  # MindSpore: ValueError("The object is not callable")
    check_flags("jvp", has_aux=has_aux)
    check_tangent_structure(inputs, v, "jvp")
    ins, vs = as_tuple(inputs), as_tuple(v)
    check_fn_takes(fn, ins, "jvp")
    outs, tangents, is_tuple = forward(fn, ins, vs)
    if has_aux:
        check_aux_outputs(outs, is_tuple, "jvp")
        return outs[0], tangents[0], _aux(outs[1:])
    pack = (lambda xs: tuple(xs)) if is_tuple else (lambda xs: xs[0])
    return pack(outs), pack(tangents)


def _aux(outputs: list) -> object:
    """The auxiliary outputs as MindSpore returns them: one is itself, more are a tuple."""
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def vjp(fn: Callable, *args, weights=None, has_aux: bool = False):
    """Reverse mode.

    The guide's form ``vjp(fn, (x, y), v)`` returns ``(outputs, (dx, dy))``.
    MindSpore 2's form ``vjp(fn, x, y)`` returns ``(outputs, vjp_fn)``, where
    ``vjp_fn(v)`` gives the tuple of input cotangents (``v`` a tuple, or one
    positional value per output); with ``weights``, ``(input cotangents, weight
    cotangents)``; with ``has_aux``, ``(outputs, vjp_fn, aux)``.
    """
    check_callable(fn, "vjp")
    check_flags("vjp", has_aux=has_aux)
    params = _weights_list(weights, "vjp")[0] if weights is not None else []
    if len(args) == 2 and isinstance(args[0], tuple | list) and not params:
        inputs, v = tuple(args[0]), args[1]
        result = reverse(fn, inputs, range(len(inputs)), [], v, has_aux, "vjp")
        return (tuple(result.outputs) if result.is_tuple else result.outputs[0]), tuple(result.input_grads)
    inputs = args
    for i, x in enumerate(inputs):
        if not isinstance(x, Tensor):  # MindSpore: "The inputs type must be Tensor."
            raise GradTypeError(f"vjp: every input must be a Tensor, input {i} is {type(x).__name__}")
    # fn runs once (its side effects too, as in MindSpore); each vjp_fn(v) evaluates the pullback
    first = reverse(fn, inputs, range(len(inputs)), params, None, has_aux, "vjp", pullback=True)
    outs, pull = first.outputs, first.pull
    assert pull is not None  # reverse(pullback=True) returns its pullback
    if has_aux:
        check_aux_outputs(outs, first.is_tuple, "vjp")
    differentiated = 1 if has_aux else len(outs)
    tuple_out = first.is_tuple and not has_aux

    def vjp_fn(*v):
        v = v[0] if len(v) == 1 else v
        flat = isinstance(v, tuple | list) and not any(isinstance(s, tuple | list | dict) for s in v)
        count = len(v) if flat else 1
        if outs and (flat or isinstance(v, Tensor)) and (count != differentiated or (tuple_out and not flat)):
            raise SensCountError(
                f"vjp: got {count} v value(s) for {differentiated} differentiated output(s) of "
                f"{fn_name(fn)}; give one Tensor per output (a tuple for a tuple output)"
            )
        input_grads, weight_grads = pull(v)
        gin = tuple(input_grads)
        return (gin, tuple(weight_grads)) if params else gin

    if has_aux:
        return outs[0], vjp_fn, _aux(outs[1:])
    return (tuple(outs) if first.is_tuple else outs[0]), vjp_fn


def _jacobian(fn: Callable, grad_position, has_aux: bool, mode: str) -> Callable:
    who = "jacfwd" if mode == "fwd" else "jacrev"
    check_flags(who, has_aux=has_aux)
    positions, single = _positions(grad_position, who)

    def jac_fn(*args):
        trace = Trace()
        leaves = trace_inputs(fn, args, trace)
        check_positions(positions, args, who)
        in_nodes = [leaves[p]._node for p in positions]  # before the call: ``x[i] = v`` rebinds a leaf
        outputs, is_tuple = as_outputs(fn(*leaves), fn)
        diff_outs = outputs[:1] if has_aux else outputs
        out_nodes = [o._node for o in diff_outs]
        # d out_o / d in_i with shape out.shape + in.shape, output-major
        flat = [in_dtype_of(x, jacobian_node(out, x, mode)) for out in out_nodes for x in in_nodes]
        tensors = trace.finish(flat + [o._node for o in outputs[1:] if has_aux], *outputs)
        jac_t, aux = tensors[: len(flat)], _aux(tensors[len(flat) :])
        rows = [jac_t[i * len(in_nodes) : (i + 1) * len(in_nodes)] for i in range(len(out_nodes))]
        per_out = [r[0] if single else tuple(r) for r in rows]
        result = tuple(per_out) if is_tuple and not has_aux else per_out[0]
        return (result, aux) if has_aux else result

    return named_like(fn, jac_fn)


def jacfwd(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """Jacobian by forward mode: shape ``output.shape + input.shape``."""
    return _jacobian(fn, grad_position, has_aux, "fwd")


def jacrev(fn: Callable, grad_position=0, has_aux: bool = False) -> Callable:
    """Jacobian by reverse mode: shape ``output.shape + input.shape``."""
    return _jacobian(fn, grad_position, has_aux, "rev")


def hessian(fn: Callable, grad_position=0) -> Callable:
    """Second derivatives: ``jacfwd(jacrev(fn))``, shape ``out + in + in``."""
    return jacfwd(jacrev(fn, grad_position), grad_position)


def laplacian(fn: Callable, grad_position=0) -> Callable:
    """The sum of the second derivatives of ``fn`` over every element of the inputs at
    ``grad_position`` (``trace(hessian)``), by one forward-Laplacian sweep; shape of the output.

    Unlike ``hessian``, neither the Hessian nor d second-order sweeps are built: the cost
    grows with the number of input elements d only through one leading axis of size d.
    """
    positions, _ = _positions(grad_position, "laplacian")

    def lap_fn(*args):
        trace = Trace()
        leaves = trace_inputs(fn, args, trace)
        check_positions(positions, args, "laplacian")
        xs = []
        for p in positions:
            check_tensor_input(args, p, "laplacian")
            xs.append(leaves[p]._node)  # before the call: ``x[i] = v`` rebinds a leaf
        with recording.inside_trace():
            outputs, is_tuple = as_outputs(fn(*leaves), fn)
        if is_tuple or len(outputs) != 1:
            raise GradError(f"laplacian: {fn_name(fn)} must return one Tensor, got {len(outputs)} output(s)")
        ((_, lap),) = forward_laplacian([outputs[0]._node], input_directions(xs))
        lap = zeros_like(outputs[0]._node) if lap is None else lap
        result = trace.finish([lap], outputs[0])[0]
        recording.record(
            dict(
                kind="laplacian", fn_name=fn_name(fn), outputs=[outputs[0]._node], seeds=None, wrt=xs,
                wrt_names=[trace.names[p] for p in positions], results=[lap], finished=[], env=result._env,
                result_labels=[("Δ output", r"\Delta\,\mathrm{output}")],
            )
        )  # fmt: skip
        return result

    return named_like(fn, lap_fn)


def stop_gradient(x: Tensor) -> Tensor:
    """``x`` itself, with a zero derivative: its branch drops out of every gradient. A number (or
    anything else that is not a Tensor) is returned as it is, as MindSpore does: it has no gradient."""
    if isinstance(x, tuple | list):
        return type(x)(stop_gradient(t) for t in x)
    if not isinstance(x, Tensor):
        return x
    return x._op("stop_gradient")
