"""Casino Hold'em with Bonus and Jumbo 7 against RULES.md (CH-1..9, PRG-2) and seed 003, as an
outside lab checks it: round files through ``croupier settle --json``, every amount worked out
by hand here. ch-bg: Jumbo 7 unit stake 100 cents (EUR 1); fixed amounts per unit stake."""

from __future__ import annotations

from pathlib import Path

import pytest
from rules_settle_support import outcome, profile_file, refused, seat_of, settled


def seat(n: int, cards: str, decision: str | None = "play", **stakes: int) -> dict:
    entry: dict = {"seat": n, "cards": cards.split(), "stakes": stakes}
    if decision is not None:
        entry["decision"] = decision
    return entry


def ch(dealer: str, board: str, *seats: dict, **extra: object) -> dict:
    return {
        "profile": "ch-bg",
        "dealer": dealer.split(),
        "community": board.split(),
        "seats": list(seats),
        **extra,
    }


# --- CH-4, CH-5, CH-6 ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "hole", "ante_paid"),
    [  # dealer 4c 4d: a pair of fours qualifies (CH-4) and loses to every hand below
        ("Ah Kh Qh 7c 2d", "Jh Th", 1000 + 100_000),  # royal 100:1
        ("9h 8h 7h 2c Kd", "6h 5h", 1000 + 20_000),  # straight flush 20:1
        ("9h 9c 7h 2c Kd", "9s 9d", 1000 + 10_000),  # four of a kind 10:1
        ("9h 9c 7h 2c Kd", "9s 7d", 1000 + 3000),  # full house 3:1
        ("9h 8h 7h 2c Kd", "Ah 3h", 1000 + 2000),  # flush 2:1
        ("9h 8c 7h 2c Kd", "6s 5d", 1000 + 1000),  # straight or lower 1:1
        ("9h 8c 7h 2c Kd", "Ks 9s", 1000 + 1000),  # two pair 1:1
        ("9h 8c 7h 2c Kd", "Ks 3s", 1000 + 1000),  # pair of kings 1:1
    ],
)
def test_dealer_qualifies_player_wins_ante_by_ch6_call_even(board, hole, ante_paid):
    result = settled(ch("4c 4d", board, seat(1, hole, ante=1000)))
    assert result["dealer"]["qualifies"] is True
    assert outcome(result, 1, "ante") == ("win", 1000, ante_paid, "CH-6")
    assert outcome(result, 1, "call") == ("win", 2000, 4000, "CH-5")  # Call = 2x Ante, 1:1


def test_dealer_below_a_pair_of_fours_ante_per_ch6_without_comparing_call_pushes():
    # dealer 3c 3d: a pair of threes does not qualify (CH-4). The Ante wins even for the
    # hand that is worse than the dealer's (no comparison, CH-5), paid by the player's hand
    result = settled(
        ch(
            "3c 3d",
            "Ah Kh 9h 7c 5d",
            seat(1, "4s 2s", ante=1000),  # A K 9 7 5: worse than the dealer's pair
            seat(2, "2h 4h", ante=1000),  # flush 2:1
            seat(3, "Qs Qd", "fold", ante=1000),  # a fold still loses the Ante
        )
    )
    assert result["dealer"]["qualifies"] is False
    assert outcome(result, 1, "ante") == ("win", 1000, 2000, "CH-6")
    assert outcome(result, 1, "call") == ("push", 2000, 2000, "CH-5")
    assert outcome(result, 2, "ante") == ("win", 1000, 3000, "CH-6")
    assert outcome(result, 3, "ante") == ("lose", 1000, 0, "CH-5")


def test_dealer_wins_takes_both_a_tie_pushes_both():
    # board 9h 8c 7h 2c Kd; dealer Ac Ad (pair of aces) beats seat 1's pair of kings
    result = settled(ch("Ac Ad", "9h 8c 7h 2c Kd", seat(1, "Ks 3s", ante=1000)))
    assert outcome(result, 1, "ante") == ("lose", 1000, 0, "CH-5")
    assert outcome(result, 1, "call") == ("lose", 2000, 0, "CH-5")
    # board As Ks Qd Jd Tc: dealer and player both play the board's straight
    result = settled(ch("4h 4c", "As Ks Qd Jd Tc", seat(1, "2c 3c", ante=1000)))
    assert outcome(result, 1, "ante") == ("push", 1000, 1000, "CH-5")
    assert outcome(result, 1, "call") == ("push", 2000, 2000, "CH-5")


# --- CH-7 Bonus ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "flop", "paid"),
    [  # Bonus 500 on the first five cards (2 hole + 3 flop); turn Jd, river 4c
        ("As Ks", "Qs Js Ts", 500 + 50_000),  # royal 100:1
        ("Ts 7s", "9s 8s 6s", 500 + 25_000),  # straight flush 50:1
        ("9s 9d", "9h 9c 2d", 500 + 20_000),  # four of a kind 40:1
        ("9s 9d", "9h 8c 8d", 500 + 15_000),  # full house 30:1
        ("As 3s", "9s 8s 2s", 500 + 10_000),  # flush 20:1
        ("Ts 7s", "9h 8c 6d", 500 + 3500),  # straight 7:1
        ("9s 9d", "9h 8c 2d", 500 + 3500),  # three of a kind 7:1
        ("9s 8s", "9h 8c 2d", 500 + 3500),  # two pair 7:1
        ("As Ad", "9h 8c 2d", 500 + 3500),  # pair of aces 7:1
        ("Ks Kd", "9h 8c 2d", 0),  # pair of kings: loses
        ("As Kd", "9h 8c 2d", 0),  # ace high: loses
        ("As Kd", "9h 8c Jc", 0),  # the turn's Jd pairs nothing in the first five: loses
    ],
)
def test_bonus_pay_table_on_the_first_five_cards(hole, flop, paid):
    result = settled(ch("2h 3h", f"{flop} Jd 4c", seat(1, hole, ante=1000, bonus=500)))
    wager = seat_of(result, 1)["wagers"]["bonus"]
    assert (wager["paid"], wager["rule"]) == (paid, "CH-7")


def test_bonus_with_a_fold_loses_even_a_pair_of_aces():
    result = settled(ch("2h 3h", "9h 8c 2d Jd 4c", seat(1, "As Ad", "fold", ante=1000, bonus=500)))
    assert outcome(result, 1, "bonus") == ("lose", 500, 0, "CH-7")
    assert outcome(result, 1, "ante") == ("lose", 1000, 0, "CH-5")


def test_a_bonus_needs_an_ante_ch2():
    error = refused(ch("2h 3h", "9h 8c 2d Jd 4c", seat(1, "As Ad", bonus=500)))
    assert error["rule"] == "CH-2"


def test_over_the_maximum_ante_and_bonus_are_capped_call_is_2x_the_accepted_ante():
    # limits Ante 5..50, Bonus 1..10 (euros); seat puts down Ante 60 and Bonus 15
    # dealer 4c 4d qualifies; seat 1 As Ad + board 9h 8c 2d Jd Kc: pair of aces wins
    result = settled(
        ch(
            "4c 4d",
            "9h 8c 2d Jd Kc",
            seat(1, "As Ad", ante=6000, bonus=1500),
            limits={"ante": {"min": 500, "max": 5000}, "bonus": {"min": 100, "max": 1000}},
        )
    )
    ante, call, bonus = (seat_of(result, 1)["wagers"][n] for n in ("ante", "call", "bonus"))
    assert (ante["stake"], ante["paid"], ante["returned"]) == (5000, 10_000, 1000)
    assert (call["stake"], call["paid"]) == (10_000, 20_000)
    assert (bonus["stake"], bonus["paid"], bonus["returned"]) == (1000, 8000, 500)  # 7:1


# --- CH-8 Jumbo 7 (fixed lines) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "hole", "line", "paid"),
    [  # dealer 2c 2d; Jumbo 7 stake 100 (one unit); amounts per unit, stake never returned
        ("3h 4h 5h 6h Kc", "Ah 2h", "six-card-straight-flush", 500_000),  # A-6, ace low
        ("9h Th Jh Qh 3c", "Kh 8h", "six-card-straight-flush", 500_000),
        ("3h 4h 5h Kc Qd", "Ah 2h", "five-card-straight-flush", 25_000),  # the wheel suited
        ("Qs Js Ts 3c 4d", "As Ks", "five-card-straight-flush", 25_000),  # a royal counts here
        ("9h 9c 7h 3c Kd", "9s 9d", "four-of-a-kind", 5000),
        ("9h 9c 7h 3c Kd", "9s 7d", "full-house", 500),
        ("Qh Kh 3h 4h 9c", "Ah Jh", "flush", 400),  # J-Q-K-A + A-3-4: no wrap-around (POK-4)
        ("9h 8c 7h 3c Kd", "6s 5d", "straight", 200),
        ("9h 8c 7h 3c Kd", "Ks Kh", None, 0),  # three of a kind: nothing
    ],
)
def test_jumbo7_fixed_lines_only_the_best_line_pays(board, hole, line, paid):
    result = settled(ch("2c 2d", board, seat(1, hole, ante=1000, jumbo7=100)))
    wager = seat_of(result, 1)["wagers"]["jumbo7"]
    assert (wager["paid"], wager.get("line"), wager["rule"]) == (paid, line, "CH-8")


def test_jumbo7_is_paid_whatever_the_decision_and_per_unit_stake():
    # a folded seat with four nines and two units (200): 2 x 5,000 cents
    result = settled(ch("2c 2d", "9h 9c 7h 3c Kd", seat(1, "9s 9d", "fold", ante=1000, jumbo7=200)))
    assert outcome(result, 1, "jumbo7") == ("win", 200, 10_000, "CH-8")


@pytest.mark.parametrize(
    ("board", "hole"),
    [("3h 4h 5h 6h 7h", "Ah 2h"), ("8h 9h Th Jh Qh", "Kh Ah")],  # ace low, ace high
)
def test_a_seven_card_straight_flush_takes_the_jackpot(board, hole):
    pools = {"jumbo7": {"amount": 1_000_000, "seed": 100_000}}
    result = settled(ch("2c 2d", board, seat(1, hole, ante=1000, jumbo7=100), pools=pools))
    wager = seat_of(result, 1)["wagers"]["jumbo7"]
    assert (wager["paid"], wager["line"]) == (1_000_000, "seven-card-straight-flush")
    assert result["pools"]["jumbo7"]["after"] == 100_000  # reset to the seed (PRG-5)


# --- CH-9: the jackpot is shared by the round's bettors in proportion to stake ----------------


def test_jackpot_shared_by_every_jumbo7_bettor_of_the_round_table_scope():
    # board 3h 4h 5h 6h 7h: seat 1 Ah 2h and seat 2 8h 9h (3-9) hold seven-card
    # straight flushes; seats 3 and 4 play the board's 3-7 straight flush (five cards)
    # stakes 100 + 200 + 100 + 100 = 500; jackpot 1,000,001:
    #   seat 1: 1,000,001 x 100/500 = 200,000.2 -> 200,000
    #   seat 2: 1,000,001 x 200/500 = 400,000.4 -> 400,000 + the leftover cent = 400,001
    #   seats 3 and 4: 200,000.2 -> 200,000 each, on top of their own 250 (25,000) line
    result = settled(
        ch(
            "Kc Qd",
            "3h 4h 5h 6h 7h",
            seat(1, "Ah 2h", "fold", ante=1000, jumbo7=100),
            seat(2, "8h 9h", ante=1000, jumbo7=200),
            seat(3, "Kh Kd", None, jumbo7=100),
            seat(4, "2c 2d", None, jumbo7=100),
            pools={"jumbo7": {"amount": 1_000_001, "seed": 100_000}},
        )
    )
    assert outcome(result, 1, "jumbo7") == ("win", 100, 200_000, "CH-9")
    assert outcome(result, 2, "jumbo7") == ("win", 200, 400_001, "CH-9")
    for n in (3, 4):
        assert outcome(result, n, "jumbo7") == ("win", 100, 25_000, "CH-8")
        assert outcome(result, n, "jackpot-share") == ("win", 0, 200_000, "CH-9")
    assert result["pools"]["jumbo7"]["jackpot_paid"] == 1_000_001
    assert result["pools"]["jumbo7"]["after"] == 100_000


def test_the_hitting_seat_wins_its_share_even_when_it_rounds_to_0():
    # CH-9: a pool of 1 cent over stakes 100 (seat 1, the seven-card straight flush) and 200
    # (seat 2): exact shares 1/3 and 2/3 of a cent, floors 0 and 0, the leftover cent to the
    # largest fraction, seat 2's. Seat 1 hit the jackpot line and won its share, 0: "win"
    # with the line, never "lose" (it read "lose" with no line before)
    result = settled(
        ch(
            "Kc Qd",
            "3h 4h 5h 6h 7h",
            seat(1, "Ah 2h", ante=1000, jumbo7=100),
            seat(2, "Kh Kd", None, jumbo7=200),
            pools={"jumbo7": {"amount": 1}},
        )
    )
    assert outcome(result, 1, "jumbo7") == ("win", 100, 0, "CH-9")
    assert seat_of(result, 1)["wagers"]["jumbo7"]["line"] == "seven-card-straight-flush"
    assert outcome(result, 2, "jackpot-share") == ("win", 0, 1, "CH-9")
    assert result["pools"]["jumbo7"]["jackpot_seats"] == [1]


def test_a_jumbo7_pool_below_its_seed_is_refused_prg5():
    # a pool of 1.00 on a 1,000.00 seed: the jackpot paid 1.00 and the pool "grew" to its seed
    data = ch(
        "Kc Qd",
        "3h 4h 5h 6h 7h",
        seat(1, "Ah 2h", ante=1000, jumbo7=100),
        pools={"jumbo7": {"amount": 100, "seed": 100_000}},
    )
    error = refused(data)
    assert error["rule"] == "PRG-5"
    assert error["message"].startswith("pools.jumbo7.amount: 100 is below the seed 100000")


def _link_round() -> dict:
    # seat 1 Ah 2h: A-7 seven-card straight flush; seat 2 (200) plays the board's 3-7
    return ch(
        "Kc Qd",
        "3h 4h 5h 6h 7h",
        seat(1, "Ah 2h", ante=1000, jumbo7=100),
        seat(2, "Kh Kd", None, jumbo7=200),
        pools={
            "jumbo7": {
                "amount": 100_140,
                "seed": 100_000,
                "link": [
                    {"table": "T-BG-02", "round": "T-BG-02-000117", "stakes": {"1": 100, "3": 300}}
                ],
            }
        },
    )


def test_jackpot_shared_across_the_link_link_scope(tmp_path: Path):
    # share_scope "link": 100 + 200 here, 100 + 300 at T-BG-02 = 700; jackpot 100,140
    #   here seat 1: 100,140 x 100/700 = 14,305.71 -> 14,305 (+1: largest remainder, ties to
    #   this table first) = 14,306; seat 2: x 200/700 = 28,611.43 -> 28,611
    #   T-BG-02 seat 1: 14,305.71 -> 14,306 (the second leftover cent); seat 3: 42,917.14
    #   -> 42,917; 14,306 + 28,611 + 14,306 + 42,917 = 100,140
    link = profile_file(tmp_path, "ch-bg", progressive={"share_scope": "link"})
    result = settled(_link_round(), "--profile", link)
    assert outcome(result, 1, "jumbo7") == ("win", 100, 14_306, "CH-9")
    assert outcome(result, 2, "jumbo7") == ("win", 200, 25_000 * 2, "CH-8")  # 5-card SF x2
    assert outcome(result, 2, "jackpot-share") == ("win", 0, 28_611, "CH-9")
    pool = result["pools"]["jumbo7"]
    assert pool["link_shares"] == [
        {"table": "T-BG-02", "round": "T-BG-02-000117", "seat": 1, "share": 14_306},
        {"table": "T-BG-02", "round": "T-BG-02-000117", "seat": 3, "share": 42_917},
    ]
    assert pool["jackpot_paid"] == 100_140


def test_a_link_list_is_refused_when_the_profile_shares_by_table(tmp_path: Path):
    table = profile_file(tmp_path, "ch-bg", progressive={"share_scope": "table"})
    error = refused(_link_round(), "--profile", table)
    assert error["rule"] == "CH-9" and "shares no jackpot across the link" in error["message"]


def _link_entries(*entries: dict, round_id: str | None = None) -> dict:
    data = _link_round()
    data["pools"]["jumbo7"]["link"] = list(entries)
    if round_id is not None:
        data["round"] = round_id
    return data


ENTRY = {"table": "T-BG-02", "round": "T-BG-02-000117", "stakes": {"1": 100}}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        # the hitting round itself listed on the link: half the jackpot went to a phantom share
        (
            _link_entries(
                ENTRY,
                {"table": "T-BG-01", "round": "T-BG-01-000100", "stakes": {"1": 100}},
                round_id="T-BG-01-000100",
            ),
            "pools.jumbo7.link[1].round",
        ),
        (_link_entries({**ENTRY, "round": "R7"}, round_id="R7"), "pools.jumbo7.link[0].round"),
        # another round of this round's own table (the round ID names it): one round in play
        (
            _link_entries(
                {"table": "T-BG-01", "round": "T-BG-01-000099", "stakes": {"1": 100}},
                round_id="T-BG-01-000100",
            ),
            "pools.jumbo7.link[0].table",
        ),
        # a round ID naming another table than the entry's
        (
            _link_entries({**ENTRY, "round": "T-BG-03-000117"}),
            "pools.jumbo7.link[0].round",
        ),
        # one table, two rounds: a table has one round in play
        (
            _link_entries(ENTRY, {**ENTRY, "round": "T-BG-02-000118"}),
            "pools.jumbo7.link[1].table",
        ),
        # seats outside ch-bg's 1..7, or not written as a seat number
        (_link_entries({**ENTRY, "stakes": {"0": 100}}), "pools.jumbo7.link[0].stakes"),
        (_link_entries({**ENTRY, "stakes": {"99": 100}}), "pools.jumbo7.link[0].stakes"),
        (_link_entries({**ENTRY, "stakes": {"8": 100}}), "pools.jumbo7.link[0].stakes"),
        (_link_entries({**ENTRY, "stakes": {"1": 100, "01": 200}}), "pools.jumbo7.link[0].stakes"),
        (_link_entries({**ENTRY, "stakes": {"\u00b2": 100}}), "pools.jumbo7.link[0].stakes"),
        # stakes: positive whole minor units
        (_link_entries({**ENTRY, "stakes": {"1": 0}}), "pools.jumbo7.link[0].stakes.1"),
        (_link_entries({**ENTRY, "stakes": {"1": -100}}), "pools.jumbo7.link[0].stakes.1"),
        (_link_entries({**ENTRY, "stakes": {"1": 100.0}}), "pools.jumbo7.link[0].stakes.1"),
        (_link_entries({**ENTRY, "stakes": {"1": True}}), "pools.jumbo7.link[0].stakes.1"),
    ],
)
def test_a_link_entry_that_cannot_be_another_tables_round_in_play_is_refused(data, field):
    # CH-9: the link lists the *other* participating tables' rounds in play at the hit, one
    # per table, with seats of the profile they all play and positive stakes
    error = refused(data)
    assert error["rule"] == "CH-9"
    assert error["message"].startswith(f"{field}: "), error["message"]


def test_the_link_may_list_other_tables_beside_this_rounds_id():
    # this round T-BG-01-000100; T-BG-02 and T-BG-03 each had one round in play: 100,140 over
    # 100 + 200 here, 100 at T-BG-02 and 300 at T-BG-03 is the documented split, by table
    data = _link_entries(
        {"table": "T-BG-02", "round": "T-BG-02-000117", "stakes": {"1": 100}},
        {"table": "T-BG-03", "round": "T-BG-03-000040", "stakes": {"7": 300}},
        round_id="T-BG-01-000100",
    )
    result = settled(data)
    assert outcome(result, 1, "jumbo7") == ("win", 100, 14_306, "CH-9")
    assert outcome(result, 2, "jackpot-share") == ("win", 0, 28_611, "CH-9")
    assert [
        (s["table"], s["seat"], s["share"]) for s in result["pools"]["jumbo7"]["link_shares"]
    ] == [
        ("T-BG-02", 1, 14_306),
        ("T-BG-03", 7, 42_917),
    ]


@pytest.mark.parametrize(
    ("sections", "key", "rule"),
    [
        ({"progressive": {"envy_bonus": 10_000}}, "progressive.envy_bonus", "CH-9"),
        ({"progressive": {"share_scope": "casino"}}, "progressive.share_scope", "CH-9"),
        # award "winner" is refused by itself, or first through share_scope, which only
        # "share-round" has
        ({"progressive": {"award": "winner"}}, "progressive.award|progressive.share_scope", "CH-9"),
        (
            {"progressive.paytable": {"straight": {"fixed": 100}}},
            "progressive.paytable.straight",
            "CH-8",
        ),
        ({"paytables.ante": {"flush": "3:1"}}, "paytables.ante.flush", "CH-6"),
        ({"paytables.bonus": {"pair": "7:1"}}, "paytables.bonus.pair", "CH-7"),
        ({"rules": {"burns": 2}}, "rules.burns", "CH-3"),
        ({"progressive": {"linked": False}}, "progressive.linked", "PRG-6"),
        # CH-9 shares one jackpot by stake: several hits are never paid in seat order
        ({"progressive": {"multiple_hits": "seat-order"}}, "progressive.multiple_hits", "CH-9"),
    ],
)
def test_profile_keys_outside_the_rule_book_are_refused_naming_the_rule(
    tmp_path: Path, sections, key, rule
):
    bad = profile_file(tmp_path, "ch-bg", **sections)
    error = refused(ch("4c 4d", "9h 8c 7h 2c Kd", seat(1, "Ks 3s", ante=1000)), "--profile", bad)
    problems = {p["key"]: p["rule"] for p in error["problems"]}
    assert rule in {problems.get(k) for k in key.split("|")}, error["problems"]
