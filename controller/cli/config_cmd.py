"""``croupier config``: a table configuration checked, and a credential's hash; both work
without a daemon.

- ``croupier config check [FILE]`` (default /etc/croupier/table.toml): every problem of the
  file, one line each with its key, or a one-line summary of the table it configures;
- ``croupier config hash-credential``: the salted hash of a technician credential, for
  table.toml (read from the terminal twice, or the first line of stdin: at most 1 KiB of
  UTF-8, not empty nor only spaces).
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

    from controller.table.tableconfig import TableConfig

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
        return _report_problems(args, getattr(exc, "problems", [("", str(exc))]))
    if problems := _installation_problems(args.file, config):
        return _report_problems(args, problems)
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


def _report_problems(args: argparse.Namespace, problems: list[tuple[str, str]]) -> int:
    if args.json:
        print_json({"ok": False, "problems": [{"key": k, "reason": r} for k, r in problems]})
    else:
        print(shortened(f"{args.file}: {len(problems)} problem(s)"))
        for key, reason in problems:
            print(shortened(f"  {key}: {reason}"))
    return 1


def _installation_problems(file: str, config: TableConfig) -> list[tuple[str, str]]:
    """What the file's values say of this machine: the ledger's path holds something that
    is not a ledger; and, for the configuration the unit reads, a ledger outside the
    directory its sandbox lets croupierd write (ProtectSystem=strict: StateDirectory)."""
    import os
    from pathlib import Path

    from controller.books.ledger.paths import STATE_DIR, ledger_file_problem

    ledger = config.resolve_state(Path(STATE_DIR))
    problems = []
    if (problem := ledger_file_problem(str(ledger))) is not None:
        problems.append(("ledger.path", problem))
    # where the path leads (`..`, symlinks), for the file the unit reads however it is named
    inside = Path(os.path.realpath(ledger)).is_relative_to(os.path.realpath(STATE_DIR))
    if os.path.realpath(file) == os.path.realpath(SYSTEM_CONFIG) and not inside:
        problems.append(
            (
                "ledger.path",
                f"{ledger} is outside {STATE_DIR}, the only directory croupierd may write under"
                " its unit (systemd/croupierd.service: ProtectSystem=strict, StateDirectory)",
            )
        )
    return problems


# The longest credential read (bytes of UTF-8): a technician's secret is typed, not a file;
# `croupier config hash-credential < /dev/zero` reads this much and stops
MAX_CREDENTIAL_BYTES = 1024


def checked_credential(secret: str) -> str:
    """``secret`` when it can be a credential; CroupierError (one line) naming why not."""
    if not secret.strip():
        raise CroupierError("the credential is empty or only spaces: type the secret")
    if len(secret.encode("utf-8", "surrogatepass")) > MAX_CREDENTIAL_BYTES:
        raise CroupierError(f"the credential is longer than {MAX_CREDENTIAL_BYTES} bytes")
    if any(0xD800 <= ord(c) <= 0xDFFF for c in secret):  # bytes the terminal could not decode
        raise CroupierError("the credential is not UTF-8 text")
    control = next((c for c in secret if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if control is not None:  # a NUL from /dev/zero: no terminal or environment can give it
        raise CroupierError(f"the credential holds a control character ({control!r})")
    return secret


def _credential_from_stdin() -> str:
    """The first line of standard input (without its line end), at most
    MAX_CREDENTIAL_BYTES of UTF-8; CroupierError (one line) otherwise."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:  # a test's StringIO
        raw = sys.stdin.readline(MAX_CREDENTIAL_BYTES + 3).encode("utf-8", "surrogatepass")
    else:
        raw = stream.readline(MAX_CREDENTIAL_BYTES + 3)  # the line end, \r\n, and one more
    line = raw.removesuffix(b"\n").removesuffix(b"\r")
    if len(line) > MAX_CREDENTIAL_BYTES:
        raise CroupierError(
            f"the credential on standard input is longer than {MAX_CREDENTIAL_BYTES} bytes"
        )
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CroupierError(
            f"the credential on standard input is not UTF-8 text (byte {exc.start}: "
            f"{line[exc.start]:#04x})"
        ) from None


def hash_cmd(args: argparse.Namespace) -> int:
    import getpass

    from controller.table.credentials import hash_credential

    if sys.stdin is None:  # started with stdin closed (`<&-`)
        raise CroupierError("standard input is closed: type the credential, or pipe it in")
    terminal = sys.stdin.isatty()
    if terminal:
        first = checked_credential(getpass.getpass("new technician credential: "))
        if getpass.getpass("again: ") != first:
            raise CroupierError("the two entries differ")
    else:
        first = checked_credential(_credential_from_stdin())
    print(hash_credential(first))
    return 0
