"""Nothing silent, nothing fatal: bad inputs, damaged caches and edge values.

Every case here was once a wrong number, a crash or a message that named nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import lowering
import symgrad
from lowering.c import build as c_backend
from lowering.c import library_cache
from symgrad import GradError, OpError, Tensor, ops
from symgrad.errors import PositionError

HAS_CC = c_backend.find_compiler() is not None
needs_cc = pytest.mark.skipif(not HAS_CC, reason="no C compiler here")


# ----- silent wrong results -----


def test_complex_data_is_refused_not_truncated():
    with pytest.raises(TypeError, match=r"complex data of dtype complex128 and shape \(2,\)"):
        Tensor(np.array([1 + 1j, 2]))
    p = symgrad.placeholder("p", (2,))
    for backend in lowering.available_backends():
        if backend in ("numpy", "c"):
            kernel = symgrad.kernel([p * 2], [p], backend=backend)
            with pytest.raises(TypeError, match="kernel argument 'p' has dtype complex128"):
                kernel(np.array([1 + 1j, 2]))


def test_complex_names_say_why_they_are_missing():
    """MindSpore's complex64, complex128 and Imag/Real/Complex are a documented difference."""
    from symgrad import ops

    for get in (
        lambda: symgrad.complex64,
        lambda: symgrad.dtype.complex128,
        lambda: ops.Imag,
        lambda: ops.real,
    ):
        with pytest.raises(
            AttributeError, match="not supported; symgrad differentiates real-valued functions"
        ):
            get()
    with pytest.raises(AttributeError, match="has no attribute 'complex32'"):
        symgrad.dtype.complex32  # noqa: B018 - only the two complex names get the explanation


def test_a_kernel_argument_of_none_is_an_error():
    p = symgrad.placeholder("p", (2,))
    with pytest.raises(
        TypeError, match=r"kernel argument 'p' is None; pass an array of float64 with shape \(2,\)"
    ):
        symgrad.kernel([p * 2], [p])(None)


@pytest.mark.parametrize("declared", [symgrad.float32, symgrad.float64])
@pytest.mark.parametrize("data", [np.float32, np.float64])
def test_backends_agree_on_the_result_dtype(declared, data):
    p = symgrad.placeholder("p", (2,), dtype=declared)
    expected = np.promote_types(declared.np, data)
    for backend in [b for b in ("numpy", "c") if b in lowering.available_backends()]:
        (out,) = symgrad.kernel([ops.sin(p) * 2], [p], backend=backend)(np.array([1.0, 2.0], data))
        assert out.dtype == expected, backend


def test_bool_data_is_cast_with_a_warning():
    p = symgrad.placeholder("p", (2,))
    with pytest.warns(UserWarning, match="has bool dtype bool; cast to float64"):
        (out,) = symgrad.kernel([p * 0.5], [p])(np.array([True, False]))
    assert out.dtype == np.float64 and out.tolist() == [0.5, 0.0]


@pytest.mark.parametrize("position, message", [(-1, "negative position"), ((0, 0), "repeats a position")])
def test_positions_are_checked_as_mindspore_does(position, message):
    x = Tensor(np.array([1.0, 2.0]))
    for transform in (ops.grad, ops.jacfwd, ops.jacrev):
        with pytest.raises(GradError, match=message) as info:
            transform(lambda a, b: a * b, grad_position=position)(x, x)
        assert isinstance(info.value, ValueError)


def test_relu_derivative_at_nan_is_zero_on_every_backend():
    x = symgrad.placeholder("x")
    points = np.array([np.nan, -1.0, 0.0, 2.0])
    assert ops.grad(ops.relu)(Tensor(points)).asnumpy().tolist() == [0.0, 0.0, 0.0, 1.0]
    for backend in [b for b in ("numpy", "c", "torch") if b in lowering.available_backends()]:
        (out,) = symgrad.kernel([ops.grad(ops.relu)(x)], [x], backend=backend)(points)
        assert np.asarray(out).tolist() == [0.0, 0.0, 0.0, 1.0], backend


def test_power_derivative_in_the_exponent_at_zero_base_is_zero():
    base, exponent = Tensor(np.array([0.0, 2.0])), Tensor(np.array([2.0, 3.0]))
    dx, dy = ops.grad(lambda a, b: a**b, grad_position=(0, 1))(base, exponent)
    assert dy.asnumpy().tolist() == pytest.approx([0.0, 8 * np.log(2.0)])
    assert dx.asnumpy().tolist() == pytest.approx([0.0, 12.0])
    assert symgrad.verify(lambda a, b: a**b, Tensor(np.array([0.5])), Tensor(np.array([3.0]))).ok


def test_control_flow_and_float_on_traced_values_warn():
    def branchy(x):
        if x > 0:
            return x * 2
        return x * 3

    with pytest.warns(UserWarning, match="Python control flow on a traced value"):
        g = ops.grad(branchy)(Tensor(np.array(1.0)))
    assert float(g.asnumpy()) == 2.0
    with pytest.warns(UserWarning, match=r"float\(\) of a traced value makes it a constant"):
        ops.grad(lambda x: x * float(x))(Tensor(np.array(2.0)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bool(Tensor(np.array(1.0)) > 0)  # outside a trace: no warning
        float(Tensor(np.array(2.0)))


# ----- verify must itself be trustworthy -----


def test_verify_with_array_constants_and_torch():
    report = symgrad.verify(lambda x: x * Tensor(np.array([0.1])), Tensor(np.array([0.5, 1.5])), order=2)
    assert report.ok


def test_verify_reads_float32_constants_exactly():
    c = Tensor(np.array([0.1, 0.3], np.float32))
    report = symgrad.verify(lambda x: ops.sin(x * c) * c, Tensor(np.array([0.5, 1.5], np.float32)), order=2)
    assert report.ok, report


def test_verify_at_large_arguments_and_infinities():
    assert symgrad.verify(ops.sin, Tensor(np.array([1000.0, -3e4])), order=2).ok
    assert symgrad.verify(ops.log, Tensor(np.array([1e6, 3e9]))).ok
    at_inf = symgrad.verify(ops.tanh, Tensor(np.array([np.inf, 1.0])))
    assert at_inf.ok and any("contains inf/NaN at [0]" in n for n in at_inf.notes)
    at_nan = symgrad.verify(ops.tanh, Tensor(np.array([np.nan, 1.0])))
    assert at_nan.ok and any("contains inf/NaN" in n for n in at_nan.notes)
    assert "FAILED" not in str(at_nan)


def test_verify_refuses_a_vjp_of_the_wrong_shape():
    with pytest.raises(
        GradError, match=r"vjp= returned a cotangent of shape \(1,\) for x, which has shape \(2,\)"
    ):
        symgrad.verify(lambda x: x * 2, Tensor(np.array([1.0, 2.0])), vjp=lambda v, x: (np.array([2.0]),))


def test_verify_catches_a_flipped_sign_on_a_tiny_gradient():
    x = Tensor(np.array([1.0]))
    bad = symgrad.verify(lambda v: v * 1e-9, x, expected=[np.array([[-1e-9]])])
    good = symgrad.verify(lambda v: v * 1e-9, x, expected=[np.array([[1e-9]])])
    assert not bad.ok and good.ok


def test_verify_explains_a_user_kink_convention():
    report = symgrad.verify(
        ops.relu, Tensor(np.array([0.0, 2.0])), expected=[np.array([[1.0, 0.0], [0.0, 1.0]])]
    )
    assert report.ok and any("kink" in n for n in report.notes)


def test_verify_checks_every_output_of_a_hand_vjp():
    def f(x):
        return ops.sin(x), x * 3

    def right(v, x):
        vs, vt = v
        return (vs.asnumpy() * np.cos(x.asnumpy()) + 3 * vt.asnumpy(),)

    def wrong_second(v, x):
        vs, vt = v
        return (vs.asnumpy() * np.cos(x.asnumpy()) + 2 * vt.asnumpy(),)

    x = Tensor(np.array([0.3, 1.2]))
    assert symgrad.verify(f, x, vjp=right).ok
    assert not symgrad.verify(f, x, vjp=wrong_second).ok


# ----- fatal or unclear -----


def test_empty_inputs_give_empty_results():
    empty = Tensor(np.zeros((0,)))
    assert ops.jacrev(lambda x: x * 2)(empty).shape == (0, 0)
    assert ops.jacfwd(lambda x: x * 2)(empty).shape == (0, 0)
    assert ops.hessian(lambda x: (x * x).sum())(empty).shape == (0, 0)
    assert symgrad.verify(lambda x: x * 2, empty).ok


def test_errors_name_what_went_wrong():
    x = Tensor(np.array([1.0, 2.0]))
    for transform in (ops.jacrev, ops.hessian):
        with pytest.raises(PositionError, match="grad_position 3 is out of range") as info:
            transform(lambda v: (v * v).sum(), grad_position=3)(x)
        assert isinstance(info.value, IndexError)
    with pytest.raises(GradError, match="nothing to differentiate: no float Tensor input"):
        symgrad.verify(lambda v: v * 2, Tensor(np.array([1, 2])))
    with pytest.raises(GradError, match="with sens_param=True the last argument is the sens value"):
        ops.GradOperation(sens_param=True)(lambda v: v * 2)(x)
    with pytest.raises(RuntimeError, match="grad_position is an empty tuple"):
        ops.grad(lambda v: v * 2, ())(x)
    with pytest.raises(OpError, match=r"^Mul: shapes \(2, 3\) and \(4,\) cannot be broadcast"):
        ops.mul(Tensor(np.zeros((2, 3))), Tensor(np.zeros(4)))


# ----- the C kernel cache -----


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    """An empty kernel cache, as in a new process."""
    monkeypatch.setenv("SYMGRAD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(c_backend, "_loaded", {})
    monkeypatch.setattr(c_backend, "_vector_math", None)
    monkeypatch.setattr(library_cache, "_fallback", None)
    return tmp_path / "cache" / "c"


def _sin_kernel():
    x = symgrad.placeholder("x")
    return symgrad.kernel([ops.sin(x)], [x], backend="c")


_LOAD_SIN = """
import warnings, numpy as np, symgrad
from symgrad import ops
warnings.simplefilter("always")
x = symgrad.placeholder("x")
with warnings.catch_warnings(record=True) as caught:
    (value,) = symgrad.kernel([ops.sin(x)], [x], backend="c")(np.array([0.5]))
print(abs(value[0] - np.sin(0.5)) < 1e-15, any("is damaged" in str(w.message) for w in caught))
"""


_BUILD_OTHER = """
import numpy as np, symgrad
from symgrad import ops
a, b = symgrad.placeholder("a", (3,)), symgrad.placeholder("b", (2, 3))
symgrad.kernel([ops.matmul(b, a) * 2.0, ops.exp(a)], [a, b], backend="c")(np.ones(3), np.ones((2, 3)))
"""


@needs_cc
@pytest.mark.parametrize("damage", ["truncate", "random", "empty", "no sidecar", "another kernel's pair"])
def test_a_damaged_cached_kernel_is_rebuilt_with_a_warning(tmp_path, damage):
    """Loading a truncated library kills the process (SIGBUS), and calling another kernel's library
    with this kernel's arguments may too (SIGSEGV): each run is a new process."""
    env = {**os.environ, "SYMGRAD_CACHE": str(tmp_path)}

    def run() -> str:
        done = subprocess.run(
            [sys.executable, "-c", _LOAD_SIN], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr[-2000:]
        return done.stdout.strip()

    assert run() == "True False"
    (path,) = (tmp_path / "c").glob("kernel_*.so")
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[: len(data) // 2])
    elif damage == "random":
        path.write_bytes(np.random.default_rng(0).bytes(len(data)))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "no sidecar":
        path.with_name(path.name + ".sha256").unlink()
    else:  # a complete, unchanged library and its sidecar, but built for another kernel
        done = subprocess.run([sys.executable, "-c", _BUILD_OTHER], env=env, capture_output=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        (other,) = set((tmp_path / "c").glob("kernel_*.so")) - {path}
        for suffix in ("", ".sha256"):
            os.replace(other.with_name(other.name + suffix), path.with_name(path.name + suffix))
    assert run() == "True True"
    assert path.read_bytes() == data and run() == "True False"


@needs_cc
def test_an_older_sidecar_is_rebuilt_quietly(tmp_path):
    """A sidecar with the hash alone (written before sidecars named their kernel) is no damage."""
    env = {**os.environ, "SYMGRAD_CACHE": str(tmp_path)}
    load = [sys.executable, "-c", _LOAD_SIN]
    assert subprocess.run(load, env=env, capture_output=True, text=True).stdout.strip() == "True False"
    (path,) = (tmp_path / "c").glob("kernel_*.so")
    sidecar = path.with_name(path.name + ".sha256")
    sidecar.write_text(sidecar.read_text().split()[0] + "\n")
    assert subprocess.run(load, env=env, capture_output=True, text=True).stdout.strip() == "True False"
    assert sidecar.read_text().split()[1] == path.name


@needs_cc
def test_a_cached_kernel_loads_without_a_compiler(fresh_cache, monkeypatch):
    _sin_kernel()
    monkeypatch.setattr(c_backend, "_loaded", {})
    monkeypatch.setattr(c_backend, "_vector_math", None)
    monkeypatch.setenv("PATH", "")
    monkeypatch.delenv("CC", raising=False)
    assert c_backend.find_compiler() is None and "c" in lowering.available_backends()
    assert _sin_kernel()(np.array([0.5]))[0] == pytest.approx(np.sin(0.5))
    y = symgrad.placeholder("y")
    with pytest.raises(c_backend.CompilerError, match="no C compiler found"):
        symgrad.kernel([ops.cos(y)], [y], backend="c")  # not cached: needs a compiler


def test_a_missing_cc_is_named_not_replaced(fresh_cache, monkeypatch):
    monkeypatch.setenv("CC", "/nonexistent/cc")
    assert c_backend.find_compiler() is None and "c" not in lowering.available_backends()
    with pytest.raises(lowering.BackendError, match="CC='/nonexistent/cc' is not an executable"):
        _sin_kernel()


def test_a_compiler_that_writes_nothing_is_a_clear_error(fresh_cache, monkeypatch, tmp_path):
    fake = tmp_path / "true-cc"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CC", str(fake))
    with pytest.raises(c_backend.CompilerError, match="reported success but wrote no library"):
        _sin_kernel()


@needs_cc
def test_an_unwritable_cache_falls_back_to_a_temporary_folder(monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SYMGRAD_CACHE", str(blocker / "cache"))
    monkeypatch.setattr(c_backend, "_loaded", {})
    monkeypatch.setattr(c_backend, "_vector_math", None)
    monkeypatch.setattr(library_cache, "_fallback", None)
    assert "c" in lowering.available_backends()
    with pytest.warns(RuntimeWarning, match="cannot be written"):
        kernel = _sin_kernel()
    assert kernel(np.array([0.5]))[0] == pytest.approx(np.sin(0.5))


@needs_cc
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_forked_child_does_not_hang_on_openmp():
    script = textwrap.dedent(
        """
        import os, warnings
        import numpy as np, symgrad
        from symgrad import ops
        x = symgrad.placeholder("x", (3,))
        kernel = symgrad.kernel([ops.tanh(x) * 2], [x], backend="c")
        points = np.random.default_rng(0).normal(size=(50000, 3))
        expected = kernel(points)[0]
        pid = os.fork()
        if pid == 0:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = kernel(points)[0]
            os._exit(0 if np.allclose(got, expected) and any("fork" in str(w.message) for w in caught) else 3)
        _, status = os.waitpid(pid, 0)
        raise SystemExit(os.waitstatus_to_exitcode(status))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr


# ----- argument checking of every transform, over random shapes, dtypes and positions -----

_SHAPES = st.sampled_from([(), (2,), (2, 3)])
_DTYPES = st.sampled_from([np.float32, np.float64, np.int32])
_POSITION = st.integers(-2, 4)


def _objective(*xs):
    total = None
    for x in xs:
        term = (ops.sin(x) * x).sum()
        total = term if total is None else total + term
    return total


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    specs=st.lists(st.tuples(_SHAPES, _DTYPES), min_size=1, max_size=3),
    position=st.one_of(_POSITION, st.lists(_POSITION, min_size=0, max_size=3).map(tuple)),
    transform=st.sampled_from(["grad", "value_and_grad", "jacfwd", "jacrev"]),
)
def test_transforms_either_agree_with_the_reference_or_raise_a_documented_error(specs, position, transform):
    rng = np.random.default_rng(0)
    arrays = [(rng.uniform(-1, 1, shape) * 3).astype(dtype) for shape, dtype in specs]
    inputs = [Tensor(a) for a in arrays]
    transform_fn = getattr(ops, transform)
    positions = [position] if isinstance(position, int) else list(position)
    valid = (
        bool(positions)
        and all(0 <= p < len(inputs) for p in positions)
        and len(set(positions)) == len(positions)
    )
    event("valid arguments" if valid else "refused arguments")
    if not valid:
        with pytest.raises((GradError, PositionError, TypeError)):  # at construction or at the call
            transform_fn(_objective, grad_position=position)(*inputs)
        return
    result = transform_fn(_objective, grad_position=position)(*inputs)
    grads = result[1] if transform == "value_and_grad" else result
    grads = [grads] if isinstance(position, int) else list(grads)
    for p, g in zip(positions, grads):
        x = arrays[p].astype(np.float64)
        expected = np.sin(x) + x * np.cos(x)
        if arrays[p].dtype.kind == "i":  # as MindSpore: the gradient in the input's dtype, truncated
            assert g.dtype == symgrad.int32
            assert np.all(np.abs(g.asnumpy() - expected) < 1) and np.all(g.asnumpy() * expected >= 0)
            continue
        rtol = 1e-4 if arrays[p].dtype == np.float32 else 1e-12
        np.testing.assert_allclose(
            np.asarray(g.asnumpy(), np.float64).ravel(), expected.ravel(), rtol=rtol, atol=rtol
        )


def test_files_are_written_whole_or_not_at_all(tmp_path):
    from symgrad.files import atomic_file

    target = tmp_path / "result.png"
    target.write_bytes(b"old")
    with pytest.raises(OSError, match="disk full"), atomic_file(target) as file:
        file.write(b"half of the new")
        raise OSError("disk full")
    assert target.read_bytes() == b"old" and sorted(p.name for p in tmp_path.iterdir()) == ["result.png"]
    with atomic_file(target) as file:
        file.write(b"new")
    assert target.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["result.png"]
