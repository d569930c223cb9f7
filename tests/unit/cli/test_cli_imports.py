"""The CLI's quick paths import only what they need (issue 17, "fast on a slow CPU"): a fresh
interpreter runs ``croupier`` with the arguments and lists the modules it loaded. On a Pi
3-class CPU every module costs milliseconds, so these paths must not load the daemon's
asyncio, the ledger's SQLite, NumPy, Pillow, luma, pyserial or importlib.metadata; and no
command's ``--help`` or usage error loads the engine, the books, the daemon, the rig or a
driver (each command group builds its parser from light modules and imports the heavy ones
in the functions that run it). Not a timing test: bench/pi_budget.py measures the time."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli.main import COMMAND_GROUPS, build_parser

# The heavy packages, as the first part (or first two parts) of a module name
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
    "cryptography",
    "gpiozero",
    "psycopg",
    "usb",
    "controller.engine",
    "controller.books",
    "controller.table",
    "controller.rig",
    "drivers",
    "firmware_bridge",
    "display.scenes",
    "display.geometry",
    "display.preview",
}
# The small modules of those packages the quick paths may load: the daemon's control client
# (socket and JSON), the ledger's paths (named in the help), the handling of stop signals
# (every command that runs), and the package modules that hold them
LIGHT = {
    "controller.table",
    "controller.table.control",
    "controller.table.control.client",
    "controller.table.control.wire",
    "controller.books",
    "controller.books.ledger",
    "controller.books.ledger.paths",
    "controller.stop_signals",
}
# status talks to the daemon (a socket and JSON); --version needs neither
TALKERS = HEAVY | {"socket", "json"}
# Modules each worth a tenth of a second or more of `croupier status` on a Pi-class CPU
# (bench/pi_budget.py, 15% of a core): the commands a technician types most import none.
SLOW_STDLIB = {"dataclasses", "typing", "inspect", "ast", "pathlib"}
# The public wrappers of C modules that build enums of every constant at import (socket with
# selectors, signal) and contextlib: the commands that ask the daemon use the C modules
WRAPPERS = {"socket", "selectors", "signal", "contextlib"}
# argparse and json, with the re, enum and gettext they import: the quick commands read their
# command line themselves (controller.cli.quick) and use json's C codec (controller.quick_json)
PARSERS = {"argparse", "json", "re", "enum", "gettext"}
QUICK = [
    ("status",),
    ("status", "--json"),
    ("meters",),
    ("meters", "--json"),
    ("events", "tail"),
    ("events", "tail", "-n", "5", "--kind", "x", "--json"),
    ("round", "lock"),
    ("round", "confirm", "--json"),
    ("round", "stake", "2", "ante=1000", "--decision", "4x"),
    ("seat", "clear", "3", "--technician", "T-4"),
    ("jackpot", "ack", "--technician", "T-4"),
]

SCRIPT = """
import sys
from controller.cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
loaded = sorted(sys.modules)
import json
print(json.dumps({"status": status, "modules": loaded}), file=sys.stderr)
"""


def run_probe(*argv: str) -> tuple[int, set[str]]:
    """The exit status of ``croupier ARGV`` in a fresh interpreter and the modules it held."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, *argv],
        capture_output=True,
        text=True,
        check=False,
    )
    found = json.loads(done.stderr.strip().splitlines()[-1])
    return found["status"], set(found["modules"])


def loaded_by(*argv: str) -> set[str]:
    """The modules a fresh interpreter holds after ``croupier ARGV``."""
    return run_probe(*argv)[1]


def heavy(modules: set[str], banned: set[str]) -> list[str]:
    return sorted(
        m
        for m in modules - LIGHT
        if m.split(".")[0] in banned or ".".join(m.split(".")[:2]) in banned
    )


def test_version_loads_nothing_heavy() -> None:
    modules = loaded_by("--version")
    assert heavy(modules, TALKERS | PARSERS) == []
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


@pytest.mark.parametrize("argv", QUICK, ids=" ".join)
def test_the_quick_commands_load_no_parser_and_no_slow_stdlib_module(
    argv: tuple[str, ...],
) -> None:
    modules = loaded_by("--socket", "/nonexistent/control.sock", *argv)
    assert heavy(modules, SLOW_STDLIB | WRAPPERS | PARSERS) == []


def test_the_probe_sees_argparse() -> None:
    """A command line only argparse reads (a usage error) is seen loading it."""
    modules = loaded_by("--socket", "/nonexistent/control.sock", "status", "--bogus")
    assert {"argparse", "re"} <= modules


@pytest.mark.parametrize(
    "argv",
    [
        ("meters",),
        ("meters", "--json"),
        ("meters", "hits"),
        ("meters", "hits", "--pool", "main", "-n", "5"),
        ("events", "tail"),
        ("events", "tail", "--kind", "x"),
    ],
    ids=" ".join,
)
def test_ledger_reads_beside_the_daemon_load_no_ledger_code(argv: tuple[str, ...]) -> None:
    """Without --db they ask the daemon: none of the ledger's, engine's or SQLite's code."""
    modules = loaded_by("--socket", "/nonexistent/control.sock", *argv)
    assert heavy(modules, HEAVY | WRAPPERS | {"dataclasses", "typing"}) == []


@pytest.mark.parametrize(
    "argv",
    [("report", "day"), ("evidence", "make", "SIM-1-000001"), ("round", "show", "SIM-1-000001")],
    ids=" ".join,
)
def test_signed_documents_asked_of_the_daemon_load_no_ledger_code(argv: tuple[str, ...]) -> None:
    """The daemon makes and signs them (reads the recorded round): the command loads neither
    the ledger's, the reports' nor the engine's code before it has the answer (2.7 s of
    `report day` at 15% of a core before it even asked)."""
    status, modules = run_probe("--socket", "/nonexistent/control.sock", *argv)
    assert status == 1  # no daemon there
    assert heavy(modules, HEAVY) == []


@pytest.mark.parametrize("action", ["init", "status", "verify"])
def test_a_linked_pool_action_without_its_store_is_a_quick_usage_error(
    action: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No --dsn and no $CROUPIER_POOL_DSN: said before psycopg and the engine load (3.5 s at
    15% of a core for `pool status` before)."""
    monkeypatch.delenv("CROUPIER_POOL_DSN", raising=False)
    status, modules = run_probe("pool", action)
    assert status == 2
    assert heavy(modules, HEAVY | {"psycopg"}) == []


def test_the_sign_picture_off_the_pi_loads_no_luma_and_no_image_plugin(tmp_path) -> None:
    """Off the Pi there is no sign to drive: ``sign show --png`` draws with Pillow and writes
    the file with display.png (importing luma, and Pillow's five image plugins for its save,
    were each a tenth of the command at 15% of a core)."""
    if Path("/dev/spidev0.0").exists():
        pytest.skip("a Pi: the configured sign would be driven")
    status, modules = run_probe("sign", "show", "12", "--png", str(tmp_path / "s.png"))
    assert status == 0 and (tmp_path / "s.png").stat().st_size > 0
    assert {"PIL.Image", "display.png"} <= modules
    assert heavy(modules, {"luma"}) == []
    assert not [m for m in modules if m.endswith("ImagePlugin")]


def test_ledger_reads_of_a_file_load_the_ledger(tmp_path) -> None:
    """With --db the same commands read the file themselves (the probe sees it)."""
    modules = loaded_by("meters", "--db", str(tmp_path / "none.sqlite3"))
    assert "controller.books.ledger.reader" in modules


def test_the_check_sees_a_heavy_import() -> None:
    """The probe itself works: a command that needs the engine is seen loading it."""
    modules = loaded_by("eval", "As", "Ks", "Qs", "Js", "10s")
    assert "controller.engine" in {".".join(m.split(".")[:2]) for m in modules}
    assert heavy(modules, HEAVY)


COMMANDS = [name for _, commands in COMMAND_GROUPS for name in commands]


def sub_commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    subs = parser._subparsers
    return {} if subs is None else subs._group_actions[0].choices  # type: ignore[attr-defined]


def every_parser(
    parser: argparse.ArgumentParser, words: tuple[str, ...] = ()
) -> list[tuple[str, ...]]:
    """The words of every command and sub-command under ``parser`` (``sign``, ``sign test``)."""
    found = []
    for name, child in sub_commands(parser).items():
        found += [(*words, name), *every_parser(child, (*words, name))]
    return found


def first_leaf(command: str) -> list[str]:
    """The words of the first runnable command of ``command``'s parser (``sign test``)."""
    parser = sub_commands(build_parser(command))[command]
    words = [command]
    while parser.get_default("func") is None:
        name, parser = next(iter(sub_commands(parser).items()))
        words.append(name)
    return words


@pytest.mark.parametrize("words", every_parser(build_parser()), ids=" ".join)
def test_every_help_loads_nothing_heavy(words: tuple[str, ...]) -> None:
    """The ``--help`` of every command group and sub-command (walked from COMMAND_GROUPS, so
    a new command is covered): choices and defaults named in the help come from light
    modules (tests/unit/cli/test_cli_light_choices.py holds them equal to their sources).
    Nor json (~2 ms of regular expressions and codecs): a command module imports it where it
    reads or writes JSON, and prints --json answers with json's C codec (controller.quick_json)."""
    status, modules = run_probe(*words, "--help")
    assert status == 0
    assert heavy(modules, HEAVY | SLOW_STDLIB | {"json"}) == []


@pytest.mark.parametrize("command", COMMANDS)
def test_every_usage_error_loads_nothing_heavy(command: str) -> None:
    """An unknown option of the command's first sub-command (``croupier sign test --bogus``):
    the whole parser of the group is built and parsing fails, before any work; json is not
    loaded, as for a help. (pathlib may load: argparse converts the string defaults of path
    options before it reports.)"""
    status, modules = run_probe(*first_leaf(command), "--no-such-option")
    assert status == 2
    assert heavy(modules, HEAVY | SLOW_STDLIB - {"pathlib"} | {"json"}) == []


@pytest.mark.parametrize("columns", ["", "0", "junk", "40", "200"])
def test_the_help_is_as_wide_as_argparse_would_make_it(columns: str, monkeypatch) -> None:
    """Our formatter finds the width without shutil, with shutil's answer."""
    import argparse
    import shutil

    from controller.cli.parser import HelpFormatter

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


def test_reading_a_configuration_loads_neither_the_daemon_nor_the_machine() -> None:
    """`croupier config check` (and every command that reads table.toml) reads the settings of
    the host checks and of the round machine from their own small modules: not asyncio, the
    machine, its events or the seat model (2-3 s of a Pi-class CPU before they were split);
    nor OpenSSL's hashlib: a stored credential is only checked for its form, not hashed."""
    status, modules = run_probe("config", "check", "config/sim.toml")
    assert status == 0
    daemon = {"asyncio", "controller.table.machine", "controller.table.events"}
    daemon |= {"controller.table.seats", "controller.table.host_checks", "drivers.gpio.core"}
    assert sorted(modules & (daemon | {"_hashlib", "hmac", "secrets"})) == []


def test_one_hand_does_not_build_the_evaluators_tables() -> None:
    """`croupier eval` works its hand out directly (controller.engine.poker.evaluator,
    DIRECT_LIMIT): building the tables took a second here and ten at 15% of a core."""
    probe = SCRIPT.replace(
        "loaded = sorted(sys.modules)",
        "from controller.engine.poker import evaluator\nloaded = [str(len(evaluator._built))]",
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, "eval", "As", "Ks", "Qs", "Js", "10s", "2c", "3d"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stdout.startswith("royal-flush"), done.stdout + done.stderr
    assert json.loads(done.stderr.strip().splitlines()[-1])["modules"] == ["0"]


def test_one_hand_loads_no_slow_standard_module() -> None:
    """`croupier eval` imports the evaluator, its cards and categories, and nothing of
    SLOW_STDLIB: its result is a plain class (controller.engine.poker.evaluator.HandResult),
    where a dataclass brought dataclasses, inspect, ast and typing, ~12 ms of CPU."""
    status, modules = run_probe("eval", "As", "Ks", "Qs", "Js", "Ts", "2c", "3d")
    assert status == 0 and "controller.engine.poker.evaluator" in modules
    assert heavy(modules, SLOW_STDLIB) == []


@pytest.mark.parametrize(
    "argv",
    [
        ("lamps", "test", "--pin-factory", "mock", "--step", "0"),
        ("sign", "show", "12.50", "--backend", "dummy", "--duration", "0"),
    ],
)
def test_the_hardware_tests_do_without_the_daemons_event_loop(argv: tuple[str, ...]) -> None:
    """`lamps test` opens its LEDs from drivers.gpio.devices and `sign show` plays the scene
    blocking (drivers.sign.pacer): neither imports asyncio (~20 ms of CPU here, over 0.1 s at
    15% of a core) nor the GPIO table's core."""
    status, modules = run_probe(*argv)
    assert status == 0
    assert heavy(modules, {"asyncio", "drivers.gpio.table", "drivers.sign.loop"}) == []
    assert "drivers.gpio.core" not in modules
