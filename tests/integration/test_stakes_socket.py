"""Stakes over the control socket of a real daemon: a wager the profile does not offer and a
stake under the minimum are refused naming the rule; a stake over the table maximum plays at
the maximum, its excess is recorded as returned, and the recorded round settles again the
same (BJ-1, UTH-2, the table's [limits])."""

from __future__ import annotations

import pytest

from controller.table.control.wire import ControlError

pytestmark = pytest.mark.integration

LIMITS = {"ante": {"min": 500, "max": 5000}, "trips": {"min": 100, "max": 1000}}


@pytest.fixture
def table(make_sim_table):
    return make_sim_table({"limits": LIMITS})


def test_unoffered_and_under_minimum_stakes_are_refused_with_the_rule(table):
    # a wager this game does not have is a malformed request (exit 2), with a suggestion
    with pytest.raises(ControlError, match=r"unknown wager 'jumbo7'.*\(UTH-2\)") as caught:
        table.call("round.stake", seat=1, stakes={"ante": 1000, "blind": 1000, "jumbo7": 100})
    assert caught.value.code == "bad-request"
    with pytest.raises(ControlError, match=r"'antee'.*did you mean ante\?") as caught:
        table.call("round.stake", seat=1, stakes={"antee": 1000})
    assert caught.value.code == "bad-request"
    with pytest.raises(ControlError, match="a wager name is at most 32 characters"):
        table.call("round.stake", seat=1, stakes={"x" * 33: 1000})
    # the dealer reads money, not minor units (issue 17)
    below = r"ante EUR 4\.00 is below the table minimum EUR 5\.00 \(UTH-2\)"
    with pytest.raises(ControlError, match=below):
        table.call("round.stake", seat=1, stakes={"ante": 400, "blind": 400})
    assert table.journal("wagers") == []  # nothing was entered


def test_an_over_maximum_ante_plays_at_the_maximum_and_the_excess_is_returned(table):
    table.call("round.stake", seat=2, stakes={"ante": 8000, "blind": 8000}, decision="fold")
    table.tap("lock")
    table.wait_for_state("verified")
    table.tap("confirm")
    table.wait_until(lambda: table.status()["state"] == "settled", "settled")
    last = table.call("round.last")
    ante = last["seats"][0]["wagers"]["ante"]
    assert (ante["stake"], ante["returned"], ante["paid"]) == (5000, 3000, 0)  # UTH-4 fold
    shown = table.call("round.show", privileged=True)
    assert shown["record"]["limits"] == LIMITS
    assert table.call("round.settle", privileged=True)["matches"] is True


def test_under_refuse_an_over_maximum_stake_is_the_tables_refusal_and_nothing_is_entered(
    make_sim_table, tmp_path, capsys
):
    """[rules] over_maximum = "refuse" (BJ-1 [interpretation]): the table refuses the stake
    whole, as it refuses one under the minimum; ``croupier round stake`` fails (exit 1) in one
    line and nothing is journaled. A stake within the limits is entered as under "cap"."""
    import tomllib

    from controller.cli.main import main
    from controller.engine.profiles import find_profile

    text = find_profile("uth-gr").read_text()
    assert 'over_maximum = "cap"' in text
    refuse = tmp_path / "uth-gr-refuse.toml"
    refuse.write_text(text.replace('over_maximum = "cap"', 'over_maximum = "refuse"', 1))
    assert tomllib.loads(refuse.read_text())["rules"]["over_maximum"] == "refuse"
    table = make_sim_table({"limits": LIMITS, "table": {"profile": str(refuse)}})
    above = r"ante EUR 80\.00 is above the table maximum EUR 50\.00"
    with pytest.raises(ControlError, match=above) as caught:
        table.call("round.stake", seat=2, stakes={"ante": 8000, "blind": 8000})
    assert caught.value.code == "refused" and str(caught.value).endswith("(BJ-1)")
    argv = ["--socket", str(table.control_socket), "round", "stake", "2", "ante=1000"]
    status = main([*argv, "blind=1000", "trips=1500"])  # the Trips side bet over its 1000
    _, err = capsys.readouterr()
    assert status == 1 and err.count("\n") == 1 and "Traceback" not in err, err
    assert "trips EUR 15.00 is above the table maximum EUR 10.00" in err and "(BJ-1)" in err
    assert table.journal("wagers") == []  # nothing was entered
    assert main([*argv, "blind=1000", "trips=1000"]) == 0  # at the maximum: entered whole
    assert len(table.journal("wagers")) == 1
