"""The Greek Ultimate Progressive against RULES.md (PRG-1..5) and seed 000: round files through
``croupier settle --json`` where one deck can deal the case, the award engine where it cannot
(two pool winners in one round need two hole-card royals, i.e. six community cards of two suits).
Amounts in cents, worked out by hand; uth-gr: fixed stake 100, envy bonus 10,000 (EUR 100)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from rules_settle_support import outcome, profile_file, refused, seat_of, settled

from controller.engine.paytable import Odds, PoolPercent
from controller.engine.pools.awards import resolve_awards

POOL = {"progressive": {"amount": 1_234_567, "seed": 500_000}}


def seat(n: int, cards: str, decision: object = "4x", **stakes: int) -> dict:
    entry: dict = {"seat": n, "cards": cards.split(), "stakes": stakes}
    if decision is not None:
        entry["decision"] = decision
    return entry


def main_stakes(progressive: int | None = 100) -> dict[str, int]:
    stakes = {"ante": 1000, "blind": 1000}
    if progressive:
        stakes["progressive"] = progressive
    return stakes


def round_file(board: str, *seats: dict, pools: dict | None = None, profile: str = "uth-gr"):
    return {
        "profile": profile,
        "dealer": ["2d", "3d"],
        "community": board.split(),
        "seats": list(seats),
        "pools": POOL if pools is None else pools,
    }


def test_a_hole_card_royal_wins_the_pool_and_every_other_progressive_seat_gets_envy():
    # board As Ks Qs Js 4c: seat 1 holds Ts (royal with one hole card, PRG-3)
    # seat 2 plays and loses, seat 3 folded, seat 4 only sensed (no decision), seat 5 has no
    # progressive stake: envy to 2, 3 and 4 (PRG-4, folded seats included), none to 1 or 5
    result = settled(
        round_file(
            "As Ks Qs Js 4c",
            seat(1, "Ts 5h", **main_stakes()),
            seat(2, "9c 9d", **main_stakes()),
            seat(3, "8c 7h", "fold", **main_stakes()),
            seat(4, "6c 6h", None, progressive=100),
            seat(5, "5c 5d", **main_stakes(None)),
        )
    )
    # PRG-3 100% of the pool; PRG-2: the stake is not returned on top
    assert outcome(result, 1, "progressive") == ("win", 100, 1_234_567, "PRG-3")
    assert "envy" not in seat_of(result, 1)["wagers"]  # the winner gets no envy on top
    for other in (2, 3, 4):
        assert outcome(result, other, "progressive") == ("lose", 100, 0, "PRG-3")  # kept
        assert outcome(result, other, "envy") == ("win", 0, 10_000, "PRG-4")
    assert "envy" not in seat_of(result, 5)["wagers"]
    # PRG-5: 100% paid, the pool resets to its seed
    assert result["pools"]["progressive"] == {
        "before": 1_234_567,
        "jackpot_paid": 1_234_567,
        "after": 500_000,
        "jackpot_seats": [1],
    }


def test_a_community_royal_pays_1000_to_1_to_every_bettor_no_pool_no_envy():
    # board Ah Kh Qh Jh Th: every seat's best hand is the board's royal, no hole card used
    result = settled(
        round_file(
            "Ah Kh Qh Jh Th",
            seat(1, "2c 3c", **main_stakes()),
            seat(2, "4c 5c", "fold", **main_stakes()),
        )
    )
    for n in (1, 2):
        assert outcome(result, n, "progressive") == ("win", 100, 100 * 1000, "PRG-3")
        assert seat_of(result, n)["wagers"]["progressive"]["line"] == "community-royal"
        assert "envy" not in seat_of(result, n)["wagers"]
    assert result["pools"]["progressive"]["jackpot_paid"] == 0
    assert result["pools"]["progressive"]["after"] == 1_234_567  # the pool is untouched


def test_a_royal_on_four_board_cards_and_one_hole_card_is_not_a_community_royal():
    # board Kh Qh Jh Th 9h is a king-high straight flush; seat 1's Ah makes the royal
    # with a hole card (the pool), seat 2 plays the board's straight flush (300:1)
    result = settled(
        round_file(
            "Kh Qh Jh Th 9h",
            seat(1, "Ah 2c", **main_stakes()),
            seat(2, "3c 4c", **main_stakes()),
        )
    )
    assert seat_of(result, 1)["wagers"]["progressive"]["line"] == "royal-flush"
    assert outcome(result, 1, "progressive") == ("win", 100, 1_234_567, "PRG-3")
    assert outcome(result, 2, "progressive") == ("win", 100, 100 * 300, "PRG-3")
    assert outcome(result, 2, "envy") == ("win", 0, 10_000, "PRG-4")  # on top of its line


@pytest.mark.parametrize(
    ("board", "hole", "line", "paid"),
    [
        ("9h 8h 7h 2c Kd", "6h 5h", "straight-flush", 100 * 300),
        ("9h 9c 7h 2c Kd", "9s 9d", "four-of-a-kind", 100 * 100),
        ("9h 9c 7h 2c Kd", "9s 7d", "full-house", 100 * 10),
        ("9h 8h 7h 2c Kd", "Ah 5h", None, 0),  # a flush pays nothing: the stake is lost
        ("9h 8c 7h 2c Kd", "6s 5d", None, 0),
    ],
)
def test_each_line_pays_once_the_stake_never_returned(board, hole, line, paid):
    result = settled(round_file(board, seat(1, hole, **main_stakes())))
    wager = seat_of(result, 1)["wagers"]["progressive"]
    assert (wager["paid"], wager.get("line"), wager["rule"]) == (paid, line, "PRG-3")
    assert wager["result"] == ("win" if paid else "lose")


def test_the_pool_amount_is_needed_only_when_the_pool_is_won():
    assert settled(round_file("9h 9c 7h 2c Kd", seat(1, "9s 9d", **main_stakes()), pools={}))
    error = refused(round_file("As Ks Qs Js 4c", seat(1, "Ts 5h", **main_stakes()), pools={}))
    assert error["rule"] == "PRG-3" and "pool amount" in error["message"]


def test_a_hole_card_royal_wins_the_pool_even_a_pool_that_holds_0():
    # PRG-3: the royal with a hole card wins the pool, whatever it holds; a pool of 0 (given
    # without a seed) pays 0, but the seat won it: its progressive reads "win" with the line,
    # and the others get their envy (PRG-4) as for any pool win. It read "lose" before.
    result = settled(
        round_file(
            "As Ks Qs Js 4c",
            seat(1, "Ts 5h", **main_stakes()),
            seat(2, "9c 9d", **main_stakes()),
            pools={"progressive": 0},
        )
    )
    wager = seat_of(result, 1)["wagers"]["progressive"]
    assert outcome(result, 1, "progressive") == ("win", 100, 0, "PRG-3")
    assert wager["line"] == "royal-flush"
    assert outcome(result, 2, "progressive") == ("lose", 100, 0, "PRG-3")
    assert outcome(result, 2, "envy") == ("win", 0, 10_000, "PRG-4")
    assert result["pools"]["progressive"]["jackpot_seats"] == [1]


HOLE_ROYAL = ("As Ks Qs Js 4c", "Ts 5h")  # seat 1's hole-card royal (PRG-3)


def test_a_pool_below_its_seed_is_refused_prg5():
    # PRG-5: after a 100% award the pool resets to its seed, so a pool never stands below it;
    # a file with 1,000 on a 500,000 seed paid 1,000 and then showed "after 500,000": the pool
    # grew after a 100% award
    board, hole = HOLE_ROYAL
    pools = {"progressive": {"amount": 1_000, "seed": 500_000}}
    error = refused(round_file(board, seat(1, hole, **main_stakes()), pools=pools))
    assert error["rule"] == "PRG-5"
    assert error["message"].startswith("pools.progressive.amount: 1000 is below the seed 500000")


def test_a_pool_at_its_seed_pays_the_seed_and_a_pool_without_a_seed_still_settles():
    board, hole = HOLE_ROYAL
    pools = {"progressive": {"amount": 500_000, "seed": 500_000}}
    result = settled(round_file(board, seat(1, hole, **main_stakes()), pools=pools))
    assert outcome(result, 1, "progressive") == ("win", 100, 500_000, "PRG-3")
    assert result["pools"]["progressive"]["after"] == 500_000
    # without a seed nothing is compared; the reset amount is unknown, so no "after"
    result = settled(
        round_file(board, seat(1, hole, **main_stakes()), pools={"progressive": 1_000})
    )
    assert outcome(result, 1, "progressive") == ("win", 100, 1_000, "PRG-3")
    assert "after" not in result["pools"]["progressive"]


def test_the_tables_own_record_in_an_evidence_bundle_settles_its_pool_as_it_stood(tmp_path):
    # the live pool may stand below its seed (a technician's correction, a raised seed, a void
    # after a reset of a linked pool): the table settled it as it stood, pays the pool and
    # resets it to the seed (PRG-5), and so does `croupier settle BUNDLE` for a bundle the
    # table's key verifies; an unsigned one is a round file, refused
    from controller.books.reports.signing import create_key, load_private, sign_json

    board, hole = HOLE_ROYAL
    record = round_file(board, seat(1, hole, **main_stakes()))
    record["pools"] = {"progressive": {"amount": 1_000, "seed": 500_000}}
    del record["profile"]
    document = {"document": "jackpot-evidence", "profile": "uth-gr", "round_record": record}
    key = tmp_path / "report-key.pem"
    public = create_key(key)
    assert public is not None
    signed = sign_json(document, load_private(key))
    result = settled(signed, "--public-key", str(tmp_path / "report-key.pub.pem"))
    assert outcome(result, 1, "progressive") == ("win", 100, 1_000, "PRG-3")
    assert result["pools"]["progressive"]["after"] == 500_000
    assert refused({"report": document})["rule"] == "PRG-5"


def test_a_linked_uth_pool_still_pays_envy_only_at_this_table(tmp_path: Path):
    # PRG-4 "at the same table": a uth-gr profile whose pool is linked (PRG-6 style) pays the
    # same envy to this round's seats; the link's tables are not seats of this round, and a
    # round file cannot list them for a pool won by one winner (that is CH-9's share)
    linked = profile_file(tmp_path, "uth-gr", progressive={"linked": True})
    data = round_file(
        "As Ks Qs Js 4c",
        seat(1, "Ts 5h", **main_stakes()),
        seat(2, "9c 9d", **main_stakes()),
    )
    result = settled(data, "--profile", linked)
    assert outcome(result, 2, "envy") == ("win", 0, 10_000, "PRG-4")
    assert "envy" not in seat_of(result, 1)["wagers"]
    data["pools"] = {
        "progressive": {
            **POOL["progressive"],
            "link": [{"table": "T2", "round": "T2-000001", "stakes": {"1": 100}}],
        }
    }
    error = refused(data, "--profile", linked)
    assert error["rule"] == "CH-9"


# --- several pool winners in one round (the award engine; one deck cannot deal it) ---------

ROYAL = ("royal-flush", PoolPercent(Fraction(100)))
FULL_HOUSE = ("full-house", Odds(10, 1))


def test_two_pool_winners_split_the_pool_and_get_no_envy_the_others_one_per_win():
    out = resolve_awards(
        hits={1: ROYAL, 3: ROYAL, 4: FULL_HOUSE, 6: None},
        stakes={1: 100, 3: 100, 4: 100, 6: 100},
        pool=1_000_001,
        seed=500_000,
        unit_stake=100,
        envy_bonus=10_000,
    )
    # split-equally: 1,000,001 / 2 = 500,000.5 each; the odd cent to the lower seat (tie)
    assert (out.awards[1].amount, out.awards[3].amount) == (500_001, 500_000)
    # PRG-4: winners get no envy; seats 4 and 6 get 10,000 for each of the two wins
    assert [out.awards[s].envy for s in (1, 3, 4, 6)] == [0, 0, 20_000, 20_000]
    assert out.awards[4].amount == 1000  # 10:1 on 100, paid by the house
    # house: 1,000 (full house) + 2 x 20,000 (envy); the pool pays 1,000,001 and resets
    assert (out.house_paid, out.jackpot_paid, out.pool_after) == (41_000, 1_000_001, 500_000)


def test_two_pool_winners_in_seat_order_each_from_the_pool_as_it_stands():
    out = resolve_awards(
        hits={3: ROYAL, 1: ROYAL, 2: None},
        stakes={1: 100, 2: 100, 3: 100},
        pool=1_000_000,
        seed=500_000,
        unit_stake=100,
        multiple_hits="seat-order",
        envy_bonus=10_000,
    )
    # seat 1 takes 1,000,000, the pool resets to 500,000 (PRG-5), seat 3 takes that
    assert (out.awards[1].amount, out.awards[3].amount) == (1_000_000, 500_000)
    assert [out.awards[s].envy for s in (1, 2, 3)] == [0, 20_000, 0]
    assert out.pool_after == 500_000 and out.resets == 2


# --- the profile: PRG-1 band, PRG-4 amount, PRG-3 award -----------------------------------


@pytest.mark.parametrize(
    ("progressive", "key", "rule"),
    [
        ({"contribution_rate": "25%"}, "progressive.contribution_rate", "PRG-1"),
        ({"contribution_band": ["10%", "20%"]}, "progressive.contribution_band", "PRG-1"),
        ({"envy_bonus": 5000}, "progressive.envy_bonus", "PRG-4"),
        ({"award": "share-round"}, "progressive.award", "PRG-3"),
    ],
)
def test_progressive_profile_keys_outside_the_rule_book_are_refused(
    tmp_path: Path, progressive, key, rule
):
    bad = profile_file(tmp_path, "uth-gr", progressive=progressive)
    error = refused(
        round_file("9h 9c 7h 2c Kd", seat(1, "9s 9d", **main_stakes())), "--profile", bad
    )
    assert {p["key"]: p["rule"] for p in error["problems"]}.get(key) == rule, error


def test_the_progressive_pay_table_must_pay_what_prg3_pays(tmp_path: Path):
    bad = profile_file(tmp_path, "uth-gr", **{"progressive.paytable": {"community-royal": "500:1"}})
    error = refused(
        round_file("9h 9c 7h 2c Kd", seat(1, "9s 9d", **main_stakes())), "--profile", bad
    )
    problems = {p["key"]: p["rule"] for p in error["problems"]}
    assert problems == {"progressive.paytable.community-royal": "PRG-3"}


def test_a_community_royal_beside_a_hole_card_royal_is_paid_its_line_and_envy():
    # one deck cannot deal both in one UTH round; the award engine still pays each by its
    # own line: seat 2's community royal 1000:1 on 100 = 100,000 plus the envy for seat 1's
    # pool win (it did not win the pool itself); seat 1 the pool and no envy
    community = ("community-royal", Odds(1000, 1))
    out = resolve_awards(
        hits={1: ROYAL, 2: community},
        stakes={1: 100, 2: 100},
        pool=1_000_000,
        seed=500_000,
        unit_stake=100,
        envy_bonus=10_000,
    )
    assert (out.awards[1].amount, out.awards[1].envy) == (1_000_000, 0)
    assert (out.awards[2].amount, out.awards[2].envy) == (100_000, 10_000)
    assert out.jackpot_paid == 1_000_000  # the community royal is paid by the house


# --- PRG-4 [interpretation]: the profile key envy_to_winner -----------------------------------


def test_envy_to_winner_is_the_named_profile_key_of_prg4_defaulting_to_false(tmp_path: Path):
    # RULES.md: every [interpretation] is a profile key with its default. PRG-4's ("the winner
    # is not paid envy on top of the pool") was a hidden constant; uth-gr states it now
    shipped = Path(__file__).resolve().parents[3] / "config" / "profiles" / "uth-gr.toml"
    assert "envy_to_winner = false" in shipped.read_text()
    board = "As Ks Qs Js 4c"
    seats = (
        seat(1, "Ts 5h", **main_stakes()),
        seat(2, "9c 9d", **main_stakes()),
        seat(3, "8c 7h", "fold", **main_stakes()),
    )
    default = settled(round_file(board, *seats))
    assert "envy" not in seat_of(default, 1)["wagers"]
    # the alternative, the seed's literal "to the players taking part at the same table":
    # every progressive seat of the table, the winner too, gets EUR 100 once per pool win;
    # the pool is paid as before (1,234,567 to seat 1) and resets to its seed
    literal = profile_file(tmp_path, "uth-gr", progressive={"envy_to_winner": True})
    result = settled(round_file(board, *seats), "--profile", literal)
    assert outcome(result, 1, "progressive") == ("win", 100, 1_234_567, "PRG-3")
    for n in (1, 2, 3):
        assert outcome(result, n, "envy") == ("win", 0, 10_000, "PRG-4")
    assert result["pools"]["progressive"]["after"] == 500_000


def test_envy_to_winner_in_the_award_engine_two_winners_each_paid_per_win():
    # two pool wins (a linked pool's tables, or the engine): with envy_to_winner each of the
    # four progressive seats is paid 2 x 10,000, the winners included; without, only 4 and 6
    hits = {
        1: ("royal-flush", PoolPercent(Fraction(100))),
        3: ("royal-flush", PoolPercent(Fraction(100))),
        4: None,
        6: None,
    }
    for to_winner, envies in ((False, [0, 0, 20_000, 20_000]), (True, [20_000] * 4)):
        out = resolve_awards(
            hits=hits,
            stakes=dict.fromkeys(hits, 100),
            pool=1_000_000,
            seed=500_000,
            unit_stake=100,
            envy_bonus=10_000,
            envy_to_winner=to_winner,
        )
        assert [out.awards[s].envy for s in (1, 3, 4, 6)] == envies
        assert [out.awards[s].amount for s in (1, 3)] == [500_000, 500_000]


def test_envy_to_winner_needs_an_envy_bonus(tmp_path: Path):
    bad = profile_file(tmp_path, "uth-gr", progressive={"envy_bonus": 0, "envy_to_winner": True})
    error = refused(
        round_file("9h 9c 7h 2c Kd", seat(1, "9s 9d", **main_stakes())), "--profile", bad
    )
    assert {p["key"]: p["rule"] for p in error["problems"]}.get(
        "progressive.envy_to_winner"
    ) == "PRG-4", error
