"""``croupier pool``: linked progressive pools in a PostgreSQL store (PRG-6, CH-9).

- ``croupier pool init --dsn DSN``: create the store's schema or migrate it to this version;
  with ``--pool NAME --profile P --seed N [--contribution-rate R] [--reserve-rate R]
  [--cap N]`` also create the pool, or change its parameters (between rounds, journaled);
- ``croupier pool status --dsn DSN [--pool NAME]``: each pool, its meters, and its tables
  (connected now or not, last seen, open rounds, their share of the meters);
- ``croupier pool verify --dsn DSN [--pool NAME]``: every invariant, the journal replayed
  (exit status 1 on a problem);
- ``croupier pool correct POOL current|reserve VALUE --technician T --reason R``: a
  technician's correction, with the credential (controller/cli/lifecycle_cmd.py).

``--dsn`` defaults to ``$CROUPIER_POOL_DSN`` (keep passwords out of the shell history: libpq
also reads ``~/.pgpass``). Details: docs/linked-pools.md. The store's modules (and psycopg,
which needs libpq) are imported only when a ``pool`` command runs, so the rest of the CLI works
on a controller without them.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Awaitable, Callable

from controller.cli import lifecycle_cmd
from controller.cli.argtypes import UsageError, money, pool_name
from controller.cli.main import add_command
from controller.cli.meters_cmd import SHOWN, meter_text
from controller.cli.money import add_currency_config, currency_json, table_currency
from controller.cli.output import add_json_flag, print_json
from controller.errors import CroupierError
from display.money import format_money

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any, TypeVar

    T = TypeVar("T")


EXAMPLES = {
    "pool": [
        "croupier pool init --dsn DSN --pool jumbo7-bg --profile ch-bg --seed 100000",
        "croupier pool status --dsn DSN",
        "croupier pool verify --dsn DSN --json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "pool")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    i = _action(actions, "init", "create or migrate the store; create or change a pool", init)
    i.add_argument("--pool", type=pool_name, help="the pool to create or change")
    i.add_argument("--profile", help="the rule profile whose progressive the pool pays (ch-bg)")
    i.add_argument("--seed", type=money, help="seed, minor units (PRG-5)")
    i.add_argument("--contribution-rate", help="e.g. 20%% (default: the profile's)")
    i.add_argument("--reserve-rate", default="0", help="hidden reserve rate (default 0)")
    i.add_argument("--cap", type=money, help="ceiling of the amount displayed, minor units")
    s = _action(actions, "status", "each linked pool, its meters and its tables", status)
    s.add_argument("--pool", type=pool_name, help="only this pool")
    add_currency_config(s)
    v = _action(actions, "verify", "check every invariant, replaying each pool's journal", verify)
    v.add_argument("--pool", type=pool_name, help="only this pool")
    add_currency_config(v)
    lifecycle_cmd.add_linked_correct(actions, _action, _run)


def _action(
    actions: argparse._SubParsersAction, name: str, help: str, func: Callable
) -> argparse.ArgumentParser:
    parser = actions.add_parser(name, help=help)
    parser.add_argument(
        "--dsn",
        default=os.environ.get("CROUPIER_POOL_DSN"),
        help="the store's PostgreSQL connection string (default $CROUPIER_POOL_DSN)",
    )
    add_json_flag(parser)

    def with_store(args: argparse.Namespace) -> int:
        _dsn(args)  # before the action imports psycopg and the engine (seconds on a Pi)
        return int(func(args))

    parser.set_defaults(func=with_store)
    return parser


def _dsn(args: argparse.Namespace) -> str:
    if not args.dsn:
        raise UsageError("give the store with --dsn or $CROUPIER_POOL_DSN")
    return str(args.dsn)


def _run(args: argparse.Namespace, work: Callable[[Any], Awaitable[T]]) -> T:
    """Run ``work(conn)`` on a money-transaction connection; a database failure becomes one
    line for the technician."""
    import asyncio

    import psycopg

    from controller.books.linked import store
    from controller.books.linked.errors import LinkDownError, LinkedStoreError

    async def main() -> T:
        conn = await store.connect(_dsn(args), connect_timeout=10, application_name="croupier cli")
        try:
            return await work(conn)
        finally:
            await conn.close()

    try:
        return asyncio.run(main())
    except psycopg.OperationalError as exc:
        raise LinkDownError(f"cannot use the store: {' '.join(str(exc).split())}") from None
    except psycopg.Error as exc:
        raise LinkedStoreError(f"the store refused it: {' '.join(str(exc).split())}") from None


def init(args: argparse.Namespace) -> int:
    from controller.books.linked.admin import configure_pool
    from controller.books.linked.schema import migrate
    from controller.engine.pools.config import pool_config
    from controller.engine.profiles import load_profile

    config = None
    if args.pool:
        if not args.profile or args.seed is None:
            raise UsageError("creating or changing a pool needs --profile and --seed")
        rules = load_profile(args.profile).progressive
        if rules is None:
            raise CroupierError(f"profile {args.profile} has no progressive bet")
        config = pool_config(
            args.pool,
            rules,
            seed=args.seed,
            contribution_rate=args.contribution_rate,
            reserve_rate=args.reserve_rate,
            cap=args.cap,
            source="croupier pool init",
        )

    async def work(conn: Any) -> dict[str, Any]:
        before, after = await migrate(conn)
        result: dict[str, Any] = {"schema_before": before, "schema": after}
        if config is not None:
            result["pool"] = config.name
            result["result"] = await configure_pool(conn, config, time.monotonic())
        return result

    result = _run(args, work)
    if args.json:
        print_json(result)
        return 0
    before, after = result["schema_before"], result["schema"]
    print(
        f"store schema: version {after}"
        + ("" if before == after else f" (was {before or 'not initialised'})")
    )
    if config is not None:
        print(f"pool {config.name}: {result['result']} (journaled)")
    return 0


def status(args: argparse.Namespace) -> int:
    from controller.books.linked.admin import pool_status

    result = _run(args, lambda conn: pool_status(conn, args.pool))
    cur = table_currency(args)
    if args.json:
        print_json({**result, **currency_json(cur)})
        return 0
    if not result["pools"]:
        print("no linked pools (create one with croupier pool init --pool ...)")
    for pool in result["pools"]:
        m = pool["meters"]
        cap = format_money(pool["cap"], cur) if pool["cap"] is not None else "none"
        print(
            f"pool {pool['pool']} (bet {pool['bet']}, award {pool['award']}, seed "
            f"{format_money(pool['seed'], cur)}, rate {pool['contribution_rate']}, reserve rate "
            f"{pool['reserve_rate']}, cap {cap}, journal entry {pool['journal_head']})"
        )
        for key, label in SHOWN:
            print(f"  {label:<30} {meter_text(key, m[key], cur):>20}")
        for problem in pool["identities"]:
            print(f"  PROBLEM: {problem}")
        print(f"  tables: {len(pool['tables'])}")
        for t in pool["tables"]:
            state = "connected" if t["connected"] else f"last seen {t['last_seen']}"
            print(
                f"    {t['table_id']:<16} {state:<36} rounds {t['rounds']:>8,}  "
                f"open {t['open_rounds']}  contributed {format_money(t['contributions'], cur)}"
                f"  won {format_money(t['won_from_pool'], cur)}"
            )
    return 0


def verify(args: argparse.Namespace) -> int:
    import psycopg

    from controller.books.linked.errors import LinkDownError
    from controller.books.linked.verify import verify_store

    started = time.perf_counter()
    try:
        report = verify_store(_dsn(args), args.pool, connect_timeout=10)
    except psycopg.Error as exc:
        raise LinkDownError(f"cannot verify the store: {' '.join(str(exc).split())}") from None
    seconds = round(time.perf_counter() - started, 3)
    if args.json:
        print_json(
            {
                "ok": report.ok,
                "problems": report.problems,
                "pools": report.stats,
                "seconds": seconds,
            }
        )
        return 0 if report.ok else 1
    for name, stats in report.stats.items():
        print(
            f"pool {name}: {stats['entries']} journal entries, displays "
            f"{format_money(stats['current'], table_currency(args))}"
        )
    for problem in report.problems:
        print(f"PROBLEM: {problem}")
    print(
        f"verify: OK ({seconds} s)" if report.ok else f"verify: {len(report.problems)} problem(s)"
    )
    return 0 if report.ok else 1
