"""Op families: importing this package fills the op table, one file per family."""

from symgrad.core.families import (  # noqa: F401
    activations,
    arithmetic,
    conversion,
    custom,
    linalg,
    nondiff,
    special,
    structural,
    transcendental,
)
