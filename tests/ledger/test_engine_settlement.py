"""The engine's settlement and the ledger's agree to the cent (PRG-2..5, CH-8, CH-9).

The daemon opens a round with the stakes it has at LOCK, the engine settles the round at
showdown on the pool amount the ledger holds, and ``rounds.settle_arguments`` hands the result
to the ledger, which resolves the progressive again inside its transaction. Both must pay
every wager the same.
"""

import json
from pathlib import Path

import pytest
from ledger_fixtures import FakeWall, jumbo_pool, uth_pool

from controller.books.ledger.errors import BadRoundError
from controller.books.ledger.rounds import settle_arguments
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger
from controller.engine.games import settle
from controller.engine.profiles import load_profile

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def at_lock(round_data):
    """The stakes on the table when the dealer presses LOCK (Play/Call come later)."""
    return {
        s["seat"]: {w: v for w, v in s["stakes"].items() if w not in ("play", "call")}
        for s in round_data["seats"]
    }


@pytest.mark.parametrize(
    "example, config, bet",
    [("uth-gr-royal.json", uth_pool, "progressive"), ("ch-bg-jumbo7.json", jumbo_pool, "jumbo7")],
)
def test_engine_and_ledger_pay_every_wager_alike(db_path, example, config, bet):
    data = json.loads((EXAMPLES / example).read_text())
    profile = load_profile(data["profile"])
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as ledger:
        pool = config(seed=500_000)
        ledger.configure_pool(pool, 0.0)
        opened = ledger.open_round("r1", at_lock(data), 1.0)
        data["pools"] = {bet: {"amount": opened.pools[pool.name], "seed": pool.seed}}
        result = settle(profile, data)
        settled = ledger.settle_round("r1", 2.0, **settle_arguments(result, {bet: pool.name}))
        for seat in result.seats:
            engine = {name: w.paid for name, w in seat.wagers.items()}
            assert settled.paid.get(seat.seat, {}) == engine, f"seat {seat.seat}"
        assert settled.jackpot and settled.pools[pool.name] == pool.seed  # PRG-5
        assert result.pools[bet]["jackpot_paid"] == settled.outcomes[pool.name].jackpot_paid
        record = ledger.round("r1")
        assert record.staked == sum(w.stake for s in result.seats for w in s.wagers.values())
        assert ledger.hits()[-1].hand.split()[0] in ("royal-flush", "straight-flush")
        assert verify_ledger(ledger).problems == []


def test_a_jackpot_hit_that_draws_0_still_reaches_the_ledger_as_a_hit():
    # the daemon hands the engine's lines to the ledger: a seat that hit the 100% line of a
    # pool that held 0 (or whose CH-9 share rounds to 0) must still be a hit there, or the
    # ledger resolves no jackpot, pays no shares and never resets the pool (PRG-5)
    data = json.loads((EXAMPLES / "uth-gr-royal.json").read_text())
    data["pools"] = {"progressive": 0}
    result = settle(load_profile("uth-gr"), data)
    hits = settle_arguments(result, {"progressive": "uth"})["hits"]["uth"]
    assert hits[1] == "royal-flush"


def test_stakes_placed_during_the_round_are_recorded(ledger):
    ledger.open_round("r1", {1: {"ante": 1000, "blind": 1000, "progressive": 100}}, 1.0)
    final = {1: {"ante": 1000, "blind": 1000, "play": 4000}}
    paid = {1: {"ante": 2000, "blind": 1000, "play": 8000}}
    settled = ledger.settle_round("r1", 2.0, hits={"uth": {}}, payouts=paid, stakes=final)
    assert settled.paid[1]["play"] == 8000
    record = ledger.round("r1")
    assert record.stakes[1] == {"ante": 1000, "blind": 1000, "play": 4000, "progressive": 100}
    assert ledger.open_round("r1", {1: {"ante": 1000, "blind": 1000, "progressive": 100}}, 3.0)
    again = ledger.settle_round("r1", 4.0, hits={"uth": {}}, payouts=paid, stakes=final)
    assert again.retried


def test_an_opening_stake_cannot_be_lowered_and_no_progressive_comes_late(ledger):
    ledger.open_round("r1", {1: {"ante": 1000}, 2: {"ante": 500}}, 1.0)
    with pytest.raises(BadRoundError, match="staked 1000 on ante at the opening, 400"):
        ledger.settle_round(
            "r1",
            2.0,
            payouts={1: {"ante": 0}, 2: {"ante": 0}},
            stakes={1: {"ante": 400}, 2: {"ante": 500}},
        )
    with pytest.raises(BadRoundError, match="PRG-2"):
        ledger.settle_round(
            "r1",
            2.0,
            payouts={1: {"ante": 0}, 2: {"ante": 0}},
            stakes={1: {"ante": 1000, "progressive": 100}, 2: {"ante": 500}},
        )
    ledger.settle_round("r1", 2.0, payouts={1: {"ante": 0}, 2: {"ante": 0}})
