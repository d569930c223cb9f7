"""Every command of ``croupier``, found by walking the argparse tree, against a battery of bad
input: unknown options, numbers out of their limits, typos, paths that do not exist, a daemon
that is not running. Each must answer with one line on stderr, no traceback, exit status 2
for a usage error and 1 for a failure; ``--help`` must describe every option and show
examples. Run in-process (a few hundred invocations); the end-to-end cases of the issue also
run as real processes."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.cli.argtypes import required_file, round_name
from controller.cli.main import COMMAND_GROUPS, build_parser, main

MISSING = "/nonexistent/croupier-test/x"


def leaves(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], argparse.ArgumentParser]]:
    """Every runnable command: (its words, its parser)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if parser.get_default("func") is not None:
        yield path, parser
    for action in subs:
        for name, child in action.choices.items():
            yield from leaves(child, (*path, name))


PARSER = build_parser()
LEAVES = sorted(leaves(PARSER))
IDS = [" ".join(words) for words, _ in LEAVES]


def options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    skip = (argparse._HelpAction, argparse._SubParsersAction)  # sub-commands have their own
    return [a for a in parser._actions if not isinstance(a, skip)]


@pytest.fixture(autouse=True)
def no_daemon(monkeypatch, tmp_path):
    monkeypatch.setenv("CROUPIER_SOCKET", str(tmp_path / "no-daemon.sock"))
    monkeypatch.setenv("CROUPIER_POOL_DSN", f"host={tmp_path} dbname=none connect_timeout=1")
    monkeypatch.delenv("CROUPIER_CREDENTIAL", raising=False)
    monkeypatch.delenv("CROUPIER_DEBUG", raising=False)
    monkeypatch.chdir(tmp_path)


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse: --help (0) and usage errors (2)
        status = exc.code
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line(status: int, err: str, wanted: int, argv: list[str]) -> None:
    assert "Traceback" not in err, (argv, err)
    assert status == wanted, (argv, status, err)
    assert err.count("\n") == 1 and err.startswith("croupier"), (argv, err)


def test_every_group_module_registers_the_commands_it_lists():
    registered = set(PARSER._subparsers._group_actions[0].choices)
    listed = {c for _, commands in COMMAND_GROUPS for c in commands}
    assert registered == listed


def test_the_walk_finds_the_commands():
    assert {"status", "meters verify", "sign show", "lamps test", "rig soak"} <= set(IDS)
    assert len(LEAVES) > 40


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_help_describes_every_option(words, parser, capsys):
    status, out, err = run(capsys, [*words, "--help"])
    assert status == 0 and err == ""
    undescribed = [a.dest for a in options(parser) if not a.help]
    assert undescribed == [], f"croupier {' '.join(words)}: options without help"
    assert "{'option_strings'" not in out and "%(" not in out  # an unescaped %


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_help_names_every_default(words, parser):
    """`rig soak --faults` (0.2), `--kill-rate`, `--royals` gave no default in their help."""
    for action in options(parser):
        default = action.default
        if not action.option_strings or action.nargs == 0:
            continue
        if default in (None, argparse.SUPPRESS, []) or isinstance(default, bool):
            continue
        shown = {str(default)} | ({f"{default:g}"} if isinstance(default, float) else set())
        text = action.help or ""
        assert "default" in text or any(s in text for s in shown), (words, action.dest)


def test_every_group_names_its_actions_action(capsys):
    """`ledger-key --help` showed {create,show,adopt,rotate} and "argument action"."""
    for words, parser in LEAVES + [
        ((c,), PARSER._subparsers._group_actions[0].choices[c])
        for _, commands in COMMAND_GROUPS
        for c in commands
    ]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                assert action.metavar == "ACTION", words
    status, _, err = run(capsys, ["ledger-key"])
    assert status == 2 and "required: ACTION" in err, err
    status, _, err = run(capsys, ["ledger-key", "shwo"])
    assert status == 2 and "argument ACTION: invalid choice 'shwo'; did you mean show?" in err


def test_the_soak_summary_names_each_fault_then_its_rounds(capsys):
    """`faults: 3 1 face up, 1 2 face up` was hard to read."""
    from collections import Counter

    from controller.cli.rig_cmd import print_soak
    from controller.rig.soak import SoakReport
    from display.money import currency

    report = SoakReport(rounds=5, faults=Counter({"1 face up": 3, "2 face up": 1}))
    print_soak(report, currency("EUR"))
    out = capsys.readouterr().out
    assert "faults: 1 face up (3 rounds), 2 face up (1 round); kill -9" in out


def _asks_the_credential(parser: argparse.ArgumentParser) -> bool:
    import inspect

    source = inspect.getsource(parser.get_default("func"))
    return "privileged=True" in source or "credential()" in source


# the shuffler's actions share one function; only reset (through the daemon) is privileged
CREDENTIAL_LEAVES = [
    (w, p)
    for w, p in LEAVES
    if _asks_the_credential(p) and (w[0] != "shuffler" or w[1:] == ("reset",))
]


@pytest.mark.parametrize(
    ("words", "parser"), CREDENTIAL_LEAVES, ids=[" ".join(w) for w, _ in CREDENTIAL_LEAVES]
)
def test_help_says_when_the_credential_is_needed(words, parser, capsys):
    """`round show last`, the example of `round --help`, failed without CROUPIER_CREDENTIAL,
    which its help did not name."""
    status, out, _ = run(capsys, [*words, "--help"])
    assert status == 0 and "CROUPIER_CREDENTIAL" in out, words


def test_the_walk_finds_the_commands_that_ask_the_credential():
    found = {" ".join(w) for w, _ in CREDENTIAL_LEAVES}
    assert {"round show", "round settle", "seat clear", "jackpot ack", "shuffler reset"} <= found


def test_every_group_shows_examples(capsys):
    for _, commands in COMMAND_GROUPS:
        for command in commands:
            status, out, _ = run(capsys, [command, "--help"])
            assert status == 0 and "examples:" in out, command


def test_each_action_shows_its_own_examples(capsys):
    """``croupier round stake --help`` shows the group's examples of ``round stake``."""
    import importlib

    shown = 0
    for module_name, _ in COMMAND_GROUPS:
        examples = getattr(importlib.import_module(module_name), "EXAMPLES", {})
        for command, lines in examples.items():
            for words, _ in LEAVES:
                if len(words) > 1 and words[0] == command:
                    own = [x for x in lines if f"croupier {' '.join(words)} " in f"{x} "]
                    if own:
                        status, out, _ = run(capsys, [*words, "--help"])
                        assert status == 0 and all(x in out for x in own), words
                        shown += 1
    assert shown > 20


def _example_lines() -> list[str]:
    import importlib

    return [
        line
        for module_name, _ in COMMAND_GROUPS
        for lines in getattr(importlib.import_module(module_name), "EXAMPLES", {}).values()
        for line in lines
    ]


@pytest.mark.parametrize("line", _example_lines())
def test_every_example_names_only_what_its_command_takes(line):
    """An example of ``--help`` (a technician copies it) names only commands and options the
    parser has: ``evidence make last --technician T`` was shown, and refused when typed."""
    import shlex

    words = shlex.split(line.split(" #")[0])
    words = words[words.index("croupier") + 1 :]  # after CROUPIER_CREDENTIAL=..., sudo
    chain = [PARSER]
    skip = False
    for word in words:
        if skip:
            skip = False
            continue
        if word.startswith(("(", ">", "<")):  # a comment, or the shell's redirection
            break
        if word.startswith("-") and len(word) > 1:
            name = word.split("=")[0]
            found = [
                p._option_string_actions[name] for p in chain if name in p._option_string_actions
            ]
            assert found, f"{line!r}: {name} is not an option of croupier {' '.join(words)}"
            skip = found[-1].nargs != 0 and "=" not in word
            continue
        subs = [a for a in chain[-1]._actions if isinstance(a, argparse._SubParsersAction)]
        if subs and word in subs[0].choices:
            chain.append(subs[0].choices[word])
    assert len(chain) > 1, line


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_unknown_option_is_a_usage_error(words, parser, capsys):
    argv = [*words, "--no-such-option"]
    assert_one_line(*run(capsys, argv)[::2], 2, argv)


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_a_word_left_over_is_named_by_its_command(words, parser, capsys):
    """``croupier status --zz-stray``: the command's parser reports what it could not use,
    under its own name (argparse left it to the top parser: ``croupier: unrecognized ...``)."""
    argv = [*words, *filled(parser), "--zz-stray"]
    status, _, err = run(capsys, argv)
    assert status == 2 and err.count("\n") == 1, (argv, status, err)
    assert err.startswith(f"croupier {' '.join(words)}: "), (argv, err)


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_numbers_are_checked_against_their_limits(words, parser, capsys):
    for action in options(parser):
        if action.type in (int, float):
            pytest.fail(f"{action.dest}: a bare {action.type.__name__}, no limits")
        limits = getattr(action.type, "limits", None)
        if limits is None:
            continue
        flag = action.option_strings[:1]
        bad = ["x", "nan", "1e999"]
        if limits[0] is not None:
            bad.append(str(limits[0] - 1))
        if limits[1] is not None:
            bad.append(str(limits[1] + 1))
        for value in bad:
            argv = [*words, *flag, value]
            assert_one_line(*run(capsys, argv)[::2], 2, argv)


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_choices_suggest_the_near_miss(words, parser, capsys):
    for action in options(parser):
        if not action.choices or not action.option_strings:
            continue
        choice = str(next(iter(action.choices)))
        argv = [*words, action.option_strings[0], choice + "x"]
        status, _, err = run(capsys, argv)
        assert_one_line(status, err, 2, argv)
        assert f"did you mean {choice}?" in err


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_an_option_cannot_take_the_double_dash_as_its_value(words, parser, capsys):
    """``--port=--``: Python 3.11's argparse drops the ``--`` and hands the option ``[]``,
    past its type and choices (an internal error, or a choice nobody can make)."""
    for action in options(parser):
        if action.option_strings and action.nargs != 0:
            argv = [*words, f"{action.option_strings[-1]}=--"]
            status, _, err = run(capsys, argv)
            assert_one_line(status, err, 2, argv)
            assert "expected a value, not '--'" in err, (argv, err)


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_a_pasted_ten_thousand_characters_are_not_repeated(words, parser, capsys):
    """An error names the value it refuses, shortened: not ten thousand characters of it."""
    if " ".join(words) in RUNS_FOR_REAL:
        pytest.skip("does real work with legal values")
    argv = [*words, "x" * 10_000, *filled(parser)]
    status, _, err = run(capsys, argv)
    assert status in (1, 2) and err.count("\n") == 1, (words, status, err[:300])
    assert len(err) < 600, (words, err[:300])


@pytest.mark.parametrize(
    "argv",
    [["meters", "--db"], ["settle"], ["par", "--profile"], ["config", "check"]],
    ids=" ".join,
)
def test_a_ten_thousand_character_path_is_not_repeated(argv, capsys):
    """A file's error (OSError: name too long) names the path shortened too."""
    status, out, err = run(capsys, [*argv, "/tmp/" + "x" * 10_000])
    assert status in (1, 2) and len(out + err) < 600, (out + err)[:300]
    assert err.count("\n") == 1 or argv == ["config", "check"], err[:300]  # its report: stdout


def swapped(option: str) -> str:
    """``--json`` -> ``--josn``: the last two letters swapped, a typing slip."""
    return option[:-2] + option[-1] + option[-2]


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_a_mistyped_option_suggests_the_option(words, parser, capsys):
    for action in options(parser):
        for option in action.option_strings:
            if not option.startswith("--") or swapped(option) == option or action.required:
                continue
            argv = [*words, swapped(option), *filled(parser)]
            status, _, err = run(capsys, argv)
            assert_one_line(status, err, 2, argv)
            suggested = err.partition("did you mean ")[2].partition("?")[0]
            assert suggested in parser._option_string_actions, (argv, err)  # --tablet: --tables


def test_a_mistyped_required_option_is_named_with_the_missing_one(capsys):
    status, _, err = run(capsys, ["par", "--profle", "uth-gr"])
    assert_one_line(status, err, 2, ["par"])
    assert "--profile" in err and "'--profle' is not an option: did you mean --profile?" in err


@pytest.mark.parametrize(
    "argv",
    [["--jsno", "status"], ["status", "--josn"], ["status", "--sockt", "/x"]],
    ids=" ".join,
)
def test_a_mistyped_global_option_suggests_it(argv, capsys):
    status, _, err = run(capsys, argv)
    assert_one_line(status, err, 2, argv)
    assert "did you mean --" in err


def filled(parser: argparse.ArgumentParser) -> list[str]:
    """Values for every required argument: a path that does not exist (a file that is not
    the command's, where it must exist), or the smallest legal number; plus a daemon socket,
    ledger and store that are not there."""
    argv: list[str] = []
    for action in options(parser):
        if action.option_strings and not action.required:
            continue
        limits = getattr(action.type, "limits", None)
        value = str(limits[0] if limits[0] is not None else 1) if limits else MISSING
        if action.choices:
            value = str(next(iter(action.choices)))
        if action.type is round_name:
            value = "last"
        if action.type is required_file:  # a missing one is a usage error: a file not TOML
            value = __file__
        argv += [*action.option_strings[:1], value]
    for flag in ("--db", "--dsn"):
        if any(flag in a.option_strings for a in options(parser)):
            argv += [flag, MISSING if flag == "--db" else "host=/nonexistent dbname=x"]
    return argv


# Commands that, given only harmless values, do their real work (serve, watch, write files,
# run a soak): their failures are covered by the battery above and by their own tests.
RUNS_FOR_REAL = {
    "emulator",
    "selfcheck manifest",
    "config hash-credential",
    "completion",
    "rig soak",
    "sensors watch",
    "lamps test",
    "sign test",
    "config check",
    "shuffler ports",
    "sim",
}


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_missing_paths_and_no_daemon_fail_in_one_line(words, parser, capsys):
    if " ".join(words) in RUNS_FOR_REAL:
        pytest.skip("does real work with legal values")
    argv = [*words, *filled(parser)]
    status, _, err = run(capsys, argv)
    assert "Traceback" not in err, (argv, err)
    assert status in (1, 2) and err.count("\n") == 1, (argv, status, err)


def test_global_options_before_or_after_the_command(capsys):
    for argv in (
        ["--socket", "/nope.sock", "status"],
        ["status", "--socket", "/nope.sock"],
        ["--json", "--socket", "/nope.sock", "status"],
    ):
        status, _, err = run(capsys, argv)
        assert (
            status == 1
            and err == "croupier status: no daemon socket at /nope.sock (is croupierd running?)\n"
        )


# --- global options only where a command honours them (issue 17) -------------------------
# Every command either honours --json (valid JSON on stdout) or does not take it; --socket
# only where the command talks to the daemon. Given before the command (or between a group
# and its action) to one that does not take it, either is a usage error naming the command.
@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_a_global_option_the_command_does_not_take_is_a_usage_error(words, parser, capsys):
    for flag, value in (("--json", []), ("--socket", ["/nope.sock"])):
        if flag in parser._option_string_actions:
            continue
        for argv in ([flag, *value, *words], [*words[:1], flag, *value, *words[1:]]):
            if len(words) == 1 and argv[0] != flag:
                continue
            argv += filled(parser)
            status, out, err = run(capsys, argv)
            assert_one_line(status, err, 2, argv)
            if "is required" not in err and "argument " not in err:  # argparse's, first
                assert f"croupier {' '.join(words)}: {flag} is not an option" in err, (argv, err)


@pytest.mark.parametrize(
    ("command", "offered"),
    [
        ("completion", ()),
        ("emulator", ()),
        ("eval", ("--json",)),
        ("par", ("--json",)),
        ("sim", ("--json",)),
        ("settle", ("--json",)),
        ("report keygen", ()),
        ("config hash-credential", ()),
        ("evidence make", ("--socket",)),
    ],
)
def test_help_lists_only_the_global_options_the_command_honours(command, offered, capsys):
    """`completion bash --json` and `emulator --json` printed text; `eval --socket` did
    nothing: their help listed both."""
    status, out, _ = run(capsys, [*command.split(), "--help"])
    assert status == 0
    for flag in ("--json", "--socket"):
        assert (flag in out) == (flag in offered), (command, flag)


SOCKET_LEAVES = [(w, p) for w, p in LEAVES if "--socket" in p._option_string_actions]


@pytest.mark.parametrize(
    ("words", "parser"), SOCKET_LEAVES, ids=[" ".join(w) for w, _ in SOCKET_LEAVES]
)
def test_a_socket_that_is_not_a_socket_is_a_usage_error_naming_it(words, parser, capsys, tmp_path):
    """`status --socket /tmp/somefolder` said "Connection refused": a directory or a file
    named as the daemon's socket is the command line's mistake (exit 2, --socket named); a
    missing socket stays a failure (no daemon running, exit 1)."""
    regular = tmp_path / "file"
    regular.write_text("")
    for value, says in ((tmp_path, "is a directory, not a socket"), (regular, "regular file")):
        argv = [*words, *filled(parser), "--socket", str(value)]
        status, _, err = run(capsys, argv)
        assert_one_line(status, err, 2, argv)
        assert "argument --socket: " in err and says in err, (argv, err)


def test_croupier_socket_naming_a_directory_says_so(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("CROUPIER_SOCKET", str(tmp_path))
    status, _, err = run(capsys, ["status"])
    assert (status, err) == (1, f"croupier status: {tmp_path} is a directory, not a socket\n")


ACTIONS = [(words, parser) for words, parser in LEAVES if len(words) > 1]


@pytest.mark.parametrize(("words", "parser"), ACTIONS, ids=[" ".join(w) for w, _ in ACTIONS])
def test_global_options_between_a_group_and_its_action(words, parser):
    """``croupier events --socket S tail``, as before the command or after it."""
    values = [v if v != MISSING else "x" for v in filled(parser)]  # an output's folder: cwd
    argv = [words[0], "--socket", "/nope.sock", "--json", *words[1:], *values]
    args = PARSER.parse_args(argv)  # read only: whether the action takes them is main's
    assert (args.socket, args.json) == ("/nope.sock", True)


def test_a_shortened_global_option_before_the_command(capsys):
    """argparse reads ``--sock PATH`` as ``--socket PATH``; the command is found after it."""
    status, _, err = run(capsys, ["--sock", "/nope.sock", "status"])
    assert status == 1 and "no daemon socket at /nope.sock" in err


@pytest.mark.parametrize("argv", [["--version"], ["-V"], ["version"], ["--socket", "/x", "-V"]])
def test_the_version_on_stdout_however_asked(argv, capsys):
    status, out, err = run(capsys, argv)
    assert (status, err) == (0, "") and out.startswith("croupier ")


def test_help_as_a_command_is_the_commands_help(capsys):
    assert run(capsys, ["help", "round", "stake"])[:2] == run(capsys, ["round", "stake", "-h"])[:2]
    status, out, _ = run(capsys, ["help"])
    assert status == 0 and "examples:" in out


def test_a_typo_suggests_the_command(capsys):
    status, _, err = run(capsys, ["statsu"])
    assert status == 2 and "did you mean status?" in err and err.count("\n") == 1
    status, _, err = run(capsys, ["meters", "verfy"])
    assert status == 2 and "did you mean verify?" in err


def croupier(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CROUPIER_SOCKET": "/nonexistent/croupier.sock"}
    env.pop("CROUPIER_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "controller.cli.main", *argv],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("argv", "status", "says"),
    [
        (["sign", "show", "12", "--png", f"{MISSING}.png"], 2, "no folder"),
        (["lamps", "test", "--step", "-1"], 2, "--step: -1 is below 0"),
        (["jackpot", "--help"], 0, "100% award"),
        (["--socket", "/nonexistent/s.sock", "status"], 1, "no daemon socket"),
        (["shuffler", "deal", "0"], 2, "0 is below 1"),
    ],
)
def test_the_cases_of_the_issue_as_real_processes(argv, status, says):
    done = croupier(*argv)
    assert "Traceback" not in done.stderr
    assert done.returncode == status, done.stderr
    assert says in (done.stdout if status == 0 else done.stderr)
    if status:
        assert done.stderr.count("\n") == 1


HEAVY = ("numpy", "controller.engine", "luma", "gpiozero", "psycopg", "asyncio", "serial")


@pytest.mark.parametrize("argv", [["--version"], ["--socket", "/nonexistent/s.sock", "status"]])
def test_quick_commands_load_nothing_heavy(argv):
    """`croupier --version` and `croupier status` stay quick on a Pi: no NumPy, engine,
    luma, gpiozero, psycopg or asyncio (python -X importtime lists what was loaded)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "controller.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=60,
    )
    loaded = {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert len(loaded) > 20  # importtime did report
    heavy = sorted(m for m in loaded if m.startswith(HEAVY))
    assert heavy == []


def test_shuffler_ports_lists_usb_serial_adapters_with_vid_pid(capsys, monkeypatch):
    from serial.tools import list_ports, list_ports_common

    adapter = list_ports_common.ListPortInfo("/dev/ttyUSB0")
    adapter.vid, adapter.pid, adapter.serial_number = 0x0403, 0x6001, "A10K2XYZ"
    adapter.description, adapter.manufacturer = "FT232R USB UART", "FTDI"
    uart = list_ports_common.ListPortInfo("/dev/ttyS0")  # nothing known behind it
    monkeypatch.setattr(list_ports, "comports", lambda include_links=False: [uart, adapter])
    status, out, _ = run(capsys, ["shuffler", "ports"])
    assert status == 0
    assert "/dev/ttyUSB0" in out and "0403:6001" in out and "FTDI, A10K2XYZ" in out
    assert "/dev/ttyS0" not in out
    status, out, _ = run(capsys, ["--json", "shuffler", "ports", "--all"])
    ports = json.loads(out)["ports"]
    assert [p["port"] for p in ports if p["kind"] == "serial"] == ["/dev/ttyS0", "/dev/ttyUSB0"]


def test_sign_png_off_the_pi_needs_no_backend(capsys, tmp_path):
    png = tmp_path / "sign.png"
    status, out, err = run(capsys, ["sign", "show", "5001.80", "--png", str(png)])
    assert status == 0, err
    assert png.read_bytes().startswith(b"\x89PNG") and "backend dummy" in out


def test_config_check_without_a_file_checks_the_installed_one(capsys):
    status, out, err = run(capsys, ["config", "check"])
    assert status == 1 and "/etc/croupier/table.toml" in out


@pytest.mark.parametrize("name", ["-", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_standard_output_by_any_of_its_names(name):
    from controller.cli.argtypes import output_or_stdout

    assert output_or_stdout(name) == "-"


@pytest.mark.parametrize("argv", [["version", "--json"], ["--json", "--version"], ["-V", "--json"]])
def test_the_version_as_json(argv, capsys):
    import controller

    status, out, err = run(capsys, argv)
    assert (status, err) == (0, "") and json.loads(out) == {"version": controller.__version__}


def test_the_version_word_with_more_is_a_usage_error_naming_it(capsys):
    status, out, err = run(capsys, ["version", "--bogus"])
    assert (status, out) == (2, "")
    assert err == "croupier version: unrecognized arguments: --bogus (see croupier --help)\n"


def test_the_quick_version_is_the_installed_one(capsys):
    from importlib.metadata import version

    import controller

    assert controller._version_from_dist_info() == version("croupier")
    assert run(capsys, ["--version"])[1] == f"croupier {version('croupier')}\n"


# --- paths named on the command line (controller.files, controller.cli.argtypes) ---------
# An option or argument names a file the command reads, writes, or makes a link or socket
# at; each kind refuses, at parse time, what it can never use. The walk finds them by type.
def _file_kinds() -> dict[object, str]:
    from controller.cli import argtypes

    return {
        argtypes.path: "named",
        argtypes.input_file: "input",
        argtypes.input_name: "input",
        argtypes.required_file: "input (must exist)",
        argtypes.output_file: "output",
        argtypes.output_or_stdout: "output or -",
        argtypes.png_file: "png",
        argtypes.link_path: "link",
        argtypes.socket_path: "socket",
        argtypes.capture_path: "capture",
    }


PATH_OPTIONS = [
    (words, parser, action)
    for words, parser in LEAVES
    for action in options(parser)
    if action.type in _file_kinds()
]
PATH_IDS = [
    f"{' '.join(w)} {a.option_strings[0] if a.option_strings else a.dest}"
    for w, _, a in PATH_OPTIONS
]

# What the review named, each of which a bad path once passed (an empty path, a device, a
# directory, a file to delete); none may go unchecked again.
NAMED_IN_THE_REVIEW = {
    "selfcheck manifest --output": "output",
    "evidence make --output": "output or -",
    "report day --output": "output or -",
    "sign show --png": "png",
    "sign test --png": "png",
    "emulator --link": "link",
    "emulator --control": "socket",
    "meters correct --db": "input",
    "meters rebuild --db": "input",
    "selfcheck clear --db": "input",
    "meters --db": "input",
    "report day --db": "input",
    "evidence make --db": "input",
    "verify-software --db": "input",
    "config check file": "input",
    "evidence verify bundle": "input",
    "settle round": "input",
    "ledger-key create --key": "output",
    "ledger-key show --key": "input",
    "report keygen --key": "output",
    "rig run --junit": "output",
    "rig run scenarios": "input (must exist)",
    "rig run --wired": "input (must exist)",
    "rig soak --config": "input (must exist)",
    "sign show --capture": "capture",
}

# Options that name a path but are not a file this command reads or writes: the daemon's
# control socket and the rig's socket it connects to, a serial port, a PostgreSQL DSN, a
# profile's name (or a file, checked by the profile reader).
NOT_FILES = {"--socket", "--rig-socket", "--profile", "--port", "--dsn"}


def test_every_path_the_review_named_is_checked():
    found = {i: _file_kinds()[a.type] for i, (_, _, a) in zip(PATH_IDS, PATH_OPTIONS, strict=True)}
    assert {k: found.get(k) for k in NAMED_IN_THE_REVIEW} == NAMED_IN_THE_REVIEW


@pytest.mark.parametrize(("words", "parser"), LEAVES, ids=IDS)
def test_every_option_naming_a_file_has_a_checked_type(words, parser):
    for action in options(parser):
        names_a_file = (action.metavar or "").upper() in ("PATH", "FILE", "SOCKET") or any(
            w in (action.help or "") for w in (" file", "ledger", " key")
        )
        checked = action.nargs == 0 or action.choices is not None or action.type in _file_kinds()
        if names_a_file and not NOT_FILES & set(action.option_strings) and not checked:
            pytest.fail(f"{' '.join(words)} {action.option_strings or action.dest}")


def _argv(words, parser, action, value: str) -> list[str]:
    argv = [*words]
    if action.option_strings:
        argv += [action.option_strings[0], value]
    positionals = [a for a in options(parser) if not a.option_strings]
    for other in positionals:
        if other is action:
            argv.append(value)
        elif other.choices:
            argv.append(str(next(iter(other.choices))))
        else:
            argv.append(MISSING if other.dest != "amount" else "1")
    rest = [a for a in filled(parser) if a]
    flags = {a.option_strings[0] for a in options(parser) if a.option_strings and a.required}
    for flag in flags - set(action.option_strings):
        argv += [flag, rest[rest.index(flag) + 1]]
    return argv


def _bad_values(kind: str, tmp_path) -> list[tuple[str, str]]:
    fifo = tmp_path / "fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    if kind == "named":
        return [("", "an empty path")]
    values = [("", "an empty path")]
    if kind != "capture":  # a folder of PNG frames
        values.append((str(tmp_path), "is a directory"))
    if kind in ("input", "output", "output or -", "png"):
        values += [(str(fifo), "is a fifo"), ("/dev/null", "is a character device")]
    if kind in ("output", "png"):
        values.append(("-", "standard output"))
    if kind in ("output", "output or -", "png", "capture"):  # before the work; never made
        values.append((str(tmp_path / "no-folder" / "out.png"), "no folder"))
    if kind == "capture":  # a folder for the PNGs, in a folder that does not exist
        values.append((str(tmp_path / "no-folder" / "frames") + "/", "no folder"))
    if kind == "png":  # PIL once failed with "unknown file extension" after the scene
        values += [(str(tmp_path / "out"), "ends in .png"), ("x.dat", "ends in .png")]
    if kind == "capture":
        gif = tmp_path / "fifo.gif"
        if not gif.exists():
            os.mkfifo(gif)
        values += [("/dev/null", "is a character device"), (str(gif), "is a fifo")]
    if kind in ("link", "socket"):
        regular = tmp_path / "precious.txt"
        regular.write_text("keep me")
        values += [(str(regular), "is a regular file"), (str(fifo), "is a fifo")]
    return values


@pytest.mark.parametrize(("words", "parser", "action"), PATH_OPTIONS, ids=PATH_IDS)
def test_a_path_that_cannot_be_used_is_a_usage_error_naming_it(
    words, parser, action, capsys, tmp_path
):
    """Empty, a directory, a fifo, a device (and ``-`` where it is not standard output; a
    file where a link or socket is made): one line naming the option, exit 2, before any
    work: nothing is created or deleted."""
    name = action.option_strings[0] if action.option_strings else action.metavar or action.dest
    for value, says in _bad_values(_file_kinds()[action.type], tmp_path):
        before = sorted(p.name for p in tmp_path.iterdir())
        argv = _argv(words, parser, action, value)
        status, _, err = run(capsys, argv)
        assert_one_line(status, err, 2, argv)
        assert f"argument {name}: " in err and says in err, (argv, err)
        assert sorted(p.name for p in tmp_path.iterdir()) == before, argv
    if (tmp_path / "precious.txt").exists():
        assert (tmp_path / "precious.txt").read_text() == "keep me"


ROUNDS = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize(
    "argv",
    [
        ["settle", str(ROUNDS / "uth-gr-royal.json"), "--profile", "\x1b[31mred\nx\u202e"],
        ["meters", "hits", "--pool", "\x1b[31mred\ny"],
        ["pool", "status", "--pool", "\x1b]0;title\x07"],
        ["config", "check", "/nonexistent/\x1b[2J.toml"],
    ],
    ids=["settle-profile", "meters-pool", "pool-pool", "config-path"],
)
def test_an_error_never_writes_a_control_character_to_the_terminal(argv, capsys):
    """An escape sequence, a newline or a bidirectional control from an argument or a file
    is shown as its escape (\\x1b), in one line: never sent to the technician's terminal."""
    status, out, err = run(capsys, argv)  # config check reports on stdout, not stderr
    assert status in (1, 2) and err.count("\n") <= 1, (status, err)
    shown = out + err
    assert all(c.isprintable() or c == "\n" for c in shown), shown
    assert "\\x1b" in shown or "\\x07" in shown


def test_help_help_is_the_command_list(capsys):
    """`croupier help help` answered "invalid choice 'help'"."""
    with pytest.raises(SystemExit) as done:
        main(["help", "help"])
    assert done.value.code == 0 and "COMMAND" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [
        ["ledger-key", "show", "--key", "{bad}"],
        ["meters", "verify", "--db", MISSING, "--key", "{bad}"],
        ["report", "verify", "{bad}", "--public-key", "{bad}"],
        ["evidence", "verify", "{bad}", "--public-key", "{bad}"],
        ["lamps", "test", "--config", "{bad}"],
        ["config", "check", "{bad}"],
    ],
    ids=lambda argv: " ".join(w for w in argv if w != "{bad}" and w != MISSING),
)
def test_a_key_or_config_that_is_not_text_is_named_in_our_words(argv, capsys, tmp_path):
    """`ledger-key show --key <byte 0xff>` said "'ascii' codec can't decode byte 0xff in
    position 0: ordinal not in range(128)"; a public key, "Unable to load PEM file. See
    https://cryptography.io/...  MalformedFraming". The file is named, and what is wrong."""
    bad = tmp_path / "key.bin"
    bad.write_bytes(b"\xff\xfe-----\n")
    bad.chmod(0o600)
    argv = [w.replace("{bad}", str(bad)) for w in argv]
    status, out, err = run(capsys, argv)
    said = err + out
    assert status == 1 and str(bad) in said, (argv, said)
    for raw in ("codec", "ordinal", "https://", "Malformed", "Traceback"):
        assert raw not in said, (argv, said)


def test_the_standalone_verifier_names_a_key_that_is_not_text(capsys, tmp_path):
    from controller.books import evidence_verify

    bad = tmp_path / "key.pem"
    bad.write_bytes(b"\xff")
    assert evidence_verify.main(["evidence_verify", str(bad), str(bad)]) == 1
    err = capsys.readouterr().err
    assert err == f"{bad}: cannot use this public key: not a PEM key (byte 0 is not ASCII text)\n"
