"""How long the adversarial tests run: bounded in `make test`, long under `make fuzz`
(``CROUPIER_FUZZ=long``). A module of its own name: every test folder has a conftest, so
``from conftest import ...`` would find whichever was imported first."""

import os

LONG = os.environ.get("CROUPIER_FUZZ") == "long"


def scale(short: int, long: int) -> int:
    """A count for `make test` or, under `make fuzz`, the long run."""
    return long if LONG else short
