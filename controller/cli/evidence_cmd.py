"""``croupier evidence``: the jackpot evidence bundle of a round (docs/evidence.md).

- ``croupier evidence make ROUND|last --socket PATH [--output FILE]``: the running daemon
  makes it (technician credential; it also makes one at every jackpot acknowledgement,
  under ``<state>/evidence/``);
- ``croupier evidence make ROUND --config table.toml [--state-dir DIR] [--db PATH]``: from
  the files, the daemon stopped or not (credential checked against the configuration);
- ``croupier evidence verify BUNDLE [--public-key PEM]``: the standalone verifier
  (``controller/books/evidence_verify.py``, standard library only);
- ``croupier settle BUNDLE``: settles the bundle's round again with the engine.
"""

from __future__ import annotations

import argparse
import sys
import time

from controller.cli.argtypes import input_file, output_or_stdout, path
from controller.cli.daemon_client import (
    CREDENTIAL_NOTE,
    add_socket_flag,
    call,
    credential,
    daemon_to_ask,
)
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, write_output
from controller.cli.paths import REPORT_PUBLIC_KEY, STATE_DIR, SYSTEM_CONFIG
from controller.errors import CroupierError

EXAMPLES = {
    "evidence": [
        "CROUPIER_CREDENTIAL=... croupier evidence make last --socket /run/croupier/control.sock"
        " --output last.json",
        "croupier evidence verify SIM-1-000042.json --public-key report-key.pub.pem",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "evidence")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    m = actions.add_parser(
        "make",
        help="make the bundle of a closed round (credential)",
        description=f"Make the bundle of a closed round.\n{CREDENTIAL_NOTE}",
    )
    m.add_argument("round", help="round ID, or 'last' with --socket")
    m.add_argument(
        "--output", type=output_or_stdout, help="where to write it (default or -: standard output)"
    )
    m.add_argument(
        "--config", type=input_file, default=SYSTEM_CONFIG, help=f"default {SYSTEM_CONFIG}"
    )
    m.add_argument(
        "--state-dir",
        type=path,
        default=STATE_DIR,
        help=f"the table's state directory (default {STATE_DIR})",
    )
    m.add_argument(
        "--db", type=input_file, metavar="PATH", help="the ledger (default: the configuration's)"
    )
    m.add_argument("--key", type=input_file, help="the signing key (default: the configuration's)")
    add_socket_flag(m)
    m.set_defaults(func=make)
    v = actions.add_parser("verify", help="check a bundle (signature, journal chain)")
    v.add_argument("bundle", type=input_file, help="the bundle file (JSON; -: standard input)")
    v.add_argument(
        "--public-key",
        type=input_file,
        default=REPORT_PUBLIC_KEY,
        help=f"the table's public key (default {REPORT_PUBLIC_KEY})",
    )
    add_json_flag(v)
    v.set_defaults(func=check)


def make(args: argparse.Namespace) -> int:
    if daemon_to_ask(args):  # the daemon signs it: none of the ledger's or reports' code here
        answer = call(args, "evidence.make", privileged=True, round=args.round)
        signed = answer["bundle"]
    else:
        from datetime import UTC, datetime

        from controller.books.evidence import build_bundle, link_record, recorded_round
        from controller.books.ledger.reader import LedgerReader
        from controller.books.ledger.selfcheck import default_manifest_path
        from controller.books.reports.signing import load_private, sign_json
        from controller.books.surveillance import SurveillanceStore
        from controller.table.credentials import verify
        from controller.table.tableconfig import load_table_config

        config = load_table_config(args.config)
        if config.credential is None or not verify(credential(), config.credential):
            raise CroupierError(
                "a technician credential matching the configuration's "
                "[technician] credential is needed"
            )
        key = load_private(args.key or config.resolve_report_key(args.state_dir))
        store_path = args.state_dir / "surveillance.sqlite3"
        store = SurveillanceStore(store_path, read_only=True) if store_path.exists() else None
        generated = datetime.fromtimestamp(time.time(), UTC).isoformat(timespec="seconds")
        try:
            with LedgerReader.open(args.db or config.resolve_state(args.state_dir)) as ledger:
                bundle = build_bundle(
                    ledger,
                    recorded_round(store, args.round),
                    args.round,
                    table_id=config.table_id,
                    generated=generated,
                    manifest=default_manifest_path(),
                    link=link_record(store, args.round),
                )
        finally:
            if store is not None:
                store.close()
        signed = sign_json(bundle, key)
    import json  # here, not for every evidence --help (and settle's bundle reader)

    text = json.dumps(signed, indent=1, ensure_ascii=False) + "\n"
    write_output(args.output or "-", text.encode("utf-8"))
    if args.output and args.output != "-":
        print(
            f"{args.output}: evidence of round {signed['report']['round']}, signed", file=sys.stderr
        )
    return 0


def check(args: argparse.Namespace) -> int:
    from controller.books import evidence_verify
    from controller.files import check_input

    if str(args.bundle) != "-":  # -: standard input
        check_input(args.bundle)  # a directory or a fifo is not "no such file"
    # a key that cannot be used is this command's failure, said as `report verify` says it
    # (the standalone verifier, for a regulator, says it in its own words)
    from controller.books.reports.signing import load_public

    load_public(args.public_key)
    try:
        found = evidence_verify.verdict(str(args.bundle), str(args.public_key))
    except evidence_verify.Unusable as exc:
        raise CroupierError(str(exc)) from None
    if args.json:
        from controller.cli.output import print_json

        print_json(found)
    else:
        print(evidence_verify.verdict_text(found))
    return 0 if found["valid"] else 1


def round_from_bundle(data: dict) -> dict | None:
    """The recorded round inside an evidence bundle, with its profile (for ``settle``)."""
    bundle = data.get("report")
    if not isinstance(bundle, dict) or bundle.get("document") != "jackpot-evidence":
        return None
    record = bundle.get("round_record")
    if not isinstance(record, dict):
        raise CroupierError("the bundle holds no recorded round (a voided round is not settled)")
    return {"profile": bundle.get("profile"), **record}
