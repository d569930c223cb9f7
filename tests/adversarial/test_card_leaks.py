"""No card identity on an unprivileged path (issue 13, point 4).

A real croupierd plays rounds whose cards are known (the emulator's arranged deck): a royal
that wins the pool with the envy bonus, and a round with entered stakes and decisions. Then
every read-only command anyone in the socket's group may send, and the daemon's log, are
scanned for card notation ("As", "10h") and for card codes under a card-like key. The
surveillance commands (technician credential) must still show the cards: the scan's own
check that it can find them.
"""

from __future__ import annotations

import json
import re

from controller.engine.cards import parse_cards
from controller.rig.table import SimTable
from controller.table.commands import READ_COMMANDS

CARD = re.compile(r"(?<![A-Za-z0-9])(10|[2-9TJQKA])[cdhs](?![A-Za-z0-9])")
CARD_KEYS = {"cards", "card", "hole", "dealer_cards", "community", "shoe"}
ROYAL_DECK = "Qh Jh Th 4c 9d Ah Kh 2s 7d 3c 8s"  # community, seat 2, seat 5, dealer (UTH-11)
SECOND_DECK = "As Ks Qs Js 2d Ts 9h 3c 4c"  # a community royal; seat 1; dealer


def leaks(value, path="") -> list[str]:
    """Where ``value`` (a reply) carries card notation, or card codes under a card-like key."""
    found = []
    if isinstance(value, dict):
        for key, item in value.items():
            if str(key) in CARD_KEYS and item not in (None, [], {}, ""):
                found.append(f"{path}.{key} = {str(item)[:40]}")
            found += leaks(item, f"{path}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += leaks(item, f"{path}[{i}]")
    elif isinstance(value, str) and CARD.search(value):
        found.append(f"{path}: {value[:80]}")
    return found


def arrange(t: SimTable, cards: str) -> None:
    t.emulate("arrange", cards=[int(c) for c in parse_cards(cards)])


def test_no_unprivileged_reply_or_log_line_carries_a_card(make_sim_table):
    t = make_sim_table(start=False)
    try:
        t.start()  # inside the try: a daemon slow to start is still stopped
        t.wait_for_state("open")
        # round 1: a royal with a hole card wins the pool; the other seat gets envy (PRG-3/4)
        t.io.place_stake(2)
        t.io.place_stake(5)
        t.wait_until(lambda: t.status()["seats"]["5"]["stake"], "stakes sensed")
        arrange(t, ROYAL_DECK)
        t.tap("lock")
        t.wait_for_state("verified")
        t.tap("confirm")
        t.wait_for_state("jackpot")
        t.call("jackpot.ack", privileged=True, technician="tech")
        t.io.lift_stake(2)
        t.io.lift_stake(5)
        t.wait_for_state("open")
        # round 2: a seat with entered stakes and a decision, a community royal on the board
        t.call(
            "round.stake", seat=1, stakes={"ante": 1000, "blind": 1000, "trips": 500}, decision="4x"
        )
        arrange(t, SECOND_DECK)
        t.call("round.lock")
        t.wait_for_state("verified")
        t.call("round.confirm")
        t.wait_for_state("settled")
        # every command that only reads (what an observer such as the web may send)
        replies = {cmd: t.call(cmd) for cmd in READ_COMMANDS if cmd != "events.tail"}
        replies["events.tail"] = t.call("events.tail", n=10_000)
        # the scan can see cards where they belong: the surveillance store, with a credential
        shown = t.call("round.show", privileged=True, round="last")
        assert leaks(shown), "the scan must find the cards in the surveillance record"
    finally:
        t.stop()
        log = t.log_path.read_text()
        t.close()
    found = {cmd: leaks(reply) for cmd, reply in replies.items()}
    assert all(not f for f in found.values()), json.dumps(found, indent=1)
    assert [e for e in replies["events.tail"] if e["kind"] == "round.settled"], "rounds settled"
    log_leaks = [line for line in log.splitlines() if CARD.search(line)]
    assert not log_leaks, log_leaks[:5]


def test_a_ledger_journaled_before_the_fix_is_shown_without_cards(tmp_path):
    """An upgraded table's journal still holds settled rounds with their cards: the socket's
    `events.tail` shows their hands as categories (the stored entries stay as they were)."""
    from table_fixture import InProcessTable

    t = InProcessTable(tmp_path).start()
    try:
        ledger = t.runner.ledger

        def legacy_round() -> None:  # what the old settle_arguments handed the ledger
            with ledger.transaction():
                ledger.open_round("OLD-000001", {1: {"ante": 100}}, 1.0)
            with ledger.transaction():
                ledger.settle_round(
                    "OLD-000001",
                    2.0,
                    payouts={1: {"ante": 0}},
                    hands={1: "royal-flush As Ks Qs Js Ts"},
                )

        t.run(t.runner.in_ledger(legacy_round))
        entries = t.request("events.tail", n=5)["result"]
        shown = [e for e in entries if e["kind"] == "round.settled"]
        assert shown[-1]["data"]["hands"] == {"1": "royal-flush"}
        assert not leaks(entries)
        stored = ledger.journal.tail(5, {"round.settled"})[-1]
        assert stored.data["hands"]["1"] == "royal-flush As Ks Qs Js Ts"  # untouched
    finally:
        t.close()
