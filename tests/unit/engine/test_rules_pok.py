"""Cards and poker hands against RULES.md (POK-1..5) through ``croupier eval --json``, the way a
lab checks the evaluator behind every hold'em settlement."""

from __future__ import annotations

import json

import pytest
from rules_settle_support import run_cli


def evaluate(*cards: str) -> dict:
    status, out, err = run_cli("eval", *cards, "--json")
    assert status == 0, err
    return json.loads(out)


@pytest.mark.parametrize(
    ("cards", "hand", "best"),
    [
        ("As Ks Qs Js Ts 2c 3d", "royal-flush", "As Ks Qs Js Ts"),
        ("As 2s 3s 4s 5s Kd Qc", "straight-flush", "5s 4s 3s 2s As"),  # steel wheel, POK-4
        ("Ah 2c 3d 4s 5h Kd 9c", "straight", "5h 4s 3d 2c Ah"),  # the wheel
        ("Qh Kc Ad 2s 3h", "high-card", "Ad Kc Qh 3h 2s"),  # no wrap-around (POK-4)
        ("Th Jc Qd Kh As 2c 3d", "straight", "As Kh Qd Jc Th"),  # ace high
        ("9h 9c 9d 9s 2c 5d Kh", "four-of-a-kind", "9h 9c 9d 9s Kh"),  # quads + best kicker
        ("9h 9c 9d 2s 2c Kd Kh", "full-house", "9h 9c 9d Kd Kh"),  # trips, best pair
        ("Kh Kc 9d 9s 4c 4d Ah", "two-pair", "Kh Kc 9d 9s Ah"),  # two best pairs, POK-5
    ],
)
def test_best_five_of_seven(cards, hand, best):
    out = evaluate(*cards.split())
    assert out["hand"] == hand
    assert sorted(out["best_five"]) == sorted(best.split())


def test_suits_never_rank_and_equal_best_five_are_equal_whatever_the_unused_cards():
    # POK-1, POK-5: the same ranks in other suits; a different unused card (3c vs 2d)
    first = evaluate("Ah", "Kd", "9s", "7c", "5h", "4d", "3c")
    second = evaluate("As", "Kc", "9h", "7d", "5s", "4h", "2d")
    assert first["hand"] == second["hand"] == "high-card"
    assert first["strength"] == second["strength"]


def test_a_card_twice_is_refused_with_pok1():
    status, out, _ = run_cli("eval", "As", "As", "Kd", "Qd", "Jd", "--json")
    assert status == 2 and json.loads(out)["error"]["rule"] == "POK-1"


def test_the_seven_card_straight_flush_run_is_reported_ace_low():
    # CH-8: A-2-3-4-5-6-7 of one suit is a seven-card run
    assert evaluate("Ah", "2h", "3h", "4h", "5h", "6h", "7h")["straight_flush_run"] == 7
    assert evaluate("Qh", "Kh", "Ah", "2h", "3h", "4h", "9c")["straight_flush_run"] == 0
