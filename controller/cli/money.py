"""Money as a person reads it in the CLI: ``EUR 5,001.80``, not ``500,180``.

The amounts in the ledger, the linked store and the daemon's answers are integer minor units.
The currency is the table's (its rule profile's ``[money] currency``; the minor-unit digits
follow from the ISO code, ``display.money``): from the daemon's ``status`` when the command
talks to the daemon, else from ``--config FILE`` or ``/etc/croupier/table.toml``, else EUR.
Every amount is formatted by :func:`display.money.format_money`; JSON output keeps the
integers and adds ``currency`` and ``minor_units``.
"""

from __future__ import annotations

import os

from controller.cli.paths import SYSTEM_CONFIG
from display.money import Currency, currency

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse
    from typing import Any

DEFAULT_CURRENCY = "EUR"


def add_currency_config(parser: argparse.ArgumentParser) -> None:
    """``--config FILE``: the table configuration whose currency the amounts are shown in."""
    import argparse  # loaded already: a parser is being built

    from controller.cli.argtypes import input_name

    parser.add_argument(
        "--config",
        type=input_name,
        default=argparse.SUPPRESS,
        metavar="FILE",
        help=f"the table configuration, for its currency (default {SYSTEM_CONFIG}, else"
        f" {DEFAULT_CURRENCY})",
    )


def table_currency(args: argparse.Namespace) -> Currency:
    """The currency of ``--config``, else of the installed table, else EUR. A configuration
    named with ``--config`` must load (its problems are the error); the installed one is only
    a hint: meters stay readable on a controller whose configuration is broken."""
    path = getattr(args, "config", None)
    if path is None and not os.path.exists(SYSTEM_CONFIG):
        return currency(DEFAULT_CURRENCY)  # nothing to read: the loader is not even imported
    from controller.table.tableconfig import load_table_config
    from controller.validation import ConfigError

    if path is not None:
        return currency(load_table_config(path).profile.money.currency)
    try:
        return currency(load_table_config(SYSTEM_CONFIG).profile.money.currency)
    except ConfigError:
        return currency(DEFAULT_CURRENCY)


def currency_json(cur: Currency) -> dict[str, Any]:
    """What JSON output adds beside its integer amounts."""
    return {"currency": cur.code, "minor_units": cur.exponent}
