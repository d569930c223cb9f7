"""A real daemon (config/sim.toml, UTH Greek with its progressive pool) refuses, in one line
with exit status 1, what the dealer's tablet enters after LOCK that the round cannot take: a
progressive stake LOCK did not take (PRG-2), and a stake or a decision for a seat that is not
in the round. Before, both answered "entered" (status 0): the progressive was settled as lost
in the round record but never reached the ledger or the pool (the journal's round.settled
'added' had no progressive, the meters no contribution), and seat 2 was journaled as 'wagers'
and then missing from the round. Nothing refused is journaled as entered, recorded or
settled; the table wagers entered after LOCK still are (hold'em, by design)."""

from __future__ import annotations

import pytest

from tests.integration.test_cli_recorded_round import CREDENTIAL, croupier

pytestmark = pytest.mark.integration


def test_stakes_after_lock_the_round_cannot_take_are_refused(make_sim_table, capsys, monkeypatch):
    monkeypatch.setenv("CROUPIER_CREDENTIAL", CREDENTIAL)
    table = make_sim_table()
    assert croupier(table, capsys, "round", "stake", "1", "ante=1000", "blind=1000")[0] == 0
    assert croupier(table, capsys, "round", "lock")[0] == 0
    table.wait_for_state("dealing", "verified")

    refused = {
        "PRG-2": ("round", "stake", "1", "ante=1000", "blind=1000", "trips=500", "progressive=100"),
        "seat 2 is not in this round": (
            "round", "stake", "2", "ante=1000", "blind=1000", "progressive=100",
        ),
        "seat 2 is not in this round ": ("round", "decide", "2", "4x"),
    }  # fmt: skip
    for words, argv in refused.items():
        status, out, err = croupier(table, capsys, *argv)
        assert (status, out) == (1, ""), (argv, status, out, err)
        assert words.strip() in err and err.count("\n") == 1, (argv, err)
        assert "Traceback" not in err and "entered" not in err, err

    # the table wagers and the decision may still come (hold'em: recorded at the settlement)
    entered = ("round", "stake", "1", "ante=1000", "blind=1000", "trips=500")
    now = "ante EUR 10.00, blind EUR 10.00, trips EUR 5.00"
    assert croupier(table, capsys, *entered)[:2] == (
        0,
        f"seat 1: entered; the seat's stakes now: {now}\n",
    )
    assert croupier(table, capsys, "round", "decide", "1", "4x")[0] == 0
    table.wait_for_state("verified")
    table.call("round.confirm")
    table.wait_for_state("settled")

    wagers = table.journal("wagers")
    assert [w["seat"] for w in wagers] == [1, 1, 1]  # nothing of seat 2, no progressive
    assert all("progressive" not in w["stakes"] for w in wagers)
    assert len(table.journal("wagers-refused")) == 3
    (settled,) = table.journal("round.settled")
    assert settled["added"] == {"1": {"ante": 1000, "blind": 1000, "play": 4000, "trips": 500}}

    shown = table.call("round.show", privileged=True)
    seats = shown["record"]["seats"]
    assert [s["seat"] for s in seats] == [1] and "progressive" not in seats[0]["stakes"]
    assert table.call("round.settle", privileged=True)["matches"] is True
    last = table.call("round.last")  # the ledger's record and the engine's result agree
    assert last["staked"] == 6500 and last["stakes"] == settled["added"]
    assert [s["seat"] for s in last["seats"]] == [1]
    assert "progressive" not in last["seats"][0]["wagers"]
    (pool,) = table.call("meters.summary")["pools"]  # nothing reached the pool either
    assert (pool["meters"]["stakes_in"], pool["meters"]["contributions"]) == (0, 0)


def test_the_technician_is_told_what_lock_did_not_take_and_what_entry_refuses(
    make_sim_table, capsys
):
    """Issue 17 (a technician's tour): ``round stake 2 ... progressive=100`` answered
    "entered", then LOCK journaled ``stake-not-taken`` (PRG-2) and ``round lock`` said only
    "pressed"; ``round stake 1 ante=1000`` (no Blind) was entered and only CONFIRM refused
    the round (UTH-2). Now LOCK's reply names the stake not taken, as money, with why and the
    rule; the entry is refused at once; each reply shows the seat's whole stakes."""
    table = make_sim_table()
    status, out, err = croupier(table, capsys, "round", "stake", "1", "ante=1000")
    assert status == 1 and out == "", (out, err)
    assert "seat 1: Blind EUR 0.00 must equal Ante EUR 10.00" in err and "(UTH-2)" in err
    assert table.journal("wagers") == []
    argv = ("round", "stake", "2", "ante=500", "blind=500", "progressive=100")
    assert croupier(table, capsys, *argv)[:2] == (
        0,
        "seat 2: entered; the seat's stakes now: ante EUR 5.00, blind EUR 5.00,"
        " progressive EUR 1.00\n",
    )
    status, out, _ = croupier(table, capsys, "round", "lock")  # no stake on seat 2's sensor
    assert status == 0
    assert out == (
        "LOCK pressed; seat 2: progressive EUR 1.00 not taken (no stake on the seat's sensor"
        " at LOCK: the sensor places it) (PRG-2)\n"
    )
    (note,) = table.journal("stake-not-taken")
    assert (note["seat"], note["entered"], note["taken"], note["rule"]) == (2, 100, 0, "PRG-2")
