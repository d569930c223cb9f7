"""``croupier config``: a table configuration checked, and a credential's hash; both work
without a daemon.

- ``croupier config check [FILE]`` (default /etc/croupier/table.toml): every problem of the
  file, one line each with its key, or a one-line summary of the table it configures;
- ``croupier config hash-credential``: the salted hash of a technician credential, for
  table.toml (read from the terminal twice, or from stdin).
"""

from __future__ import annotations

import sys

from controller.cli.argtypes import input_file, shortened
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json
from controller.cli.paths import SYSTEM_CONFIG
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    import argparse

# The configuration loader and the credential hashing are imported by the commands that need
# them: `croupier config --help` stays quick on a Pi (controller/cli/main.py).

EXAMPLES = {
    "config": [
        "croupier config check                (checks /etc/croupier/table.toml)",
        "croupier config check config/sim.toml --json",
        "croupier config hash-credential",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    c = add_command(sub, "config")
    ca = c.add_subparsers(dest="action", metavar="ACTION", required=True)
    ck = ca.add_parser("check", help="report every problem of a table.toml")
    ck.add_argument(
        "file",
        nargs="?",
        type=input_file,
        default=SYSTEM_CONFIG,
        help=f"the configuration (default {SYSTEM_CONFIG})",
    )
    add_json_flag(ck)
    ck.set_defaults(func=config_check)
    hc = ca.add_parser("hash-credential", help="salted hash of a technician credential")
    hc.set_defaults(func=hash_cmd)


def config_check(args: argparse.Namespace) -> int:
    from controller.table.tableconfig import load_table_config

    try:
        config = load_table_config(args.file)
    except CroupierError as exc:
        problems = getattr(exc, "problems", [("", str(exc))])
        if args.json:
            print_json({"ok": False, "problems": [{"key": k, "reason": r} for k, r in problems]})
        else:
            print(shortened(f"{args.file}: {len(problems)} problem(s)"))
            for key, reason in problems:
                print(shortened(f"  {key}: {reason}"))
        return 1
    summary = {
        "ok": True,
        "table": config.table_id,
        "profile": config.profile.name,
        "seats": list(config.seats),
        "pools": list(config.pools),
        "shuffler": config.shuffler.port or "emulator",
    }
    if args.json:
        print_json(summary)
    else:
        print(
            f"{args.file}: OK (table {config.table_id}, profile {config.profile.name},"
            f" seats {', '.join(map(str, config.seats))}, shuffler {summary['shuffler']})"
        )
    return 0


def hash_cmd(args: argparse.Namespace) -> int:
    import getpass

    from controller.table.credentials import hash_credential

    first = (
        getpass.getpass("new technician credential: ")
        if sys.stdin.isatty()
        else sys.stdin.readline().rstrip("\n")
    )
    if sys.stdin.isatty() and getpass.getpass("again: ") != first:
        raise CroupierError("the two entries differ")
    print(hash_credential(first))
    return 0
