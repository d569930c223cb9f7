"""The CLI's quick paths import only what they need (issue 17, "fast on a slow CPU"): a fresh
interpreter runs ``croupier`` with the arguments and lists the modules it loaded. On a Pi
3-class CPU every module costs milliseconds, so these paths must not load the daemon's
asyncio, the ledger's SQLite, NumPy, Pillow, luma, pyserial or importlib.metadata. Not a
timing test: bench/pi_budget.py measures the time."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

# The heavy packages, as the first part of a module name
HEAVY = {
    "asyncio",
    "sqlite3",
    "_sqlite3",
    "numpy",
    "PIL",
    "luma",
    "serial",
    "serial_asyncio_fast",
    "email",
    "tomllib",
    "decimal",
    "concurrent",
    "controller.engine",
    "controller.books",
    "display.scenes",
}
# status talks to the daemon (a socket and JSON); --version needs neither
TALKERS = HEAVY | {"socket", "json"}
# Modules each worth a tenth of a second or more of `croupier status` on a Pi-class CPU
# (bench/pi_budget.py, 15% of a core): the commands a technician types most import none.
SLOW_STDLIB = {"dataclasses", "typing", "inspect", "ast", "pathlib"}
# What `meters` and `events tail` may take of the ledger beside the daemon: its paths (help)
LEDGER_PATHS = {"controller.books", "controller.books.ledger", "controller.books.ledger.paths"}

SCRIPT = """
import sys
from controller.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
loaded = sorted(sys.modules)
import json
print(json.dumps(loaded), file=sys.stderr)
"""


def loaded_by(*argv: str) -> set[str]:
    """The modules a fresh interpreter holds after ``croupier ARGV``."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    return set(json.loads(done.stderr.strip().splitlines()[-1]))


def heavy(modules: set[str], banned: set[str]) -> list[str]:
    return sorted(
        m for m in modules if m.split(".")[0] in banned or ".".join(m.split(".")[:2]) in banned
    )


def test_version_loads_nothing_heavy() -> None:
    modules = loaded_by("--version")
    assert heavy(modules, TALKERS) == []
    assert not [m for m in modules if m.endswith("_cmd")]  # no command group's module


@pytest.mark.parametrize(
    "argv",
    [("status",), ("status", "--json"), ("status", "--help"), ("seat", "--help")],
    ids=" ".join,
)
def test_daemon_commands_load_nothing_heavy(argv: tuple[str, ...]) -> None:
    """No daemon listens at the socket: the command fails after its imports, which is all
    this looks at."""
    assert heavy(loaded_by("--socket", "/nonexistent/control.sock", *argv), HEAVY) == []


def test_status_loads_no_slow_stdlib_module() -> None:
    assert heavy(loaded_by("--socket", "/nonexistent/control.sock", "status"), SLOW_STDLIB) == []


@pytest.mark.parametrize(
    "argv",
    [("meters",), ("meters", "--json"), ("events", "tail"), ("events", "tail", "--kind", "x")],
    ids=" ".join,
)
def test_ledger_reads_beside_the_daemon_load_no_ledger_code(argv: tuple[str, ...]) -> None:
    """Without --db they ask the daemon: none of the ledger's, engine's or SQLite's code."""
    modules = loaded_by("--socket", "/nonexistent/control.sock", *argv) - LEDGER_PATHS
    assert heavy(modules, HEAVY | {"dataclasses", "typing"}) == []


def test_ledger_reads_of_a_file_load_the_ledger(tmp_path) -> None:
    """With --db the same commands read the file themselves (the probe sees it)."""
    modules = loaded_by("meters", "--db", str(tmp_path / "none.sqlite3"))
    assert "controller.books.ledger.reader" in modules


def test_the_check_sees_a_heavy_import() -> None:
    """The probe itself works: a command that needs the engine is seen loading it."""
    assert "controller.engine" in {".".join(m.split(".")[:2]) for m in loaded_by("eval", "--help")}


@pytest.mark.parametrize("columns", ["", "0", "junk", "40", "200"])
def test_the_help_is_as_wide_as_argparse_would_make_it(columns: str, monkeypatch) -> None:
    """Our formatter finds the width without shutil, with shutil's answer."""
    import argparse
    import shutil

    from controller.cli.main import HelpFormatter

    monkeypatch.setenv("COLUMNS", columns)
    ours = HelpFormatter("croupier")._width
    assert ours == argparse.HelpFormatter("croupier")._width
    assert ours == shutil.get_terminal_size().columns - 2


def test_no_shutil_for_the_parser() -> None:
    assert "shutil" not in loaded_by("--socket", "/nonexistent/control.sock", "status")


@pytest.mark.parametrize("argv", [("--help",), ("stauts",), ()], ids=" ".join)
def test_the_command_list_and_a_typo_load_no_command_module(argv: tuple[str, ...]) -> None:
    modules = loaded_by(*argv)
    assert not [m for m in modules if m.endswith("_cmd")]
    assert heavy(modules, TALKERS | SLOW_STDLIB) == []


def test_the_command_list_is_the_full_parsers() -> None:
    """`croupier --help` (no module imported) lists what the full parser has, with the same
    help: each module takes its one-line help from COMMAND_GROUPS."""
    from controller.cli.main import build_parser

    def commands(parser: object) -> dict[str, str | None]:
        sub = next(a for a in parser._actions if a.dest == "command")  # type: ignore[attr-defined]
        return {c.dest: c.help for c in sub._choices_actions}

    assert commands(build_parser(commands_only=True)) == commands(build_parser())
