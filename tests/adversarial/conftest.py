"""Adversarial tests (docs/security.md): every trust boundary fed hostile input.

`make test` runs the bounded version (the directory in well under a minute); `make fuzz`
sets ``CROUPIER_FUZZ=long`` for many more examples and longer floods.
"""

import os

from hypothesis import HealthCheck, settings

LONG = os.environ.get("CROUPIER_FUZZ") == "long"

settings.register_profile(
    "adversarial",
    max_examples=2000 if LONG else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def scale(short: int, long: int) -> int:
    """A count for `make test` or, under `make fuzz`, the long run."""
    return long if LONG else short
