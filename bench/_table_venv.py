"""How a benchmark starts the daemon and the CLI of the checkout it measures.

Two ways, both with the checkout's own code:

- :func:`installed`: the table as systemd/install.sh installs it on a Pi, ``python3 -m venv``
  from the distribution's interpreter (``/usr/bin/python3``: Raspberry Pi OS's is Debian's
  build), pip upgraded, the checkout installed with ``pip install`` (not editable; the ``pi``
  extras build only on a Pi), and its ``croupier`` and ``croupierd`` scripts run. This is what
  a table runs, and what bench/pi_budget.py and bench/cli_help.py measure by default.
- :func:`development`: the checkout's development venv as ``make venv`` makes it (this
  interpreter, an editable install with coverage's start-up hook), with the checkout as the
  working directory so that its code comes first (``--venv development``; ``--venv both``
  measures the two side by side).

On this VM the development interpreter is pyenv's CPython 3.11.7 and the distribution's is
Debian 12's 3.11.2, built with profile-guided and link-time optimization. The same work costs
about a fifth more CPU on the first (docs/daemon.md, "Fast on a slow CPU", session 9), so
figures taken with it overstate what the table's own interpreter costs.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

# what `python3` is on a Pi OS or Debian table (systemd/install.sh: `python3 -m venv`)
DISTRIBUTION_PYTHON = "/usr/bin/python3"
# the checkout's packages, compiled before a development run: this VM sets
# PYTHONDONTWRITEBYTECODE, and a tree edited since its last compile would otherwise compile its
# changed modules again in every process measured (pip compiles what it installs)
PACKAGES = ("controller", "drivers", "firmware_bridge", "display")


# what the installed `croupier` script runs (not `-m`: runpy costs every command more)
CROUPIER = "import sys; from controller.cli.main import main; sys.exit(main())"


class InstallError(Exception):
    """The table's venv could not be made (no such interpreter, no venv module, pip failed)."""


@dataclass(frozen=True)
class Table:
    """The commands that start one checkout's processes."""

    label: str  # what the report says was measured
    python: list[str]  # the interpreter, for the bare `python -c pass` beside the figures
    cli: list[str]  # `croupier`, arguments follow
    daemon: list[str]  # `croupierd`, arguments follow
    cwd: Path  # the working directory of every process


def development(tree: Path) -> Table:
    """The checkout's development venv (this interpreter), its code imported from ``tree``."""
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", *PACKAGES],
        cwd=tree,
        stdout=subprocess.DEVNULL,
        check=True,
    )
    return Table(
        label=f"development venv ({sys.executable}, Python {sys.version.split()[0]})",
        python=[sys.executable],
        cli=[sys.executable, "-c", CROUPIER],
        daemon=[sys.executable, "-m", "controller.table.daemon"],
        cwd=tree,
    )


def installed(tree: Path, into: Path, python: str = DISTRIBUTION_PYTHON) -> Table:
    """``tree`` installed as systemd/install.sh installs a table, in a new venv ``into``
    made from ``python``. Raises :class:`InstallError` naming the step that failed."""
    venv = into.resolve()
    bin_dir = venv / "bin"
    steps = (
        ("make the venv", [python, "-m", "venv", str(venv)]),
        ("upgrade pip", [str(bin_dir / "pip"), "install", "--quiet", "--upgrade", "pip"]),
        (f"install {tree}", [str(bin_dir / "pip"), "install", "--quiet", str(tree)]),
    )
    for step, argv in steps:
        try:
            done = subprocess.run(argv, capture_output=True, text=True, check=False)
        except OSError as exc:
            raise InstallError(f"cannot {step} with {python}: {exc.strerror or exc}") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise InstallError(f"cannot {step} with {python}: {last}")
    version = subprocess.run(
        [str(bin_dir / "python"), "-c", "import platform; print(platform.python_version())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    return Table(
        label=f"installed table (venv from {python}, Python {version})",
        python=[str(bin_dir / "python")],
        cli=[str(bin_dir / "croupier")],
        daemon=[str(bin_dir / "croupierd")],
        cwd=venv,
    )


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--venv`` and ``--table-python``, for a benchmark that measures tables."""
    parser.add_argument(
        "--venv",
        choices=("installed", "development", "both"),
        default="installed",
        help="measure each checkout as an installed table, in its development venv, or both"
        " side by side (%(default)s)",
    )
    parser.add_argument(
        "--table-python",
        default=DISTRIBUTION_PYTHON,
        metavar="PATH",
        help="the interpreter an installed table's venv is made from (%(default)s)",
    )


def tables(args: argparse.Namespace, trees: dict[str, Path], scratch: Path) -> dict[str, Table]:
    """Each checkout of ``trees`` as ``--venv`` says, installed under ``scratch``; with
    ``both`` each name gets a " (development)" and an " (installed)" table. A checkout that
    cannot be installed (no ``python3-venv``, no network for pip) is measured in its
    development venv instead, and the report's label says so."""
    made = {}
    for n, (name, tree) in enumerate(trees.items()):
        if args.venv in ("development", "both"):
            made[f"{name} (development)" if args.venv == "both" else name] = development(tree)
        if args.venv in ("installed", "both"):
            print(f"installing {tree} as a table ({args.table_python}) ...", file=sys.stderr)
            try:
                table = installed(tree, scratch / f"table-{n}", args.table_python)
            except InstallError as exc:
                print(f"{exc}: measuring its development venv instead", file=sys.stderr)
                table = development(tree)
            made[f"{name} (installed)" if args.venv == "both" else name] = table
    return made
