"""The values a technician types, held to the limits the rest of the controller keeps: amounts
of money within MONEY_MAX, numbers in ASCII digits, the journaled technician and reason texts
by the daemon's own rule, a wager named once in ``round stake``. Each refusal is a usage error
(one line, exit status 2) read before any work: no ledger opened, no daemon asked."""

from __future__ import annotations

import argparse

import pytest
from test_cli_every_command import LEAVES, filled, options

from controller.cli import argtypes
from controller.cli.main import build_parser, main
from controller.validation import INT64_MAX, MONEY_MAX

MONEY_LIMIT = f"{MONEY_MAX:,} minor units"


@pytest.fixture(autouse=True)
def no_daemon(monkeypatch, tmp_path):
    monkeypatch.setenv("CROUPIER_SOCKET", str(tmp_path / "no-daemon.sock"))
    monkeypatch.setenv("CROUPIER_CREDENTIAL", "1234")
    monkeypatch.delenv("CROUPIER_DEBUG", raising=False)
    monkeypatch.chdir(tmp_path)


def run(capsys, argv: list[str]) -> tuple[int, str]:
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        status = exc.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return status, err


def usage_error(capsys, argv: list[str], *says: str) -> str:
    status, err = run(capsys, argv)
    assert status == 2 and err.count("\n") == 1, (argv, status, err)
    assert all(s in err for s in says), (argv, err)
    return err


TECHNICIAN = ["--technician", "T-4", "--reason", "seed"]
CORRECT = ["meters", "correct", "main", "current"]
LEDGER = ["--db", "/nonexistent/ledger.sqlite3"]


# Amounts of money ------------------------------------------------------------------------


def money_arguments() -> list[tuple[str, argparse.Action]]:
    """Every option or argument whose help says it is an amount in minor units."""
    return [
        (" ".join(words), action)
        for words, parser in LEAVES
        for action in options(parser)
        if "minor units" in (action.help or "")
    ]


def test_every_amount_of_money_is_read_as_money():
    found = money_arguments()
    names = {f"{words} {action.dest}" for words, action in found}
    assert {
        "meters correct value",
        "pool correct value",
        "pool init seed",
        "pool init cap",
        "round decide amount",
    } <= names
    wrong = [f"{w} {a.dest}" for w, a in found if a.type is not argtypes.money]
    assert wrong == []


@pytest.mark.parametrize("meter", ["current", "reserve"])
@pytest.mark.parametrize("value", [str(INT64_MAX), str(MONEY_MAX + 1), "9" * 30])
def test_a_correction_above_the_money_limit_is_a_usage_error(meter, value, capsys):
    argv = ["meters", "correct", "main", meter, value, *LEDGER, *TECHNICIAN]
    err = usage_error(capsys, argv, MONEY_LIMIT)
    assert value in err  # the value is named


def test_the_money_limit_itself_is_an_amount(capsys):
    assert argtypes.money(str(MONEY_MAX)) == MONEY_MAX
    status, err = run(capsys, [*CORRECT, str(MONEY_MAX), *LEDGER, *TECHNICIAN])
    assert status == 1 and "no ledger at" in err  # read, then the missing ledger


@pytest.mark.parametrize(
    "argv",
    [
        ["pool", "init", "--pool", "p", "--profile", "ch-bg", "--seed", str(INT64_MAX)],
        [
            "pool",
            "init",
            "--pool",
            "p",
            "--profile",
            "ch-bg",
            "--seed",
            "1",
            "--cap",
            "1" + "0" * 13,
        ],
        ["pool", "correct", "p", "current", str(MONEY_MAX + 1), *TECHNICIAN],
        ["round", "decide", "1", "insurance", "--amount", str(INT64_MAX)],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_every_money_option_says_the_money_limit(argv, capsys):
    usage_error(capsys, argv, MONEY_LIMIT)


@pytest.mark.parametrize(
    ("stakes", "says"),
    [
        (["ante=99999999999999999999999"], MONEY_LIMIT),
        ([f"ante={MONEY_MAX + 1}"], MONEY_LIMIT),
        (["ante=1000", "ante=2000"], "ante is given twice"),
        (["ante=1000", "blind=1000", "ante=1000"], "ante is given twice"),
        (["=1000"], "write WAGER=AMOUNT"),
        (["ante=\u0661\u0660\u0660\u0660"], "write WAGER=AMOUNT"),  # Arabic-Indic digits
        (["ante=\u00b2"], "write WAGER=AMOUNT"),  # a superscript: isdigit(), not int()
    ],
)
def test_round_stake_amounts_are_money_named_once(stakes, says, capsys):
    """Read by argparse and by the quick reading alike (both run round_stake): a usage
    error before the daemon is asked."""
    usage_error(capsys, ["round", "stake", "1", *stakes], says)
    usage_error(capsys, ["round", "stake", "1", *stakes, "--decision", "4x"], says)


def test_a_stake_at_the_money_limit_goes_to_the_daemon(capsys):
    status, err = run(capsys, ["round", "stake", "1", f"ante={MONEY_MAX}"])
    assert status == 1 and "no daemon socket" in err


# Texts the journal keeps ------------------------------------------------------------------


BAD_TEXTS = [
    ("", "not empty"),
    ("   ", "not empty"),
    ("\x1b[31mT\nX", "printable"),
    ("a\nb", "printable"),
    ("x" * 201, "at most 200"),
]


def text_arguments() -> list[tuple[tuple[str, ...], argparse.ArgumentParser, argparse.Action]]:
    return [
        (words, parser, action)
        for words, parser in LEAVES
        for action in options(parser)
        if {"--technician", "--reason"} & set(action.option_strings)
    ]


def test_every_technician_and_reason_is_read_by_the_daemons_rule():
    found = text_arguments()
    commands = {" ".join(words) for words, _, _ in found}
    assert {
        "meters correct",
        "meters rebuild",
        "meters retire",
        "ledger-key adopt",
        "ledger-key rotate",
        "selfcheck clear",
        "pool correct",
        "jackpot ack",
        "seat clear",
        "shuffler reset",
    } <= commands
    wrong = [
        f"{' '.join(w)} {a.option_strings[0]}"
        for w, _, a in found
        if a.type is not argtypes.journal_text
    ]
    assert wrong == []


@pytest.mark.parametrize(("text", "says"), BAD_TEXTS, ids=repr)
@pytest.mark.parametrize("option", ["--technician", "--reason"])
def test_a_bad_technician_or_reason_is_a_usage_error_everywhere(option, text, says, capsys):
    for words, parser, action in text_arguments():
        if option not in action.option_strings:
            continue
        argv = [*words, *filled(parser)]
        if option not in argv:
            argv += [option, "T-4"]
        argv[argv.index(option) + 1] = text
        err = usage_error(capsys, argv, option, says)
        assert "\x1b" not in err and err.count("\n") == 1  # the value shown escaped


def test_the_cases_of_the_review(capsys):
    usage_error(
        capsys,
        [*CORRECT, "5", *LEDGER, "--technician", "\x1b[31mT\nX", "--reason", "a\nb"],
        "--technician",
    )
    usage_error(capsys, [*CORRECT, "5", *LEDGER, "--technician", "T", "--reason", ""], "--reason")
    usage_error(
        capsys,
        ["ledger-key", "rotate", *LEDGER, "--technician", "", "--reason", "r"],
        "--technician",
    )


def test_the_text_is_kept_as_the_daemon_keeps_it():
    """The daemon strips the text; the CLI hands the ledger what the daemon would journal."""
    assert argtypes.journal_text("  T-4 ") == "T-4"
    args = build_parser().parse_args([*CORRECT, "5", "--technician", " T-4", "--reason", "r "])
    assert (args.technician, args.reason) == ("T-4", "r")


def test_the_daemon_and_the_cli_share_one_rule():
    from controller import texts
    from controller.table import commands

    assert commands.text_problem is texts.text_problem and texts.MAX_TEXT == 200
    for value, _ in [*BAD_TEXTS, ("T-4", ""), ("M. Rossi", ""), ("x" * 200, "")]:
        try:
            daemon = commands._text({"technician": value}, "technician")
        except commands.ControlError:
            daemon = None
        try:
            cli = argtypes.journal_text(value)
        except argparse.ArgumentTypeError:
            cli = None
        assert daemon == cli, value


# Numbers in ASCII digits -----------------------------------------------------------------


UNICODE_NUMBERS = ["\u0666", "\u0663", "\uff15", "\u0967", "\u00b2", "1\u0660"]


@pytest.mark.parametrize(
    "argv",
    [
        ["par", "--profile", "uth-gr", "--decks", "\u0666"],
        ["shuffler", "deal", "\u0662"],
        ["round", "stake", "\u0663", "ante=1000"],
        ["round", "seats", "\u0661"],
        ["seat", "clear", "\u0663", "--technician", "T"],
        [*CORRECT, "\u0665\u0660\u0660\u0660\u0660\u0660", *LEDGER, *TECHNICIAN],
        ["events", "tail", "-n", "\u0665"],
        ["lamps", "test", "--step", "\u0661"],
        ["sign", "show", "\u0665"],
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_numbers_in_other_digits_are_usage_errors(argv, capsys):
    usage_error(capsys, argv, "is not")


@pytest.mark.parametrize("text", UNICODE_NUMBERS, ids=repr)
def test_every_number_type_reads_ascii_digits_only(text):
    for _, parser in LEAVES:
        for action in options(parser):
            if getattr(action.type, "limits", None) is None:
                continue
            with pytest.raises(argparse.ArgumentTypeError):
                action.type(text)


@pytest.mark.parametrize(("text", "value"), [("5", 5), ("+5", 5), ("-0", 0), ("007", 7)])
def test_ascii_digits_with_a_sign_are_numbers(text, value):
    assert argtypes.integer(0, 10)(text) == value


@pytest.mark.parametrize("text", ["5_0", " 5", "5 ", "0x10", "", "+", "--5"])
def test_other_spellings_of_whole_numbers_are_refused(text):
    with pytest.raises(argparse.ArgumentTypeError):
        argtypes.integer(0, 100)(text)


def test_every_whole_number_has_the_same_largest_value():
    """sim --seed said 9223372036854775808 where every other option says ...807."""
    highs = {
        f"{' '.join(words)} {action.dest}": action.type.limits[1]
        for words, parser in LEAVES
        for action in options(parser)
        if getattr(action.type, "limits", None) and action.type.limits[1] is not None
    }
    assert highs["sim seed"] == INT64_MAX
    assert max(highs.values()) == INT64_MAX


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--card", "1", "--community", "4"], "--card and --community: one exposure at a time"),
        (["--community", "6"], "--community: 6 is above 5"),
        (["--community", "0"], "--community: 0 is below 1"),
        (["--card", "3"], "--card: 3 is above 2"),
    ],
    ids=" ".join,
)
def test_round_expose_names_one_place_and_its_positions(argv, says, capsys):
    """MD-X1/MD-X3 (the dealer's cards, --card 1..2) or MD-X2 (the board, --community 1..5):
    a usage error before the daemon is asked, read by argparse and the quick reading alike."""
    usage_error(capsys, ["round", "expose", *argv], says)
