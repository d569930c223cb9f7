"""The quick reading of ``status``, ``meters`` and ``events tail`` (controller.cli.quick) gives
exactly what argparse gives for the same command line, or gives up and leaves it to argparse
(issue 17: the commands typed most skip argparse on a Pi-class CPU)."""

from __future__ import annotations

import argparse
import contextlib
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.cli.main import _parse, main
from controller.cli.quick import COMMANDS, read_quickly

# Words of the quick commands, of their neighbours, their options and values good and bad
WORDS = [
    "status",
    "meters",
    "events",
    "tail",
    "verify",
    "hits",
    "round",
    "lock",
    "confirm",
    "stake",
    "seats",
    "decide",
    "cards",
    "misdeal",
    "expose",
    "seat",
    "clear",
    "jackpot",
    "ack",
    "--technician",
    "--decision",
    "--amount",
    "--card",
    "--community",
    "ante=1000",
    "MD-M2",
    "As",
    "community",
    "4x",
    "1",
    "2",
    "3",
    "99",
    "100",
    "--socket",
    "--json",
    "--db",
    "--key",
    "--config",
    "-n",
    "--kind",
    "-f",
    "--follow",
    "--interval",
    "-h",
    "--help",
    "--jso",
    "--so",
    "--socket=/s",
    "-n5",
    "-fn",
    "--",
    "-",
    "",
    "/tmp/s.sock",
    "x y",
    " T-4 ",  # a kept text: stripped, as the daemon keeps it
    "\x1b[31mT",  # not printable: a usage error
    "a\nb",
    "x" * 201,
    "round.settled",
    "5",
    "0",
    "-1",
    "007",
    "1.5",
    "0.05",
    "0.01",
    "60",
    "61",
    ".5",
    "1.",
    "nan",
    "inf",
    "5_0",
    "+5",
    " 5",
    "\uff15",  # a fullwidth digit: int() reads it, the quick reading leaves it to argparse
    "\u0663",  # an Arabic-Indic 3: int() reads it, the CLI refuses it
    "1\u0660",
    "ante=\u0661\u0660\u0660\u0660",
    "0" * 17 + "5",
    "1" * 19,
    "1" * 5000,  # int() refuses over 4,300 digits: argparse's usage error, not a traceback
]


def argparse_reading(argv: list[str]) -> dict[str, object] | None:
    """What argparse reads (through the CLI's own parser), or None for a usage error/help."""
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        try:
            args = _parse(argv)
        except SystemExit:
            return None
    return None if args is None else vars(args)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(WORDS), max_size=8))
def test_the_quick_reading_is_argparses(argv: list[str]) -> None:
    quick = read_quickly(argv)
    if quick is None:
        return  # argparse reads it: its help, errors and suggestions
    assert argparse_reading(argv) == vars(quick)


OPTIONS = [w for w in WORDS if w.startswith("-") and len(w) > 1]
VALUES = [w for w in WORDS if w not in OPTIONS]


def filler(command: tuple[str, ...]) -> list[str]:
    """Words that make a quick command's line whole: a value of each positional argument
    (the first of VALUES it takes) and the required options."""
    spec = COMMANDS[command]
    words = [next(v for v in VALUES if a.read(v) is not None) for a in spec.arguments]
    for flag, option in spec.options.items():
        if option.required:
            words += [flag, "T-4"]
    return words


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(["--socket", "/s", "--json", "--db", "d", "--key", "k"]), max_size=6),
    st.sampled_from(sorted(COMMANDS)),
    st.one_of(st.none(), st.lists(st.sampled_from(VALUES), max_size=3)),
    st.lists(
        st.tuples(st.sampled_from(OPTIONS), st.lists(st.sampled_from(VALUES), max_size=1)),
        max_size=4,
    ),
    st.booleans(),
)
def test_the_quick_reading_around_each_command(
    before: list[str],
    command: tuple[str, ...],
    arguments: list[str] | None,
    after: list[tuple[str, list[str]]],
    whole: bool,
) -> None:
    """Command lines built around each quick command: its arguments (generated, or None:
    ones it takes), its options each followed by a value or none, its required options or
    not (more of them are read quickly)."""
    argv = [*before, *command, *(filler(command) if arguments is None else arguments)]
    for option, value in after:
        argv += [option, *value]
    if whole and arguments is not None:
        argv += filler(command)[len(COMMANDS[command].arguments) :]
    quick = read_quickly(argv)
    if quick is not None:
        assert argparse_reading(argv) == vars(quick)


@pytest.mark.parametrize("command", sorted(COMMANDS), ids=" ".join)
def test_every_option_and_argument_with_every_value(command: tuple[str, ...]) -> None:
    """Each option of a quick command, before and after it, with each value (and none), and
    each of its positional arguments with each value: every limit of every argument type is
    met at least once."""
    words, whole = list(command), filler(command)
    count = len(COMMANDS[command].arguments)
    lines = []
    for option in [*COMMANDS[command].options, "--jso", "-h"]:
        for value in [[], *([v] for v in VALUES)]:
            lines += [[*words, *whole, option, *value], [option, *value, *words, *whole]]
    for number in range(count):
        for value in VALUES:
            lines.append([*words, *whole[:number], value, *whole[number + 1 :]])
    if count:
        lines += [[*words, *whole[: count - 1], *whole[count:]], [*words, *whole, "2"]]
    quick_ones = 0
    for argv in lines:
        quick = read_quickly(argv)
        if quick is not None:
            quick_ones += 1
            assert argparse_reading(argv) == vars(quick), argv
    assert quick_ones > len(COMMANDS[command].options)


@pytest.mark.parametrize(
    "argv",
    [
        ["status"],
        ["status", "--json"],
        ["--socket", "/run/x.sock", "status"],
        ["--json", "--socket", "/s", "status", "--socket", "/t"],
        ["meters"],
        ["meters", "--json", "--config", "/etc/croupier/table.toml"],
        ["meters", "--db", "/var/lib/croupier/ledger.sqlite3", "--key", "/k"],
        ["events", "tail"],
        ["events", "tail", "-n", "50", "--kind", "round.settled", "--kind", "jackpot.hit"],
        ["events", "tail", "-f", "--interval", "0.2", "--json"],
        ["events", "tail", "--follow", "--db", "/d"],
        ["round", "lock"],
        ["--socket", "/s", "round", "confirm", "--json"],
        ["round", "stake", "2", "ante=1000", "blind=1000", "--decision", "4x"],
        ["round", "seats", "1", "2", "6"],
        ["round", "decide", "3", "insurance", "--amount", "500"],
        ["round", "cards", "seat:2", "As", "Kd"],
        ["round", "misdeal", "MD-M2", "a card fell face up"],
        ["round", "expose", "--card", "1"],
        ["round", "expose", "--community", "4", "--community", "5"],
        ["seat", "clear", "3", "--technician", "T-4"],
        ["jackpot", "ack", "--technician", "T-4", "--json"],
    ],
    ids=" ".join,
)
def test_the_usual_command_lines_are_read_quickly(argv: list[str]) -> None:
    """The forms docs/daemon.md and the examples show take the quick path, read as argparse
    reads them (the property tests above could pass with a reader that always gave up)."""
    quick = read_quickly(argv)
    assert quick is not None
    assert argparse_reading(argv) == vars(quick)


@pytest.mark.parametrize(
    "argv",
    [
        ["status", "--help"],
        ["-h", "status"],
        ["status", "--jso"],
        ["status", "extra"],
        ["meters", "verify"],
        ["meters", "--socket=/s"],
        ["events", "tail", "-n", "0"],
        ["events", "tail", "-n", "-3"],
        ["events", "tail", "-n5"],
        ["events", "tail", "--interval", "61"],
        ["events", "tail", "--kind"],
        ["events", "--json", "tail"],
        ["events", "verify"],
        ["round", "lock", "now"],
        ["round", "show", "last"],
        ["seat", "clear", "3"],
        ["seat", "clear", "--technician", "T-4", "3"],
        ["seat", "clear", "100", "--technician", "T-4"],
        ["round", "seats", "1", "--json", "2"],
        ["round", "expose", "--card", "3"],
        ["round", "expose", "--community", "6"],
        ["--version"],
        [],
    ],
    ids=repr,
)
def test_what_only_argparse_reads_is_left_to_it(argv: list[str]) -> None:
    assert read_quickly(argv) is None


def test_a_bad_value_is_still_argparses_usage_error(capsys) -> None:
    """``-n 0`` is left to argparse: its one-line usage error and exit status 2."""
    with pytest.raises(SystemExit) as stopped:
        main(["events", "tail", "-n", "0"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-n: 0 is below 1" in err


def test_every_quick_command_has_a_parser_with_the_same_options() -> None:
    """Each quick option is one of the command parser's options (a new quick option without
    its parser, or a typo in its flag, fails here before any generated command line)."""
    from controller.cli.main import build_parser

    for words, command in COMMANDS.items():
        parser = build_parser(words[0])
        for word in words:
            sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
            parser = sub.choices[word]
        flags = {flag for action in parser._actions for flag in action.option_strings}
        assert set(command.options) <= flags, words


@pytest.mark.parametrize(
    "argv",
    [
        ["--socket", "", "status"],
        ["meters", "--socket", ""],
        ["round", "lock", "--socket", ""],
        ["report", "day", "--socket", ""],
        ["status", "--socket", "/tmp/" + "s" * 120],
    ],
    ids=repr,
)
def test_a_socket_that_names_none_is_a_usage_error(argv: list[str], capsys) -> None:
    """``--socket ""`` fell back to $CROUPIER_SOCKET or the default daemon silently."""
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "argument --socket" in err
