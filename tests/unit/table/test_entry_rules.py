"""The dealer's entries over the control socket (controller/table/commands.py: ``round.stake``,
``round.decide``) refuse what the table's profile does not have, with the same words and rule
as a round file (``croupier settle``):

- ``no-play`` (MD-X4: a seat left in without a Play bet because the board was exposed before it
  acted) is the Italian procedure (``board_exposure = "no-play"``, uth-it); the Greek and
  Slovak tables refuse it, naming the rule and the profile;
- a stake is a whole number of the profile's chips (``[money] chip_unit``): a player stakes
  chips, and an even-money win on a fraction of a chip would be rounded below 1:1.
"""

from __future__ import annotations

import asyncio
import tomllib

import pytest
import tomli_w
from runner_support import NoShuffler, start_loop, stop_loop

from controller.engine.profiles import find_profile
from controller.table.commands import Commands
from controller.table.control.protocol import Request
from controller.table.control.wire import ControlError
from controller.table.events import Condition, ConditionChanged
from controller.table.runner import TableRunner
from controller.table.tableconfig import parse_table_config

STAKES = {"ante": 1000, "blind": 1000}


def table_config(profile: str):
    data = tomllib.loads(f'[table]\nid = "T9"\nprofile = "{profile}"\n[shuffler]\nemulate = true\n')
    if "uth-gr" in profile:
        data["pools"] = {"main": {"seed": 500000}}
    return parse_table_config(data, "t.toml")


def enter(tmp_path, profile: str, cmd: str, **args):
    """Run one dealer's entry on a table of ``profile``: "entered", or the ControlError."""

    async def go():
        runner = TableRunner(table_config(profile), state_dir=tmp_path)
        await runner.open()
        runner.shuffler = NoShuffler()
        stop, task = await start_loop(runner)
        try:
            await runner.take(ConditionChanged(Condition.STARTUP, False))
            commands = Commands(runner)
            handler = getattr(commands, cmd.replace(".", "_"))
            try:
                return await handler(Request(cmd, args)), runner.machine.entered
            except ControlError as exc:
                return exc, runner.machine.entered
            finally:
                await commands.aclose()
        finally:
            await stop_loop(runner, stop, task)

    return asyncio.run(go())


@pytest.mark.parametrize("profile", ["uth-gr", "uth-sk"])
@pytest.mark.parametrize(
    ("cmd", "args"),
    [
        ("round.stake", {"seat": 1, "stakes": STAKES, "decision": "no-play"}),
        ("round.stake", {"seat": 1, "stakes": STAKES, "decision": ["check", "no-play"]}),
        ("round.decide", {"seat": 1, "action": "no-play"}),
    ],
)
def test_no_play_is_refused_where_the_profile_has_no_md_x4(tmp_path, profile, cmd, args):
    error, entered = enter(tmp_path, profile, cmd, **args)
    assert isinstance(error, ControlError), error
    assert error.code == "refused"  # well formed; not in this table's rules
    assert "(MD-X4)" in str(error) and f"profile {profile}" in str(error)
    assert "\n" not in str(error)
    assert entered == {}  # nothing was entered


@pytest.mark.parametrize("decision", ["no-play", ["check", "no-play"]])
def test_no_play_is_entered_on_the_italian_table(tmp_path, decision):
    answer, entered = enter(
        tmp_path, "uth-it", "round.stake", seat=1, stakes=STAKES, decision=decision
    )
    assert answer.startswith("entered; the seat's stakes now: ante EUR ")
    assert entered == {1: (STAKES, decision)}


def chip_profile(tmp_path, unit: int) -> str:
    """uth-gr staking and paying in chips of ``unit`` (a casino's money setting)."""
    data = tomllib.loads(find_profile("uth-gr").read_text())
    data["profile"]["name"] = f"uth-gr-c{unit}"
    data["money"]["chip_unit"] = unit
    path = tmp_path / f"uth-gr-c{unit}.toml"
    path.write_text(tomli_w.dumps(data))
    return str(path)


@pytest.mark.parametrize(
    ("stakes", "words"),
    [
        ({"ante": 1010, "blind": 1010}, "ante EUR 10.10 is not a whole number of chips"),
        ({"ante": 1000, "blind": 1000, "trips": 130}, "trips EUR 1.30 is not a whole number of"),
    ],
)
def test_a_stake_of_a_fraction_of_a_chip_is_refused_at_the_socket(tmp_path, stakes, words):
    profile = chip_profile(tmp_path, 25)
    args = {"seat": 1, "stakes": stakes, "decision": "4x"}
    error, entered = enter(tmp_path / "state", profile, "round.stake", **args)
    assert isinstance(error, ControlError), error
    assert error.code == "refused"
    # the dealer reads money (issue 17): the stake and the chip
    assert words in str(error) and "chips of EUR 0.25 ([money] chip_unit)" in str(error)
    assert str(error).endswith("(UTH-2)") and entered == {}
    answer, entered = enter(tmp_path / "state2", profile, "round.stake", seat=1, stakes=STAKES)
    assert answer.startswith("entered") and entered == {1: (STAKES, None)}


def test_an_entry_is_the_seats_whole_stakes_and_the_reply_shows_them_as_money(tmp_path):
    """Issue 17: an entry replaces the seat's stakes; the reply says what they are now."""
    stakes = {"ante": 1000, "blind": 1000, "trips": 500}
    answer, entered = enter(tmp_path, "uth-gr", "round.stake", seat=2, stakes=stakes)
    assert answer == (
        "entered; the seat's stakes now: ante EUR 10.00, blind EUR 10.00, trips EUR 5.00"
    )
    answer, _ = enter(tmp_path / "b", "uth-gr", "round.stake", seat=2, stakes=stakes, decision="4x")
    assert answer.endswith("trips EUR 5.00; decision 4x")


@pytest.mark.parametrize(
    ("profile", "stakes", "words"),
    [
        ("uth-gr", {"ante": 1000}, "seat 1: Blind EUR 0.00 must equal Ante EUR 10.00"),
        ("uth-gr", {"blind": 1000}, "seat 1: Blind EUR 10.00 must equal Ante EUR 0.00"),
        ("uth-gr", {"ante": 1000, "blind": 500}, "Blind EUR 5.00 must equal Ante EUR 10.00"),
    ],
)
def test_bets_that_go_together_are_refused_at_entry_naming_the_rule(
    tmp_path, profile, stakes, words
):
    """Issue 17: ``round stake 1 ante=1000`` was "entered" and only CONFIRM refused the
    round (UTH-2). An entry is the seat's whole stakes, so the table knows at entry."""
    error, entered = enter(tmp_path, profile, "round.stake", seat=1, stakes=stakes)
    assert isinstance(error, ControlError), error
    assert error.code == "refused" and words in str(error)
    assert str(error).endswith("(UTH-2)")
    assert entered == {}


def test_a_casino_holdem_bonus_without_an_ante_is_refused_at_entry_ch_2():
    from controller.engine.profiles import load_profile
    from controller.engine.wagers import check_entry
    from controller.errors import RoundError

    ch = load_profile("ch-bg")
    check_entry(ch, {}, 1, {"ante": 1000, "bonus": 500})
    with pytest.raises(RoundError, match=r"seat 1: a Bonus bet needs an Ante \(CH-2\)"):
        check_entry(ch, {}, 1, {"bonus": 500})
