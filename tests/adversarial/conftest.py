"""Adversarial tests (docs/security.md): every trust boundary fed hostile input.

`make test` runs the bounded version (the directory in well under a minute); `make fuzz`
sets ``CROUPIER_FUZZ=long`` for many more examples and longer floods.
"""

from fuzz_budget import LONG
from hypothesis import HealthCheck, settings

settings.register_profile(
    "adversarial",
    max_examples=2000 if LONG else 150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
