"""A tutorial script imported as a module (its ``main`` is not run): the benches take each problem
from the script a user copies (tutorials/gallery/, tutorials/pinnacle/), not from a second copy."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TUTORIALS = Path(__file__).resolve().parents[1] / "tutorials"


@functools.cache
def tutorial_script(folder: str, name: str) -> ModuleType:
    """tutorials/<folder>/<name>.py imported once, as the module ``<folder>_script_<name>``."""
    path = TUTORIALS / folder / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{folder}_script_{name}", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise FileNotFoundError(f"no {folder} script {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
