"""Compiled libraries on disk: checked before loading, rebuilt when damaged, never fatal.

Each library ``NAME.so`` has a sidecar ``NAME.so.sha256`` holding its hash and its name
(``NAME`` carries the hash of the kernel's source and flags), written before the library
itself (both by atomic rename). A library is loaded only when it is complete, unchanged
and the one built for that name: a truncated file would crash the process (SIGBUS) when
loaded, and another kernel's library and sidecar copied over this pair would crash it
(SIGSEGV) when called with this kernel's arguments. A damaged entry is rebuilt with a warning
(an older symgrad's sidecar, with the hash alone, quietly). A cache folder that cannot be
written falls back to a temporary folder for this process, with a warning.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path

_fallback: Path | None = None


def cache_dir() -> Path:
    """Where compiled libraries are kept: ``$SYMGRAD_CACHE/c`` or ``~/.cache/symgrad/c``."""
    root = os.environ.get("SYMGRAD_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "symgrad")
    return Path(root) / "c"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _sidecar(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def _folders() -> list[Path]:
    return [cache_dir()] + ([_fallback] if _fallback is not None else [])


def find(name: str) -> Path | None:
    """The verified library ``name`` in the cache, or None; a damaged one is removed, with a warning."""
    for folder in _folders():
        path = folder / name
        if not path.exists():
            continue
        sidecar = _sidecar(path)
        try:
            expected = sidecar.read_text().split()
            built_for = expected[1] if len(expected) == 2 else None
            if built_for == name and digest(path) == expected[0]:
                return path
            if built_for is None and len(expected) == 1:  # an older symgrad's sidecar: rebuilt quietly
                discard(path)
                continue
            if built_for is None:
                problem = f"{sidecar.name} is not a sidecar symgrad wrote"
            elif built_for != name:
                problem = f"{sidecar.name} says it was built for {built_for}"
            else:
                problem = f"its hash does not match {sidecar.name}"
        except OSError:
            problem = f"it has no readable {sidecar.name}"
        warnings.warn(
            f"symgrad: the cached kernel {path} ({path.stat().st_size} bytes) is damaged ({problem}); "
            "it is rebuilt",
            RuntimeWarning,
            stacklevel=4,
        )
        discard(path)
    return None


def discard(path: Path) -> None:
    """Remove a library and its sidecar if possible (a read-only cache keeps them)."""
    for item in (path, _sidecar(path)):
        try:
            item.unlink()
        except OSError:
            pass


def writable_folder() -> Path:
    """The cache folder, or (if it cannot be written) a temporary folder for this process."""
    global _fallback
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder):
            pass
        return folder
    except OSError as exc:
        if _fallback is None:
            _fallback = Path(tempfile.mkdtemp(prefix="symgrad-c-"))
            warnings.warn(
                f"symgrad: the kernel cache {folder} cannot be written ({exc.strerror or exc}); compiled "
                f"kernels go to {_fallback} for this process (set SYMGRAD_CACHE to a writable folder)",
                RuntimeWarning,
                stacklevel=4,
            )
        return _fallback


def store(name: str, build: Callable[[Path], None]) -> Path:
    """Build library ``name`` with ``build(path)`` into the cache and return where it is."""
    folder = writable_folder()
    with tempfile.TemporaryDirectory(dir=folder) as work:
        built = Path(work) / name
        build(built)
        target = folder / name
        hashed = Path(work) / (name + ".sha256")
        hashed.write_text(f"{digest(built)} {name}\n")
        os.replace(hashed, _sidecar(target))  # the hash first: a library without one is never trusted
        os.replace(built, target)  # atomic: a concurrent process sees all or nothing
    return target


def read_note(name: str) -> str | None:
    """A small text note kept beside the kernels (the SIMD math probe's result)."""
    for folder in _folders():
        try:
            return (folder / name).read_text().strip()
        except OSError:
            continue
    return None


def write_note(name: str, text: str) -> None:
    folder = writable_folder()
    with tempfile.NamedTemporaryFile("w", dir=folder, delete=False) as handle:
        handle.write(text + "\n")
    os.replace(handle.name, folder / name)


def has_libraries() -> bool:
    """Whether any compiled library is cached (so some kernels can run without a compiler)."""
    return any(folder.is_dir() and any(folder.glob("kernel_*.so")) for folder in _folders())
