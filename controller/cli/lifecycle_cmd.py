"""Pool lifecycle commands with the technician credential (docs/regulatory.md):

- ``croupier meters retire POOL``: retire a pool, its amount and reserve transferred to
  another pool (``--transfer-to``) or held for the regulator (controller/books/ledger/
  lifecycle.py). Only for ``--reason-code closure`` or ``malfunction`` with the document in
  ``--reason``; a refused credential is journaled. Takes the writer's lock: the daemon must
  be stopped.
- ``croupier pool correct POOL current|reserve VALUE``: a linked pool's meter correction
  (controller/books/linked/correction.py), journaled in the pool's store.

The credential ($CROUPIER_CREDENTIAL, or asked) must match the table configuration's
``[technician] credential``.
"""

from __future__ import annotations

import time

from controller.cli.argtypes import input_name, money
from controller.cli.daemon_client import CREDENTIAL_NOTE, credential
from controller.cli.ledger_args import add_technician_flags, writer
from controller.cli.money import table_currency
from controller.cli.output import print_json
from controller.cli.paths import SYSTEM_CONFIG
from controller.errors import CroupierError
from display.money import format_money

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: argparse is read by the parser alone
    import argparse

# The ledger, the engine and the configuration loader are imported by the commands that use
# them: `croupier meters` builds these parsers too and stays quick (controller/cli/main.py).

# The choices of the parsers below, written here so that their --help and a usage error import
# neither the ledger nor the engine (controller.books.ledger.lifecycle.RetireReason's values and
# controller.engine.pools.meters.CORRECTABLE; tests/unit/cli/test_cli_light_choices.py holds
# them equal)
RETIRE_REASONS = ("closure", "malfunction")
CORRECTABLE_METERS = ("current", "reserve")


def add_retire(actions: argparse._SubParsersAction, add_action) -> None:
    r = add_action(actions, "retire", "retire a pool (closure, malfunction; credential)", retire)
    r.description = f"Retire a pool (closure, malfunction).\n{CREDENTIAL_NOTE}"
    r.add_argument("pool", help="the pool to retire")
    r.add_argument(
        "--reason-code",
        required=True,
        choices=RETIRE_REASONS,
        metavar="REASON",
        help="why: %(choices)s (only a closure or a documented malfunction)",
    )
    r.add_argument("--transfer-to", metavar="POOL", help="the pool that receives the amount")
    r.add_argument(
        "--config",
        type=input_name,
        default=SYSTEM_CONFIG,
        metavar="FILE",
        help=f"the table configuration, for the technician credential (default {SYSTEM_CONFIG})",
    )
    add_technician_flags(r)


def _stored_credential(config: str, doing: str) -> str:
    from controller.table.tableconfig import load_table_config

    stored = load_table_config(config).credential
    if stored is None:
        raise CroupierError(f"{config} has no [technician] credential: {doing} needs one")
    return stored


def retire(args: argparse.Namespace) -> int:
    from controller.table.credentials import verify

    stored = _stored_credential(args.config, "retiring a pool")
    secret = credential()
    # the keyring as every ledger command finds it (ledger_args.keyring): --key, else
    # $CROUPIER_LEDGER_KEY, the installed one, the simulated table's beside the ledger
    with writer(args) as ledger:
        if not verify(secret, stored):
            refused = {"action": "meters.retire", "pool": args.pool}
            ledger.journal.append("access-refused", refused, time.monotonic())
            raise CroupierError("wrong technician credential (the attempt is journaled)")
        after = ledger.retire_pool(
            args.pool,
            time.monotonic(),
            technician=args.technician,
            reason_code=args.reason_code,
            reason=args.reason,
            transfer_to=args.transfer_to,
        )
    if args.json:
        print_json({name: state.to_row() for name, state in after.items()})
        return 0
    print(f"pool {args.pool} retired ({args.reason_code}): journaled")
    if args.transfer_to:
        shown = format_money(after[args.transfer_to].current, table_currency(args))
        print(f"pool {args.transfer_to} now displays {shown}")
    return 0


def add_linked_correct(actions: argparse._SubParsersAction, add_action, run) -> None:
    c = add_action(
        actions,
        "correct",
        "a technician sets a linked pool's amount or reserve",
        lambda args: correct_linked_pool(args, run),
    )
    c.description = f"A technician sets a linked pool's amount or reserve.\n{CREDENTIAL_NOTE}"
    c.add_argument("pool", help="the linked pool")
    c.add_argument("meter", choices=CORRECTABLE_METERS, metavar="METER", help="%(choices)s")
    c.add_argument("value", type=money, help="the new value, minor units")
    c.add_argument(
        "--config",
        type=input_name,
        default=SYSTEM_CONFIG,
        metavar="FILE",
        help=f"the table configuration, for the technician credential (default {SYSTEM_CONFIG})",
    )
    add_technician_flags(c)


def correct_linked_pool(args: argparse.Namespace, run) -> int:
    from controller.books.linked.correction import correct_linked
    from controller.table.credentials import verify

    stored = _stored_credential(args.config, "correcting a linked pool")
    if not verify(credential(), stored):
        raise CroupierError("wrong technician credential")
    state = run(
        args,
        lambda conn: correct_linked(
            conn,
            args.pool,
            args.meter,
            args.value,
            time.monotonic(),
            technician=args.technician,
            reason=args.reason,
        ),
    )
    if args.json:
        print_json(state.to_row())
    else:
        shown = format_money(args.value, table_currency(args))
        print(f"linked pool {args.pool}: {args.meter} set to {shown} (journaled)")
    return 0
