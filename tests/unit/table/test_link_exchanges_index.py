"""The shuffler link finds a round's DEAL exchanges through its index by round
(controller/table/shuffler_link.py): the same exchanges, in the same order, as a walk of all
it keeps, also once the oldest are dropped past RECORDED."""

import random

from controller.table import shuffler_link
from controller.table.shuffler_link import ShufflerLink


def make_link():
    return ShufflerLink(
        object(), lambda event: None, firmware_allow=set(), shoe=False, card_name=str
    )


def test_exchanges_of_a_round_match_a_walk_of_every_kept_exchange(monkeypatch):
    monkeypatch.setattr(shuffler_link, "RECORDED", 7)
    link = make_link()
    rounds = ["R-1", "R-2", "R-3", None]  # None: an exchange outside a round
    rng = random.Random(17)
    for n in range(60):
        link._record({"round": rng.choice(rounds), "n": n})
        assert len(link.recorded) == min(n + 1, 7)
        for round_id in rounds:
            walked = [e for e in link.recorded if e["round"] == round_id]
            assert link.exchanges_of(round_id) == walked
    assert link.exchanges_of("R-9") == []
    kept = sum(len(v) for v in link._by_round.values())
    assert kept == len(link.recorded)  # nothing dropped is still indexed


def test_the_exchanges_returned_are_a_copy():
    link = make_link()
    link._record({"round": "R-1", "n": 0})
    link.exchanges_of("R-1").clear()
    assert link.exchanges_of("R-1") == [{"round": "R-1", "n": 0}]
