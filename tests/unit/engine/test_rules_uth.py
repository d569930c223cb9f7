"""Ultimate Texas Hold'em against RULES.md (UTH-1..11, POK-4) and the seeds 000, 002, 004, as an
outside lab checks it: round files through ``croupier settle --json``, every amount worked out
by hand here (cents; ``paid`` = stake returned + winnings, 0 when lost)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_settle_support import outcome, profile_file, refused, seat_of, settled


def seat(n: int, cards: str, decision: object = "4x", ante: int = 1000, **extra: int) -> dict:
    stakes = {"ante": ante, "blind": ante, **extra} if ante else dict(extra)
    entry: dict = {"seat": n, "cards": cards.split(), "stakes": stakes}
    if decision is not None:
        entry["decision"] = decision
    return entry


def uth(profile: str, dealer: str, board: str, *seats: dict, **extra: object) -> dict:
    return {
        "profile": profile,
        "dealer": dealer.split(),
        "community": board.split(),
        "seats": list(seats),
        **extra,
    }


# --- UTH-6, UTH-8, UTH-9, UTH-10: the dealer qualifies ---------------------------------------


def test_player_wins_ante_play_even_blind_by_table_trips_by_table_in_payout_order():
    # board 2h 7h 9h Js Qc; dealer Jd 3c = pair of jacks: qualifies (UTH-5)
    # seat 1 Ah 4h = ace-high flush; seat 2 Kd Tc = straight 9-K
    result = settled(
        uth(
            "uth-gr",
            "Jd 3c",
            "2h 7h 9h Js Qc",
            seat(1, "Ah 4h", "4x", trips=500),
            seat(2, "Kd Tc", ["check", "2x"], ante=2000, trips=300),
        )
    )
    assert result["dealer"]["qualifies"] is True
    assert outcome(result, 1, "play") == ("win", 4000, 8000, "UTH-6")  # 4x1000, 1:1
    assert outcome(result, 1, "ante") == ("win", 1000, 2000, "UTH-6")
    assert outcome(result, 1, "trips") == ("win", 500, 500 + 3500, "UTH-9")  # flush 7:1
    assert outcome(result, 1, "blind") == ("win", 1000, 1000 + 1500, "UTH-8")  # flush 3:2
    assert outcome(result, 2, "play") == ("win", 4000, 8000, "UTH-6")  # 2x2000 after the flop
    assert outcome(result, 2, "trips") == ("win", 300, 300 + 1200, "UTH-9")  # straight 4:1
    assert outcome(result, 2, "blind") == ("win", 2000, 4000, "UTH-8")  # straight 1:1
    # UTH-10: seats right to left, each seat Play, Ante, Trips, Blind
    assert [s["seat"] for s in result["seats"]] == [2, 1]
    assert list(seat_of(result, 1)["wagers"]) == ["play", "ante", "trips", "blind"]


@pytest.mark.parametrize(
    ("board", "hole", "category", "blind_paid", "trips_paid"),
    [  # dealer Kc 3s: a pair of kings or better with every board below (qualifies, loses)
        ("Ah Kh Qh 7c 2d", "Jh Th", "royal-flush", 1000 + 500_000, 1000 + 50_000),
        ("9h 8h 7h 2c Kd", "6h 5h", "straight-flush", 1000 + 50_000, 1000 + 40_000),
        ("9h 9c 7h 2c Kd", "9s 9d", "four-of-a-kind", 1000 + 10_000, 1000 + 30_000),
        ("9h 9c 7h 2c Kd", "9s 7d", "full-house", 1000 + 3000, 1000 + 8000),
        ("9h 8c 7h 2c Kd", "6s 5d", "straight", 1000 + 1000, 1000 + 4000),
        ("As 2c 3h 4d Kd", "5s 9d", "straight", 1000 + 1000, 1000 + 4000),  # the wheel, POK-4
        ("9h 8c 7h 2c Kd", "9s 9d", "three-of-a-kind", 1000, 1000 + 3000),  # Blind pushes
        ("9h 8c 7h 2c Kd", "As Ad", "pair", 1000, 0),  # Blind pushes, Trips loses
    ],
)
def test_blind_and_trips_pay_tables_edge_by_edge(board, hole, category, blind_paid, trips_paid):
    result = settled(uth("uth-gr", "Kc 3s", board, seat(1, hole, "3x", trips=1000)))
    assert seat_of(result, 1)["hand"] == category
    assert outcome(result, 1, "play") == ("win", 3000, 6000, "UTH-6")
    blind = seat_of(result, 1)["wagers"]["blind"]
    assert (blind["paid"], blind["rule"]) == (blind_paid, "UTH-8")
    assert blind["result"] == ("win" if blind_paid > 1000 else "push")
    assert seat_of(result, 1)["wagers"]["trips"]["paid"] == trips_paid


def test_dealer_wins_takes_play_ante_blind_trips_still_pays_on_the_players_hand():
    # board 2c 7d 9h Js Qs; dealer Jh Jc = three jacks beats seat 1's three sevens
    result = settled(uth("uth-sk", "Jh Jc", "2c 7d 9h Js Qs", seat(1, "7c 7s", "1x", trips=500)))
    assert outcome(result, 1, "play") == ("lose", 1000, 0, "UTH-6")
    assert outcome(result, 1, "ante") == ("lose", 1000, 0, "UTH-6")
    assert outcome(result, 1, "blind") == ("lose", 1000, 0, "UTH-6")
    assert outcome(result, 1, "trips") == ("win", 500, 500 + 1500, "UTH-9")  # trips 3:1


def test_a_tie_pushes_play_ante_blind_but_trips_is_decided_on_the_players_own_hand():
    # the board As Ks Qd Jd Tc is a broadway straight: player and dealer both play it
    result = settled(uth("uth-it", "4h 5h", "As Ks Qd Jd Tc", seat(1, "2c 3c", "4x", trips=500)))
    for name, stake in (("play", 4000), ("ante", 1000), ("blind", 1000)):
        assert outcome(result, 1, name) == ("push", stake, stake, "UTH-6")
    assert outcome(result, 1, "trips") == ("win", 500, 500 + 2000, "UTH-9")  # straight 4:1


# --- UTH-7: the dealer does not qualify --------------------------------------------------------


@pytest.mark.parametrize("profile", ["uth-gr", "uth-sk"])
def test_dealer_not_qualified_ante_pushes_play_and_blind_still_decided(profile):
    # board Ah Kd 9s 7c 5h; dealer 2c 3d plays the board, ace high: no pair (UTH-5)
    result = settled(
        uth(
            profile,
            "2c 3d",
            "Ah Kd 9s 7c 5h",
            seat(1, "6s 8h", "1x"),  # straight 5-9 beats the dealer
            seat(2, "Qs Jd", "4x"),  # A K Q J 9 beats A K 9 7 5, below a straight
            seat(3, "4s 2h", "4x"),  # plays the board too: a tie
            seat(4, "Qc 3h", ["check", "check", "1x"]),
            seat(5, "Ts 6c", ["check", "2x"]),  # A K T 9 7: no 8 for a straight
        )
    )
    assert result["dealer"]["qualifies"] is False
    assert outcome(result, 1, "play") == ("win", 1000, 2000, "UTH-7")
    assert outcome(result, 1, "ante") == ("push", 1000, 1000, "UTH-7")
    assert outcome(result, 1, "blind") == ("win", 1000, 2000, "UTH-8")  # straight 1:1
    assert outcome(result, 2, "play") == ("win", 4000, 8000, "UTH-7")
    assert outcome(result, 2, "ante") == ("push", 1000, 1000, "UTH-7")
    assert outcome(result, 2, "blind") == ("push", 1000, 1000, "UTH-8")  # below a straight
    for name, stake in (("play", 4000), ("ante", 1000), ("blind", 1000)):
        assert outcome(result, 3, name) == ("push", stake, stake, "UTH-7")
    # seat 4: A K Q 9 7 beats the dealer's A K 9 7 5 (1x); seat 5: A K T 9 7 beats it too
    assert outcome(result, 4, "play") == ("win", 1000, 2000, "UTH-7")
    assert outcome(result, 5, "play") == ("win", 2000, 4000, "UTH-7")


@pytest.mark.parametrize("profile", ["uth-gr", "uth-sk"])
def test_dealer_not_qualified_but_better_takes_play_and_blind_ante_pushes(profile):
    # dealer Qc 3d: A K Q 9 7, no pair; seat 1 4s 2h: A K 9 7 5 is worse
    result = settled(uth(profile, "Qc 3d", "Ah Kd 9s 7c 5h", seat(1, "4s 2h", "4x")))
    assert outcome(result, 1, "play") == ("lose", 4000, 0, "UTH-7")
    assert outcome(result, 1, "ante") == ("push", 1000, 1000, "UTH-7")
    assert outcome(result, 1, "blind") == ("lose", 1000, 0, "UTH-7")


def test_italian_dealer_not_qualified_pays_the_ante_to_every_player_still_in():
    # uth-it, dealer_not_qualified = "ante-wins": Ante 1:1, Play and Blind push, for the
    # better and the worse hand alike; a folded hand lost its Ante and Blind (UTH-4)
    result = settled(
        uth(
            "uth-it",
            "Qc 3d",
            "Ah Kd 9s 7c 5h",
            seat(1, "6s 8h", "1x", trips=500),  # straight: Trips 4:1 still decided (UTH-9)
            seat(2, "4s 2h", "4x"),  # worse than the dealer
            seat(3, "Ts 6c", "fold", trips=500),
        )
    )
    assert outcome(result, 1, "ante") == ("win", 1000, 2000, "UTH-7")
    assert outcome(result, 1, "play") == ("push", 1000, 1000, "UTH-7")
    assert outcome(result, 1, "blind") == ("push", 1000, 1000, "UTH-7")
    assert outcome(result, 1, "trips") == ("win", 500, 2500, "UTH-9")
    assert outcome(result, 2, "ante") == ("win", 1000, 2000, "UTH-7")
    assert outcome(result, 2, "play") == ("push", 4000, 4000, "UTH-7")
    assert outcome(result, 3, "ante") == ("lose", 1000, 0, "UTH-4")
    assert outcome(result, 3, "blind") == ("lose", 1000, 0, "UTH-4")
    assert outcome(result, 3, "trips") == ("lose", 500, 0, "UTH-9")  # A K T 9 7: nothing


# --- UTH-4: raise sizes per street, folds ------------------------------------------------------


@pytest.mark.parametrize("profile", ["uth-gr", "uth-sk", "uth-it"])
@pytest.mark.parametrize(
    ("decision", "play"),
    [
        ("4x", 4000),
        ("3x", 3000),
        (["4x"], 4000),
        (["check", "2x"], 2000),
        ("2x", 2000),
        (["check", "check", "1x"], 1000),
        ("1x", 1000),
    ],
)
def test_play_is_4x_or_3x_preflop_2x_after_the_flop_1x_after_the_river(profile, decision, play):
    result = settled(uth(profile, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", decision)))
    assert outcome(result, 1, "play") == ("win", play, 2 * play, "UTH-6")


@pytest.mark.parametrize(
    "decision",
    [
        ["2x"],  # 2x is a flop bet
        ["check", "3x"],  # 3x/4x only preflop
        ["check", "check", "2x"],  # only 1x or fold at the river
        ["fold"],  # no fold before all five community cards (Italian)
        ["check", "fold"],
        ["4x", "1x"],  # one Play bet at most
        ["check", "check"],  # must bet 1x or fold at the river
        "5x",
    ],
)
def test_illegal_decisions_are_refused_with_uth4(decision):
    error = refused(uth("uth-gr", "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", decision)))
    assert error["rule"] == "UTH-4"


def test_a_recorded_play_stake_must_match_the_decision():
    error = refused(uth("uth-gr", "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", "3x", play=4000)))
    assert error["rule"] == "UTH-4" and "3x Ante = 3000" in error["message"]


def test_fold_loses_ante_and_blind_trips_and_progressive_stay_in_action():
    # seat 1 folds 9c 9d; with the board 9h 9s 2c 5d Kh that is four nines
    result = settled(
        uth(
            "uth-gr",
            "Jd 3c",
            "9h 9s 2c 5d Kh",
            seat(1, "9c 9d", ["check", "check", "fold"], trips=100, progressive=100),
            pools={"progressive": 500_000},
        )
    )
    assert outcome(result, 1, "ante") == ("lose", 1000, 0, "UTH-4")
    assert outcome(result, 1, "blind") == ("lose", 1000, 0, "UTH-4")
    assert "play" not in seat_of(result, 1)["wagers"]
    assert outcome(result, 1, "trips") == ("win", 100, 100 + 3000, "UTH-9")  # quads 30:1
    assert outcome(result, 1, "progressive") == ("win", 100, 10_000, "PRG-3")  # 100:1, PRG-2


# --- UTH-1, UTH-2, UTH-3, UTH-11, BJ-1: what the round may hold -------------------------------


def test_stakes_over_the_table_maximum_are_capped_and_the_excess_returned_bj1():
    # limits from the round file: Ante 5..50, Trips 1..10 (euros); the Blind follows the Ante
    result = settled(
        uth(
            "uth-gr",
            "Jd 3c",
            "2c 7d 9h Js Qs",
            seat(1, "Kd Tc", "4x", ante=8000, trips=1500),
            limits={"ante": {"min": 500, "max": 5000}, "trips": {"min": 100, "max": 1000}},
        )
    )
    ante = seat_of(result, 1)["wagers"]["ante"]
    assert (ante["stake"], ante["paid"], ante["returned"]) == (5000, 10_000, 3000)
    play = seat_of(result, 1)["wagers"]["play"]  # 4x the accepted Ante
    assert (play["stake"], play["paid"]) == (20_000, 40_000)
    blind = seat_of(result, 1)["wagers"]["blind"]  # straight 1:1 on the capped Blind
    assert (blind["stake"], blind["paid"], blind["returned"]) == (5000, 10_000, 3000)
    trips = seat_of(result, 1)["wagers"]["trips"]  # straight 4:1 on 1000
    assert (trips["stake"], trips["paid"], trips["returned"]) == (1000, 5000, 500)


def test_progressive_over_the_fixed_stake_is_capped_and_returned_uth2_bj1():
    # uth-gr's fixed progressive stake is 100; 250 put down: 100 plays, 150 returned
    # seat 1 Ks Kh with the board Kd Kc 2c 5d 9h = four kings: 100:1 on 100 = 10,000
    result = settled(
        uth(
            "uth-gr",
            "Jd 3c",
            "Kd Kc 2c 5d 9h",
            seat(1, "Ks Kh", "4x", progressive=250),
            pools={"progressive": 500_000},
        )
    )
    prog = seat_of(result, 1)["wagers"]["progressive"]
    assert (prog["stake"], prog["paid"], prog["returned"]) == (100, 10_000, 150)


@pytest.mark.parametrize(
    ("change", "rule", "words"),
    [
        ({"seats": [seat(7, "Kd Tc")]}, "UTH-1", "1..6"),
        ({"seats": [seat(1, "Kd Tc"), seat(1, "Ah Ac")]}, "UTH-1", "twice"),
        ({"seats": [seat(1, "Kd Tc", blind=900)]}, "UTH-2", "must equal Ante"),
        (
            {
                "seats": [
                    {"seat": 1, "cards": ["Kd", "Tc"], "stakes": {"ante": 1000}, "decision": "4x"}
                ]
            },
            "UTH-2",
            "must equal Ante",
        ),
        ({"seats": [seat(1, "Kd Tc", progressive=50)]}, "UTH-2", "below"),
        # Ante 8000 and Blind 6000 put down: unequal, even though both would be capped to 5000
        (
            {
                "seats": [seat(1, "Kd Tc", ante=8000, blind=6000)],
                "limits": {"ante": {"min": 500, "max": 5000}},
            },
            "UTH-2",
            "6000 must equal Ante 8000",
        ),
        (
            {"seats": [seat(1, "Kd Tc", ante=400)], "limits": {"ante": {"min": 500, "max": 5000}}},
            "UTH-2",
            "below the table minimum 500",
        ),
        ({"seats": [seat(1, "Kd Tc", bonus=100)]}, "UTH-2", "unknown wager 'bonus'"),
        ({"community": ["2c", "7d", "9h", "Js"]}, "UTH-3", "community"),
        ({"dealer": ["Jd", "3c", "4c"]}, "UTH-3", "dealer"),
        ({"seats": [seat(1, "Jd Tc")]}, "POK-1", "dealt twice"),
        ({"burns": ["4c"]}, "UTH-11", "burns no cards"),
    ],
)
def test_refusals_name_their_rule(change, rule, words):
    data = uth("uth-gr", "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc"))
    data.update(change)
    error = refused(data)
    assert error["rule"] == rule and words in error["message"], error


@pytest.mark.parametrize("profile", ["uth-sk", "uth-it"])
def test_the_progressive_is_offered_only_by_the_greek_profile_uth2(profile):
    error = refused(uth(profile, "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc", progressive=100)))
    assert error["rule"] == "UTH-2" and error["type"] == "WagerNotOffered"


def test_manual_deal_burns_per_profile_uth11():
    board = "2c 7d 9h Js Qs"
    assert settled(uth("uth-sk", "Jd 3c", board, seat(1, "Kd Tc"), burns=["4c", "5d"]))
    assert settled(uth("uth-it", "Jd 3c", board, seat(1, "Kd Tc"), burns=["4c", "5d", "6h"]))
    error = refused(uth("uth-it", "Jd 3c", board, seat(1, "Kd Tc"), burns=["4c", "5d"]))
    assert error["rule"] == "UTH-11" and "burns 3 cards" in error["message"]


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ("{not json", "round.json"),
        (
            '{"profile": "uth-gr", "dealer": ["Jd", "3c"], "community": ["2c","7d","9h","Js","Qs"],'
            ' "seats": [{"seat": 1, "stakes": {"ante": 1000, "blind": 1000}, "decision": "4x"}]}',
            "seat 1 cards",
        ),
        (
            '{"profile": "uth-gr", "dealer": ["Jd", "3c"], "community": ["2c","7d","9h","Js","Qs"],'
            ' "seats": [{"seat": 1, "cards": ["Kd", "Tc"], "stakes": {"ante": "ten"},'
            ' "decision": "4x"}]}',
            "stake ante",
        ),
        (
            '{"profile": "uth-gr", "dealer": ["Jd", "3c"], "community": ["2c","7d","9h","Js","Qs"],'
            ' "seats": [{"seat": 1, "cards": ["Kd", "Tc"], "stakes": {}, "decison": "4x"}]}',
            "decison",
        ),
        (
            '{"profile": "uth-gr", "dealer": ["Jd", "3c"], "community": ["2c","7d","9h","Js","Qx"],'
            ' "seats": [{"seat": 1, "cards": ["Kd", "Tc"], "stakes": {}}]}',
            "Qx",
        ),
    ],
)
def test_a_malformed_round_file_is_one_line_naming_the_field(tmp_path, raw, field):
    from rules_settle_support import run_cli

    path = tmp_path / "round.json"
    path.write_text(raw)
    status, out, err = run_cli("settle", str(path))
    assert status != 0 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err and field in err, err


# --- profiles: only what RULES.md leaves open ---------------------------------------------------


@pytest.mark.parametrize(
    ("sections", "key", "rule"),
    [
        ({"rules": {"seats": 7}}, "rules.seats", "UTH-1"),
        ({"rules": {"ante_equals_blind": False}}, "rules.ante_equals_blind", "UTH-2"),
        ({"rules": {"dealer_not_qualified": "ante-loses"}}, "rules.dealer_not_qualified", "UTH-7"),
        ({"rules": {"burns": 1}}, "rules.burns", "UTH-11"),
        ({"rules": {"burns": 2}}, "rules.burns", "UTH-11"),  # the Greek deal burns none
        ({"rules": {"board_exposure": "no-play"}}, "rules.board_exposure", "MD-X4"),
        ({"paytables.blind": {"flush": "2:1"}}, "paytables.blind.flush", "UTH-8"),
        (
            {"paytables.trips": {"three-of-a-kind": "2:1"}},
            "paytables.trips.three-of-a-kind",
            "UTH-9",
        ),
        ({"paytables.trips": {"two-pair": "1:1"}}, "paytables.trips.two-pair", "UTH-9"),
    ],
)
def test_profile_keys_outside_the_rule_book_are_refused_naming_the_rule(
    tmp_path: Path, sections, key, rule
):
    bad = profile_file(tmp_path, "uth-gr", **sections)
    data = uth("uth-gr", "Jd 3c", "2c 7d 9h Js Qs", seat(1, "Kd Tc"))
    error = refused(data, "--profile", bad)
    problems = {p["key"]: p["rule"] for p in error["problems"]}
    assert problems.get(key) == rule, error["problems"]


# --- MD-X4: the board exposed before a seat acted ---------------------------------------------


def test_a_seat_left_in_without_a_play_bet_md_x4_settles_ante_and_blind():
    # uth-it: board 2h 7h 9h Js Qc exposed before seats 1 and 2 acted: they stay in without a
    # Play bet (MD-X4). Dealer Jd 3c = pair of jacks qualifies. Seat 1 Ah 4h (flush) wins:
    # Ante 1:1, Blind 3:2; seat 2 5c 6d (queen high) loses Ante and Blind; Trips as usual
    result = settled(
        uth(
            "uth-it",
            "Jd 3c",
            "2h 7h 9h Js Qc",
            seat(1, "Ah 4h", ["check", "no-play"], trips=500),
            seat(2, "5c 6d", "no-play"),
        )
    )
    assert list(seat_of(result, 1)["wagers"]) == ["ante", "trips", "blind"]  # no Play
    assert outcome(result, 1, "ante") == ("win", 1000, 2000, "UTH-6")
    assert outcome(result, 1, "blind") == ("win", 1000, 2500, "UTH-8")
    assert outcome(result, 1, "trips") == ("win", 500, 4000, "UTH-9")  # flush 7:1
    assert outcome(result, 2, "ante") == ("lose", 1000, 0, "UTH-6")
    assert outcome(result, 2, "blind") == ("lose", 1000, 0, "UTH-6")


def test_md_x4_with_the_italian_dealer_not_qualified():
    # uth-it: dealer Qc 3d does not qualify: Ante 1:1 to every player still in, Blind pushes
    result = settled(uth("uth-it", "Qc 3d", "Ah Kd 9s 7c 5h", seat(1, "4s 2h", "no-play")))
    assert outcome(result, 1, "ante") == ("win", 1000, 2000, "UTH-7")
    assert outcome(result, 1, "blind") == ("push", 1000, 1000, "UTH-7")
    error = refused(
        uth("uth-it", "Qc 3d", "Ah Kd 9s 7c 5h", seat(1, "4s 2h", "no-play", play=1000))
    )
    assert error["rule"] == "UTH-4"  # no Play stake with no-play


@pytest.mark.parametrize("profile", ["uth-gr", "uth-sk"])
@pytest.mark.parametrize(
    "decision", ["no-play", ["check", "no-play"], ["check", "check", "no-play"]]
)
def test_md_x4_is_italian_no_play_is_refused_by_the_greek_and_slovak_profiles(profile, decision):
    # MD-X4 is given for the Italian rules only; the Greek rules replace wrongly exposed
    # community cards (MD-X2) or void the round (MD-S3), the Slovak ones are silent. A seat
    # left in without a Play bet is refused there, naming the rule and the profile.
    error = refused(uth(profile, "Jd 3c", "2h 7h 9h Js Qc", seat(1, "Ah 4h", decision)))
    assert error["rule"] == "MD-X4" and error["type"] == "ProcedureNotOffered"
    assert f"profile {profile} has no procedure" in error["message"]


def test_a_no_play_the_table_took_before_md_x4_was_italian_only_settles_as_played():
    # the table's own record (settle(table_record=True): `round settle`, a signed bundle) of
    # a Greek round with a seat left in without a Play bet, taken before such a decision was
    # refused there, settles as it was played; a round file is refused (above)
    from controller.engine.games import settle
    from controller.engine.profiles import load_profile

    data = uth("uth-gr", "Jd 3c", "2h 7h 9h Js Qc", seat(1, "Ah 4h", ["check", "no-play"]))
    del data["profile"]
    result = settle(load_profile("uth-gr"), data, table_record=True)
    assert result.seats[0].wagers["ante"].result in ("win", "lose", "push")
