"""``croupier``: the technician CLI.

Each command group lives in its own module under ``controller/cli/`` and exposes
``register(subparsers)``, which adds its sub-parser and sets ``func(args) -> int`` as the
default. Human output by default, ``--json`` for scripts. Errors the controller raises on
purpose (:class:`~controller.errors.CroupierError`) print as one line on stderr, exit status 2.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from controller import __version__
from controller.errors import CroupierError

# Command modules, in the order `croupier --help` lists them.
COMMAND_MODULES = [
    "controller.cli.eval_cmd",
    "controller.cli.settle_cmd",
    "controller.cli.par_cmd",
    "controller.cli.shuffler_cmd",
    "controller.cli.emulator_cmd",
    "controller.cli.meters_cmd",
    "controller.cli.events_cmd",
    "controller.cli.selfcheck_cmd",
    "controller.cli.sensors_cmd",
    "controller.cli.lamps_cmd",
    "controller.cli.sign_cmd",
    "controller.cli.table_cmd",
    "controller.cli.pool_cmd",
    "controller.cli.report_cmd",
    "controller.cli.verify_software_cmd",
    "controller.cli.evidence_cmd",
    "controller.cli.rig_cmd",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="croupier", description="Croupier table controller: technician tools."
    )
    parser.add_argument("--version", action="version", version=f"croupier {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except CroupierError as exc:
        print(f"croupier {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `croupier ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
