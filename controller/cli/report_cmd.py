"""``croupier report``: documents for regulators and test labs (docs/regulatory.md).

- ``croupier report day [--date YYYY-MM-DD] [--format json|csv|pdf] [--output FILE]``: the
  signed gaming-day meter report, from the ledger file (``--db``, read-only, beside the
  daemon) or from the live daemon (``--socket``); ``--json`` prints the signed JSON. The
  default day is the last one that has ended. A day that does not reconcile is refused.
- ``croupier report verify FILE [--public-key PEM]``: check a signed report in any form
  (exit status 1 when it was changed or signed with another key).
- ``croupier report keygen [--key PATH]``: make the table's report key (install does it).
- ``croupier report proposal --config table.toml [--seats N] [--rounds-per-hour R]``: the
  progressive proposal from the exact PAR engine (``--json`` for the whole document).
"""

from __future__ import annotations

import argparse
import sys
from datetime import date

from controller.cli.argtypes import input_file, integer, output_file, output_or_stdout, path
from controller.cli.daemon_client import add_socket_flag, call, daemon_to_ask
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json, write_output
from controller.cli.paths import REPORT_KEY, REPORT_PUBLIC_KEY, STATE_DIR, SYSTEM_CONFIG
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the books and the configuration are imported by the commands that use them
    from pathlib import Path

    from controller.books.ledger.keys import Keyring
    from controller.table.tableconfig import TableConfig

# the signed forms of a day report (controller.books.reports.documents.FORMS, which
# tests/unit/cli/test_cli_light_choices.py holds equal): the parser imports none of the books
FORMS = ("json", "csv", "pdf")


# controller.books.reports.gaming_day.FIRST_DAY (tests/unit/cli/test_cli_light_choices.py
# holds them equal): the first gaming day a report may be asked for
FIRST_DAY = "2000-01-01"


def report_date(text: str) -> date:
    """``--date``: YYYY-MM-DD only, from FIRST_DAY to tomorrow in UTC (the table's own day
    may be a day ahead of UTC; whether that day has begun is checked with its configuration)."""
    import re
    from datetime import UTC, datetime, timedelta

    try:
        if not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
            raise ValueError(text)
        day = date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date: write YYYY-MM-DD") from None
    last = datetime.now(UTC).date() + timedelta(days=1)
    if not date.fromisoformat(FIRST_DAY) <= day <= last:
        raise argparse.ArgumentTypeError(
            f"{text} is outside {FIRST_DAY} .. {last.isoformat()}: a report is of a gaming day"
            " that has begun, and no table's day is more than one day ahead of UTC"
        )
    return day


EXAMPLES = {
    "report": [
        "croupier report day --date 2026-11-23 --format pdf --output day.pdf",
        "croupier report verify day.pdf --public-key /etc/croupier/report-key.pub.pem",
        "croupier report proposal --config /etc/croupier/table.toml --seats 4",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "report")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    d = actions.add_parser("day", help="the signed gaming-day meter report")
    _add_table_flags(d)
    d.add_argument(
        "--date",
        type=report_date,
        help=f"YYYY-MM-DD, from {FIRST_DAY} to the gaming day in progress (default: the last"
        " gaming day that has ended)",
    )
    d.add_argument(
        "--format",
        choices=FORMS,
        help="write this signed form (default json; with neither --format, --output nor --json"
        " a summary for the terminal instead)",
    )
    d.add_argument(
        "--output", type=output_or_stdout, help="the file to write (default or -: standard output)"
    )
    d.add_argument(
        "--db", type=input_file, metavar="PATH", help="the ledger (default: the configuration's)"
    )
    d.add_argument(
        "--ledger-key",
        type=input_file,
        metavar="PATH",
        help="the ledger's keyring, to check its journal (default: where the daemon finds it:"
        " the configuration's [ledger] key, the simulated table's beside the ledger, else"
        " $CROUPIER_LEDGER_KEY or /etc/croupier/ledger.key)",
    )
    add_socket_flag(d)
    add_json_flag(d)
    d.set_defaults(func=day)
    v = actions.add_parser("verify", help="check a signed report (JSON, CSV or PDF)")
    v.add_argument("file", type=input_file, help="the report: JSON, CSV or PDF (-: standard input)")
    v.add_argument(
        "--public-key",
        type=input_file,
        metavar="PEM",
        help=f"the table's public key (default {REPORT_PUBLIC_KEY})",
    )
    add_json_flag(v)
    v.set_defaults(func=verify)
    pr = actions.add_parser("proposal", help="the progressive proposal (exact PAR engine)")
    pr.add_argument(
        "--config", type=input_file, default=SYSTEM_CONFIG, help=f"default {SYSTEM_CONFIG}"
    )
    pr.add_argument(
        "--seats", type=integer(1, 7), help="progressive seats per round (default: all)"
    )
    pr.add_argument(
        "--rounds-per-hour", type=integer(1, 1000), default=30, help="pace (default 30)"
    )
    add_json_flag(pr)
    pr.set_defaults(func=proposal)
    k = actions.add_parser("keygen", help="make the table's report signing key")
    k.add_argument(  # no default to convert: a missing /etc/croupier is found by keygen()
        "--key",
        type=output_file,
        help=f"the private key to make, in a folder that exists; its public half is written"
        f" beside it as NAME.pub.pem (default {REPORT_KEY})",
    )
    k.set_defaults(func=keygen)


def _add_table_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config", type=input_file, default=SYSTEM_CONFIG, help=f"default {SYSTEM_CONFIG}"
    )
    parser.add_argument(
        "--state-dir",
        type=path,
        default=STATE_DIR,
        help=f"for relative paths of the configuration (default {STATE_DIR})",
    )
    parser.add_argument(
        "--key", type=input_file, help="the signing key (default: the configuration's)"
    )


def _write(args: argparse.Namespace, data: bytes) -> None:
    write_output(args.output or "-", data)
    if args.output and args.output != "-":
        print(f"{args.output}: {len(data):,} bytes, signed", file=sys.stderr)


def _ledger_keyring(args: argparse.Namespace, config: TableConfig, db: Path) -> Keyring | None:
    """``--ledger-key``, else the keyring the table's daemon opens this ledger with, when
    this user may read it (without one a keyed ledger's journal cannot be checked, and the
    report is refused saying so)."""
    import os

    from controller.books.ledger.keys import load_keyring
    from controller.books.ledger.powerup import keyring_path
    from controller.table.powerup import safeguards_of

    if args.ledger_key is not None:
        return load_keyring(args.ledger_key)
    found = keyring_path(safeguards_of(config), db.parent)
    return load_keyring(found) if os.access(found, os.R_OK) else None


def day(args: argparse.Namespace) -> int:
    import json

    form = args.format or "json"
    if daemon_to_ask(args):  # the daemon signs it: none of the ledger's or reports' code here
        import base64

        answer = call(args, "report.day", date=args.date and args.date.isoformat(), form=form)
        data = base64.b64decode(answer["data"])
    else:
        from datetime import UTC, datetime
        from pathlib import Path

        from controller.books.ledger.reader import LedgerReader
        from controller.books.reports.documents import signed_day_report
        from controller.books.reports.gaming_day import GamingDayError
        from controller.books.reports.signing import load_private
        from controller.cli.argtypes import UsageError
        from controller.table.reporting import report_context
        from controller.table.tableconfig import load_table_config

        config = load_table_config(args.config)
        context = report_context(config)
        now = datetime.now(UTC)
        when = args.date or context.rule.last_complete(now)
        try:
            context.rule.check_reportable(when, now)
        except GamingDayError as exc:
            raise UsageError(f"--date: {exc}") from None
        key = load_private(args.key or config.resolve_report_key(args.state_dir))
        db = args.db or config.resolve_state(args.state_dir)
        with LedgerReader.open(db, _ledger_keyring(args, config, Path(db))) as ledger:
            data = signed_day_report(ledger, when, context, now=now, form=form, key=key)
    if args.format or args.output or args.json:
        _write(args, data)
    else:
        print(summary(json.loads(data)["report"]))
    return 0


def summary(report: dict) -> str:
    """The report for a technician's terminal (unsigned: the files are the record)."""
    from controller.books.reports.amounts import money

    cur = report["currency"]
    r = report["rounds"]
    out = [
        f"table {report['table']}  gaming day {report['gaming_day']} "
        f"({report['from']} .. {report['to']}){'' if report['complete'] else '  IN PROGRESS'}",
        f"rounds: {r['opened']} opened, {r['settled']} settled, {r['voided']} voided "
        + (
            f"({', '.join(f'{k} {n}' for k, n in r['voided_by_rule'].items())})"
            if r["voided_by_rule"]
            else ""
        ),
    ]
    for p in report["pools"]:
        out.append(
            f"pool {p['pool']}: {money(p['opening']['displayed'], cur)} + contributions "
            f"{money(p['contributions'], cur)} - awards {money(p['awards']['from_pool'], cur)} "
            f"({p['awards']['count']} hits) + seeds "
            f"{money(p['seeds']['by_house'] + p['seeds']['by_reserve'], cur)} + adjustments "
            f"{money(p['adjustment_total']['displayed'], cur)} = "
            f"{money(p['closing']['displayed'], cur)}"
        )
    for w in report["wagers"]:
        theory = w["theoretical_hold_percent"]
        out.append(
            f"  {w['wager']:<14} handle {money(w['handle'], cur):>18}  paid "
            f"{money(w['paid'], cur):>18}  hold {w['hold_percent'] or '-':>7} %"
            + (f"  (PAR {theory} %)" if theory else "")
        )
    out.append("reconciled: yes")
    return "\n".join(out)


def verify(args: argparse.Namespace) -> int:
    from controller.books.reports.signing import (
        DEFAULT_KEY,
        SignatureError,
        about,
        load_public,
        public_key_path,
        read_signed,
        shown,
        verify_document,
    )

    public = load_public(args.public_key or public_key_path(DEFAULT_KEY))
    name = "(stdin)" if str(args.file) == "-" else str(args.file)
    try:
        data = read_signed(args.file)
    except OSError as exc:
        raise CroupierError(f"cannot read {name}: {exc.strerror or exc}") from None
    try:
        checked = verify_document(data, public)
    except SignatureError as exc:
        if args.json:
            print_json({"file": name, "ok": False, "problem": str(exc)})
        else:
            print(f"{name}: NOT VALID: {exc}")
        return 1
    what = about(checked)
    if args.json:
        print_json(
            {"file": name, "ok": True, "key_id": checked.key_id, "form": checked.form, **what}
        )
    else:
        said = ", ".join(f"{k.replace('_', ' ')} {shown(v)}" for k, v in what.items())
        print(
            f"{name}: signature OK (key {checked.key_id}, {checked.form} form): "
            + (said or "a PDF: its pages name the table and the day")
        )
    return 0


def keygen(args: argparse.Namespace) -> int:
    from pathlib import Path

    from controller.books.reports.signing import create_key, key_id, public_key_path
    from controller.cli.argtypes import UsageError
    from controller.files import FileRefused, check_output

    key = args.key
    if key is None:  # the default, held to what --key is held to at parse time
        try:
            check_output(REPORT_KEY)
        except FileRefused as exc:
            raise UsageError(f"--key (default {REPORT_KEY}): {exc}") from None
        key = Path(REPORT_KEY)
    if key.name.endswith(".pub.pem"):
        raise UsageError(
            f"--key {key} is the name of a public key: name the private key, e.g. "
            "report-key.pem (its public half NAME.pub.pem is written beside it)"
        )
    public = create_key(key)
    print(f"{key}: new report key {key_id(public)}; give the regulator {public_key_path(key)}")
    return 0


def proposal(args: argparse.Namespace) -> int:
    from controller.books.reports.amounts import money
    from controller.books.reports.proposal import Pace, build_proposal
    from controller.table.tableconfig import load_table_config

    config = load_table_config(args.config)
    pace = Pace(args.seats or len(config.seats), args.rounds_per_hour)
    document = build_proposal(config.profile, config.pools, pace, table_id=config.table_id)
    if args.json:
        print_json(document)
        return 0
    cur = document["currency"]
    out = [
        f"Progressive proposal: table {document['table']}, profile {document['profile']}",
        f"method: {document['method']}",
        f"pace: {pace.seats} progressive seats a round, {pace.rounds_per_hour} rounds an hour",
    ]
    for p in document["pools"]:
        out += [
            "",
            f"pool {p['pool']}: bet {p['bet']}, unit stake {money(p['unit_stake'], cur)}, seed "
            f"{money(p['seed']['initial'], cur)} (initial and reset), contribution "
            f"{p['contribution_rate']}, reserve {p['reserve_rate']}, "
            f"cap {money(p['cap'], cur) if p['cap'] else 'none'}",
            f"  awards: {p['award_policy']}, several hits: {p['multiple_hits']}, envy bonus "
            f"{money(p['envy_bonus'], cur)}",
            f"  {'line':<16} {'pays':<14} {'probability':>12} {'1 in':>12} {'hours between':>14}",
        ]
        for line in p["lines"]:
            out.append(
                f"  {line['line']:<16} {line['pays']:<14} {line['probability']:12.4e} "
                f"{line['one_in']:12,.0f} {line['mean_hours_between_hits']:14,.1f}"
            )
        out.append(f"  return without the progressive: {p['return_without_progressive']:.4%}")
        for row in p["return_by_meter"]:
            out.append(f"  return at meter {money(row['meter'], cur):>16}: {row['return']:.4%}")
        out.append(
            f"  break-even meter: {money(p['break_even_meter'], cur)}; long-run return "
            f"{p['long_run_return']:.4%}"
        )
    print("\n".join(out))
    return 0
