"""Casino Hold'em settlement, one hand-worked round per rule (CH-2..9). Amounts in cents."""

import pytest

from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.errors import RoundError

BG = load_profile("ch-bg")


def seat(n, cards, decision="play", ante=1000, **extra):
    stakes = {"ante": ante} if ante else {}
    stakes.update(extra)
    s = {"seat": n, "cards": cards.split(), "stakes": stakes}
    if decision is not None:
        s["decision"] = decision
    return s


def play(dealer, community, *seats, pools=None):
    data = {
        "dealer": dealer.split(),
        "community": community.split(),
        "seats": list(seats),
        "pools": pools if pools is not None else {"jumbo7": 2_000_000},
    }
    result = settle(BG, data)
    return result, {s.seat: s for s in result.seats}


def w(seat_result, name):
    x = seat_result.wagers[name]
    return (x.result, x.paid, x.rule)


def test_dealer_qualification_pair_of_fours():
    # CH-4: 4s qualify, 3s do not
    r, _ = play("4c 4d", "Ah Kd 9s 7c 2h", seat(1, "Qc Jc"))
    assert r.dealer["qualifies"] is True
    r, _ = play("3c 3d", "Ah Kd 9s 7c 2h", seat(1, "Qc Jc"))
    assert r.dealer["qualifies"] is False


def test_dealer_not_qualified_ante_pays_by_table_call_pushes():
    # dealer 3c 3d: pair of 3s. player 8h 6h with board Ah 9h 2h = flush -> Ante 2:1 (CH-6)
    r, s = play("3c 3d", "Ah 9h 2h Kd 7c", seat(1, "8h 6h"))
    assert w(s[1], "call") == ("push", 2000, "CH-5")
    assert w(s[1], "ante") == ("win", 3000, "CH-6")


def test_dealer_not_qualified_pays_ante_even_if_dealer_hand_is_better():
    # no comparison of hands (CH-5): dealer pair of 3s "beats" player's queen high
    r, s = play("3c 3d", "Ah 9h 2s Kd 7c", seat(1, "Qc Jc"))
    assert w(s[1], "ante") == ("win", 2000, "CH-6")  # high card: 1:1
    assert w(s[1], "call") == ("push", 2000, "CH-5")


def test_dealer_qualifies_player_wins_ante_by_table_call_even_money():
    # dealer pair of 5s; player Kh Ks + board Kd = three kings -> Ante 1:1 (straight or lower)
    r, s = play("5c 5d", "Kd 9h 2s 7c 3h", seat(1, "Kh Ks"))
    assert w(s[1], "call") == ("win", 4000, "CH-5")
    assert w(s[1], "ante") == ("win", 2000, "CH-6")


def test_full_house_ante_pays_3_to_1():
    r, s = play("5c 5d", "Kd 9h 9s 7c 3h", seat(1, "Kh Ks"))
    assert s[1].hand == "full-house"
    assert w(s[1], "ante") == ("win", 4000, "CH-6")


def test_dealer_wins_and_tie():
    r, s = play("Ac Ad", "Kd 9h 2s 7c 3h", seat(1, "Kh 4s"), seat(2, "Ah Qs"))
    assert w(s[1], "ante") == ("lose", 0, "CH-5") and w(s[1], "call") == ("lose", 0, "CH-5")
    # seat 2: one ace against the dealer's two
    assert w(s[2], "ante") == ("lose", 0, "CH-5")
    r, s = play("4c 5d", "As Ks Qd Jd Tc", seat(1, "2c 3c"))  # both play the board straight
    assert w(s[1], "ante") == ("push", 1000, "CH-5")
    assert w(s[1], "call") == ("push", 2000, "CH-5")


def test_fold_loses_ante_and_bonus():
    r, s = play("5c 5d", "Ah 9h 2s 7c 3h", seat(1, "As Ad", "fold", bonus=500))
    assert w(s[1], "ante") == ("lose", 0, "CH-5")
    assert w(s[1], "bonus") == ("lose", 0, "CH-7")  # a folded hand's Bonus loses
    assert "call" not in s[1].wagers


def test_bonus_on_first_five_cards_pair_of_aces():
    # As Ad + flop 9h 2s 7c = pair of aces on five cards -> 7:1 (CH-7)
    r, s = play("5c 5d", "9h 2s 7c Kh Kd", seat(1, "As Ad", bonus=500))
    assert w(s[1], "bonus") == ("win", 4000, "CH-7")
    assert s[1].wagers["bonus"].line == "pair-of-aces"


def test_bonus_ignores_the_turn_and_river():
    # pair of kings on the first five; the turn makes trips, which does not count (CH-7)
    r, s = play("5c 5d", "Kh 2s 7c Kd 3h", seat(1, "Ks 9d", bonus=500))
    assert s[1].hand == "three-of-a-kind"
    assert w(s[1], "bonus") == ("lose", 0, "CH-7")


def test_bonus_flush_20_to_1():
    r, s = play("5c 5d", "9h 2h 7h Kd 3c", seat(1, "Ah Th", bonus=100))
    assert w(s[1], "bonus") == ("win", 2100, "CH-7")


def test_jumbo7_fixed_lines_per_unit_stake_whatever_the_decision():
    # 6-card straight flush 9-A hearts: 5000 per unit stake (CH-8), folded or not
    r, s = play("2c 2d", "Th Jh Qh Kh 3s", seat(1, "Ah 9h", "fold", jumbo7=100))
    assert w(s[1], "jumbo7") == ("win", 500_000, "CH-8")
    assert s[1].wagers["jumbo7"].line == "six-card-straight-flush"


def test_jumbo7_royal_counts_as_five_card_straight_flush():
    r, s = play("2c 2d", "Th Jh Qh Kh 3s", seat(1, "Ah 3d", jumbo7=100))
    assert s[1].wagers["jumbo7"].line == "five-card-straight-flush"
    assert s[1].wagers["jumbo7"].paid == 25_000


def test_jumbo7_seven_card_straight_flush_shared_by_the_round_bettors():
    # seat 1: Ac 2c + 3c 4c 5c 6c 7c = A-7 clubs, 7-card straight flush (CH-8)
    r, s = play(
        "Kd Kh",
        "3c 4c 5c 6c 7c",
        seat(1, "Ac 2c", jumbo7=100),
        seat(2, "9d 9s", jumbo7=100),
        seat(3, "Td Ts"),
        pools={"jumbo7": 1_000_001},
    )
    assert w(s[1], "jumbo7") == ("win", 500_001, "CH-9")  # odd cent to the lower seat
    assert w(s[2], "jackpot-share") == ("win", 500_000, "CH-9")
    # seat 2's own hand is the board's 3-7 straight flush: 250 per unit stake (CH-8)
    assert w(s[2], "jumbo7") == ("win", 25_000, "CH-8")
    assert "jackpot-share" not in s[3].wagers and "jumbo7" not in s[3].wagers
    assert r.pools["jumbo7"]["jackpot_paid"] == 1_000_001


def test_bonus_without_ante_is_ch2():
    with pytest.raises(RoundError, match="Bonus bet needs an Ante") as info:
        play("2c 2d", "Th Jh Qh Kh 3s", seat(1, "Ah 9h", ante=0, bonus=100))
    assert info.value.rule == "CH-2"


def test_ch_decisions_and_call_stake():
    with pytest.raises(RoundError, match="not 'play' or 'fold'"):
        play("2c 2d", "Th Jh Qh Kh 3s", seat(1, "Ah 9h", "4x"))
    with pytest.raises(RoundError, match="must be 2x Ante"):
        play("2c 2d", "Th Jh Qh Kh 3s", seat(1, "Ah 9h", call=1000))


def test_jumbo7_stake_must_be_a_multiple_of_the_fixed_stake():
    with pytest.raises(RoundError, match="fixed stake 100") as info:
        play("2c 2d", "Th Jh Qh Kh 3s", seat(1, "Ah 9h", jumbo7=150))
    assert info.value.rule == "CH-2"
