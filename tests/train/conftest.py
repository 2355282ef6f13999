"""The nn tests' fixtures (real MindSpore warmed up, its warnings silenced) for the checkpoint tests."""

from tests.nn.conftest import ms, quiet  # noqa: F401 (fixtures are found by name)
