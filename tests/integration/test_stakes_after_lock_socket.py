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
    assert croupier(table, capsys, "round", "stake", "1", "ante=1000")[0] == 0
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
    assert croupier(table, capsys, *entered)[:2] == (0, "seat 1: entered\n")
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
