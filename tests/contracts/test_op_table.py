"""The op table is the only place an op is named: every record is complete and reachable.

Like sympy2jax's checks of its lookup table: each op has its rule, its spellings for
every backend (or lowering by pattern), its public names, and the maps derived from
the table (the ``derive`` parser's functions, the C backend's SIMD math) agree with it.
"""

from __future__ import annotations

import re
import types

import numpy as np
import pytest
import sympy

import lowering
import symgrad
from lowering.c.build import VECTOR_MATH
from lowering.mindspore.runtime import MindsporeRuntime
from lowering.runtime import ArrayRuntime
from lowering.torch.runtime import TorchRuntime
from symgrad import Tensor, extend, ops
from symgrad.core.graph import Var
from symgrad.core.registry import CUSTOM, ELEMENTWISE, LINEAR, MAP, NONDIFF, OPS
from symgrad.explain.derive import HEADS, to_graph
from symgrad.ops.primitives import Primitive


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_op_has_its_rule(name):
    op = OPS[name]
    if op.kind == ELEMENTWISE:
        assert len(op.partials) == op.arity
    elif op.kind == LINEAR:
        assert op.transpose is not None
    elif op.kind == CUSTOM:
        assert op.jvp is not None and op.vjp is not None
    else:
        assert op.kind == NONDIFF and not op.partials


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_op_has_a_spelling_for_every_backend(name):
    """NumPy (also CuPy and PyTorch) and MindSpore spell every op; C spells the MAP ops.

    Ops of other patterns (contraction, reduction, gather) are lowered to C by pattern.
    The helpers a spelling calls must exist in the runtimes that run it.
    """
    op = OPS[name]
    numpy_form, mindspore_form = op.spelling("numpy"), op.spelling("mindspore")
    if op.pattern == MAP:
        assert op.spelling("c")
    for helper in re.findall(r"rt\.(\w+)\(", numpy_form):
        assert hasattr(ArrayRuntime, helper) and hasattr(TorchRuntime, helper), helper
    for helper in re.findall(r"rt\.(\w+)\(", mindspore_form):
        assert hasattr(MindsporeRuntime, helper), helper
    for function in re.findall(r"\bnp\.(\w+)\(", numpy_form):
        assert hasattr(np, function), function


def _public_objects(op):
    return (
        [getattr(ops, n) for n in op.api.classes]
        + [getattr(ops, n) for n in op.api.functions]
        + [getattr(Tensor, n) for n in op.api.operators + op.api.reflected]
    )


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_op_is_reachable_from_the_public_api(name):
    op = OPS[name]
    if op.api.internal:
        assert not _public_objects(op), f"{name} is marked internal but has public names"
        return
    assert _public_objects(op), f"{name} has no public name and is not marked internal"
    for cls in op.api.classes:
        assert issubclass(getattr(ops, cls), Primitive) and cls in ops.__all__
    for fn in op.api.functions:
        assert fn in ops.__all__


@pytest.mark.parametrize(
    "name", sorted(n for n, op in OPS.items() if op.api.generated and not op.api.internal)
)
def test_generated_front_ends_build_the_op(name):
    """Each generated function, class and operator builds a node of its own op."""
    op = OPS[name]
    x = symgrad.placeholder("x", (2,))
    args = [x, symgrad.placeholder("y", (2,))][: op.arity]
    for fn in [getattr(ops, n) for n in op.api.functions] + [getattr(ops, n)() for n in op.api.classes]:
        assert fn(*args)._node.op == name
    for dunder in op.api.operators:
        assert getattr(x, dunder)(*args[1:])._node.op == name
    for dunder in op.api.reflected:
        assert getattr(x, dunder)(2.0)._node.op == name


def test_the_type_checkers_stub_of_tensor_operators_follows_the_op_table():
    """tensor.py declares the generated operators for type checkers only: the same dunders as the
    table installs (``==`` and ``!=`` are object's; ``@`` and ``[]`` are written by hand)."""
    import ast
    import inspect

    import symgrad.tensor

    tree = ast.parse(inspect.getsource(symgrad.tensor.Tensor))
    block = next(
        n for n in ast.walk(tree) if isinstance(n, ast.If) and "TYPE_CHECKING" in ast.unparse(n.test)
    )
    stubbed = {
        t.id for n in block.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)
    }
    installed = {d for op in OPS.values() if op.api.generated for d in op.api.operators + op.api.reflected}
    assert stubbed == installed - {"__eq__", "__ne__", "__getitem__", "__matmul__", "__rmatmul__"}


def test_the_ops_namespace_lists_exactly_what_it_has():
    assert sorted(set(ops.__all__)) == ops.__all__
    public = {  # identifiers only: pytest's assertion rewriting leaves "@py_assert" names in modules
        n
        for n, v in vars(ops).items()
        if n.isidentifier() and n[0] != "_" and not isinstance(v, types.ModuleType)
    }
    assert public == set(ops.__all__)  # InsertGradientOf, HookBackward and Print were once left out
    for name in ops.__all__:
        assert getattr(ops, name) is not None
    with pytest.raises(AttributeError, match="symgrad.ops has no op 'nosuchop'"):
        ops.nosuchop  # noqa: B018


def test_derive_reads_function_names_off_the_table_one_to_one():
    assert len(set(HEADS.values())) == len(HEADS)
    for head in (sympy.sin, sympy.tanh, sympy.erf, sympy.Add, sympy.Max, sympy.Abs):
        assert head in HEADS
    for head, name in HEADS.items():
        symbols = sympy.symbols(f"a0:{OPS[name].arity}")
        variables = {s: Var(s.name, (), np.float64) for s in symbols}
        assert to_graph(head(*symbols, evaluate=False), variables).op == name


def test_simd_math_comes_from_the_records():
    assert {op.simd for op in OPS.values() if op.simd} == set(VECTOR_MATH)
    for op in OPS.values():
        if op.simd:
            assert f"{op.simd}(" in op.spelling("c")


def test_c_functions_of_our_own_define_what_the_c_spelling_calls():
    """An op whose C spelling calls symgrad's own function carries its definition; CUDA calls
    the libm name where CUDA has one (tanh, erfinv), else the CUDA driver carries the same
    function as a device function (polygamma: tests/lowering/test_cupy_glue.py compiles it)."""
    own = {name: op for name, op in OPS.items() if op.c_function}
    assert {"tanh", "polygamma", "erfinv"} <= set(own)
    for op in own.values():
        called = op.spelling("c").split("(")[0]
        defines = (f"static inline double {called}(", f"#define {called}(")  # a function, or a macro
        assert any(d in op.c_function for d in defines) and not op.simd
    assert "sg_tanh" not in OPS["tanh"].spelling("cuda", "c")
    assert "sg_erfinv" not in OPS["erfinv"].spelling("cuda", "c")


def test_kink_conventions_live_on_the_records():
    kinked = {n for n, op in OPS.items() if op.kink}
    assert {"relu", "abs", "maximum", "minimum"} <= kinked
    report = symgrad.verify(ops.relu, Tensor(np.array([0.0, 1.0])))
    assert report.ok and "ReLU'(0) = 0" in str(report)


@pytest.fixture
def cube():
    """An op added through the extension API, removed again afterwards."""
    op = extend.elementwise(
        "cube", "Cube", lambda x: x**3,
        (lambda x, ans: extend.apply("mul", 3, extend.apply("square", x)),),
        numpy="np.power({0}, 3)", c="({0} * {0} * {0})", mindspore="ops.pow({0}, 3)",
    )  # fmt: skip
    yield op
    extend.remove("cube")
    assert "cube" not in OPS and not hasattr(ops, "Cube") and "Cube" not in ops.__all__


def _cube_record(name: str, display: str, **kw):
    return extend.elementwise(
        name, display, lambda x: x**3,
        (lambda x, ans: extend.apply("mul", 3, extend.apply("square", x)),),
        numpy="np.power({0}, 3)", c="({0} * {0} * {0})", mindspore="ops.pow({0}, 3)", **kw,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("name", "display", "message"),
    [
        ("cube", "Tanh", "would replace symgrad.ops.Tanh"),
        ("grad", "Cube", "would replace symgrad.ops.grad"),
        ("tanh", "Cube", "already registered"),
        ("my cube", "Cube", "must be a Python identifier"),
        ("cube", "Cube it", "must be a Python identifier"),
        ("lambda", "Cube", "must be a Python identifier"),
    ],
)
def test_extend_refuses_names_already_taken_or_not_identifiers(name, display, message):
    before = (dict(OPS), ops.Tanh, ops.grad, list(ops.__all__))
    with pytest.raises(symgrad.OpError, match=message):
        _cube_record(name, display)
    assert (dict(OPS), ops.Tanh, ops.grad, list(ops.__all__)) == before
    np.testing.assert_allclose(ops.Tanh()(Tensor(np.array(0.5))).asnumpy(), np.tanh(0.5))


def test_extend_replaces_only_when_asked():
    builtin = OPS["tanh"]
    try:
        _cube_record("tanh", "Tanh", replace=True)
        assert float(ops.Tanh()(Tensor(np.array(2.0))).asnumpy()) == 8.0
        assert float(ops.grad(ops.tanh)(Tensor(np.array(2.0))).asnumpy()) == 12.0
    finally:
        extend.register(builtin, replace=True)
    np.testing.assert_allclose(ops.Tanh()(Tensor(np.array(0.5))).asnumpy(), np.tanh(0.5))
    with pytest.raises(symgrad.OpError, match="no op named 'nonesuch'"):
        extend.remove("nonesuch")


def test_an_op_added_through_extend_works_everywhere(cube):
    x = Tensor(np.array([0.5, 2.0]))
    np.testing.assert_allclose(ops.Cube()(x).asnumpy(), [0.125, 8.0])
    d2 = ops.grad(ops.grad(ops.cube))
    np.testing.assert_allclose(d2(x).asnumpy(), [3.0, 12.0])
    p = symgrad.placeholder("p")
    slope = ops.grad(ops.cube)(p).expr
    (symbol,) = slope.free_symbols
    assert symbol.name == "p" and sympy.simplify(slope - 3 * symbol**2) == 0
    for backend in ("numpy", "c"):
        if backend in lowering.available_backends():
            (value,) = symgrad.kernel([ops.grad(ops.cube)(p)], [p], backend=backend)(np.array([2.0]))
            np.testing.assert_allclose(value, [12.0])
