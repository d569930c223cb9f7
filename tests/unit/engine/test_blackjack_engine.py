"""The blackjack engine as the daemon drives it: what it waits for at every point, and what
it refuses (BJ-1..9, TRX-1, MD-S1)."""

import pytest
from blackjack_support import trilux_profile

from controller.engine.cards import Card, parse_cards
from controller.engine.games.blackjack import (
    BlackjackRound,
    BlackjackRules,
    Hand,
    Phase,
    SeatBet,
    Spot,
    Turn,
    round_result,
    trilux_wagers,
)
from controller.engine.games.blackjack.strategy import choose, wish
from controller.errors import CardError, RoundError

RULES = BlackjackRules.from_profile(trilux_profile())


def new_round(*seats, rules=RULES, trilux=0):
    return BlackjackRound(rules, [SeatBet(s, 1000, trilux) for s in seats])


def deal(game, cards):
    for card in parse_cards(cards, unique=False):
        game.deal(card)


def test_initial_deal_plan_and_counts():
    game = new_round(2, 5, trilux=100)
    order = []
    while game.phase is Phase.DEAL:
        assert game.turn() is None and game.legal_actions() == ()
        order.append((str(game.next_card_for()), game.expected_cards()))
        game.deal(Card.parse("2c"))
    assert order == [
        ("seat 2 main", 5),
        ("seat 5 main", 4),
        ("dealer", 3),
        ("seat 2 main", 2),
        ("seat 5 main", 1),
    ]
    assert game.turn() == Turn(Phase.PLAY, 2, "main")
    assert game.expected_cards() == 0 and game.next_card_for() is None


def test_trilux_is_settled_right_after_the_second_cards():
    game = new_round(1, 2, trilux=100)
    deal(game, "7h Qc 8h")
    with pytest.raises(RoundError) as info:
        trilux_wagers(game)
    assert info.value.rule == "TRX-1"
    deal(game, "9h Kc")  # seat 1 7h 9h + 8h: straight flush; seat 2 Qc Kc + 8h: nothing
    wagers = trilux_wagers(game)
    assert (wagers[1].line, wagers[1].paid) == ("straight-flush", 100 + 3500)
    assert (wagers[2].result, wagers[2].paid) == ("lose", 0)
    assert game.phase is Phase.PLAY  # the bets are known before any seat acts


def test_insurance_is_asked_seat_by_seat_before_play():
    game = new_round(1, 3)
    deal(game, "Th Kh Ac 7d 9d")
    assert game.turn() == Turn(Phase.INSURANCE, 1)
    assert game.insurance_limits() == (500, 500)
    assert "seat 1 to insure or decline (BJ-8)" in game.waiting_for()
    with pytest.raises(RoundError) as info:
        game.act("stand")
    assert info.value.rule == "BJ-8"
    game.insure(500)
    assert game.turn() == Turn(Phase.INSURANCE, 3)
    game.insure(0)
    assert game.turn() == Turn(Phase.PLAY, 1, "main")
    with pytest.raises(RoundError) as info:
        game.insure(500)
    assert info.value.rule == "BJ-8"


def test_a_card_while_a_decision_is_awaited_is_refused_and_changes_nothing():
    game = new_round(1)
    deal(game, "Th 6c 5d")
    with pytest.raises(
        RoundError, match=r"unexpected card 9s: waiting for seat 1 main to act"
    ) as e:
        game.deal(Card.parse("9s"))
    assert e.value.rule == "MD-S1"
    assert len(game.cards) == 3 and game.legal_actions() == ("hit", "stand")


def test_an_illegal_action_is_refused_and_changes_nothing():
    game = new_round(1)
    deal(game, "Th 6c 5d")
    with pytest.raises(RoundError, match="counts 15") as info:
        game.act("double")
    assert info.value.rule == "BJ-6"
    with pytest.raises(RoundError) as info:
        game.act("split")
    assert info.value.rule == "BJ-7"
    assert game.current_hand().actions == [] and game.turn() == Turn(Phase.PLAY, 1, "main")


def test_split_aces_owe_two_cards_in_a_row():
    game = new_round(1)
    deal(game, "Ah 9c Ad")
    assert game.legal_actions() == ("hit", "stand", "double", "split")  # A-A counts 2
    game.act("split")
    assert game.expected_cards() == 2
    assert game.next_card_for() == Spot(1, 0)
    deal(game, "Ks")
    assert game.expected_cards() == 1 and game.next_card_for() == Spot(1, 1)
    deal(game, "5d")
    assert game.phase is Phase.DEALER and str(game.next_card_for()) == "dealer"


def test_a_double_on_a_split_hand_owes_the_next_hand_its_card_too():
    game = new_round(1, 2)
    deal(game, "8h 9s 6c 8d 9d")
    game.act("split")
    assert game.expected_cards() == 1  # main's second card, then a decision
    deal(game, "3c")
    assert game.legal_actions() == ("hit", "stand", "double")  # 8-3: no third card yet
    game.act("double")
    assert game.expected_cards() == 2  # the double's card and main.2's second card
    deal(game, "Kd 2s")
    assert game.turn() == Turn(Phase.PLAY, 1, "main.2")
    game.act("stand")
    assert game.turn() == Turn(Phase.PLAY, 2, "main")


def test_dealer_draws_one_card_at_a_time_then_the_round_is_settled():
    game = new_round(1)
    deal(game, "Th 6c 7d")
    game.act("stand")
    assert game.phase is Phase.DEALER and game.expected_cards() == 1
    with pytest.raises(RoundError):
        round_result(game, "trilux-gr")
    deal(game, "Tc")
    assert game.expected_cards() == 1  # 16 draws (BJ-4)
    deal(game, "Ac")
    assert game.phase is Phase.SETTLED and game.expected_cards() == 0 and game.turn() is None
    assert game.waiting_for() == "nothing: the round is over"
    with pytest.raises(RoundError, match=r"dealer stands on 17 \(BJ-4\)"):
        game.deal(Card.parse("2c"))
    assert round_result(game, "trilux-gr").seats[0].wagers["main"].result == "push"


def test_only_blackjacks_left_the_dealer_draws_only_when_his_up_card_can_make_one():
    # BJ-4/BJ-5: against a 6 no dealer card changes the blackjack's 3:2: no card is due
    game = new_round(1)
    deal(game, "As 6c Kd")
    assert game.phase is Phase.SETTLED and game.expected_cards() == 0
    # against a ten-value up card the second card decides 3:2 or a stand-off
    game = new_round(1)
    deal(game, "As Tc Kd")
    assert game.phase is Phase.DEALER and game.expected_cards() == 1
    deal(game, "6c")
    assert game.phase is Phase.SETTLED  # 16, but the blackjack is already decided


def test_bad_card_codes():
    game = new_round(1)
    for bad in (52, -1, True, "As"):
        with pytest.raises(CardError):
            game.deal(bad)


def test_the_same_card_beyond_the_deck_count():
    rules = BlackjackRules.from_profile(trilux_profile(), decks=4)
    game = BlackjackRound(rules, [SeatBet(s, 1000) for s in (1, 2, 3, 4, 5)])
    deal(game, "Qs Qs Qs Qs")
    with pytest.raises(RoundError, match="Qs dealt 5 times") as info:
        game.deal(Card.parse("Qs"))
    assert info.value.rule == "BJ-1"


@pytest.mark.parametrize("decks", [3, 7])
def test_deck_override_is_checked(decks):
    with pytest.raises(ValueError, match="BJ-1"):
        BlackjackRules.from_profile(trilux_profile(), decks=decks)


def test_no_bets_no_round():
    with pytest.raises(RoundError) as info:
        BlackjackRound(RULES, [])
    assert info.value.rule == "BJ-1"


# --- hands (BJ-3, BJ-5) ---------------------------------------------------------------------


def hand_of(cards, **kw):
    hand = Hand(1000, **kw)
    for card in parse_cards(cards, unique=False):
        hand.add(card)
    return hand


@pytest.mark.parametrize(
    ("cards", "total", "soft", "text"),
    [
        ("As Kd", 21, True, "blackjack"),
        ("Ah 6c", 17, True, "soft 17"),
        ("Ah 6c 9d", 16, False, "16"),
        ("Ah Ad", 12, True, "soft 12"),
        ("Ah Ad 9c", 21, True, "soft 21"),
        ("Kh Qd 2c", 22, False, "bust 22"),
        ("Jh Qd", 20, False, "20"),
    ],
)
def test_hand_totals(cards, total, soft, text):
    hand = hand_of(cards)
    assert (hand.total, hand.is_soft, hand.describe()) == (total, soft, text)


def test_split_21_is_not_a_blackjack():
    assert not hand_of("As Kd", from_split=True).is_blackjack


# --- basic strategy -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "up", "letter"),
    [
        ("8h 8d", "6c", "P"),
        ("8h 8d", "Tc", "H"),  # no hole card: do not split 8s against a ten
        ("5h 6d", "9c", "D"),
        ("5h 6d", "Tc", "H"),
        ("Ah 7d", "4c", "d"),
        ("Ah 7d", "9c", "H"),
        ("Th 2d", "4c", "S"),
        ("Th 6d", "7c", "H"),
        ("Th 9d", "Ac", "S"),
    ],
)
def test_chart(cards, up, letter):
    assert wish(hand_of(cards), Card.parse(up)) == letter


def test_strategy_falls_back_to_a_legal_action():
    three = hand_of("Ah 2c 4d")  # soft 17 with three cards: D but no double -> hit
    assert choose(three, Card.parse("5c"), ("hit", "stand")) == "hit"
    soft18 = hand_of("2h Ah 5c")  # soft 18 vs 4: d but no double -> stand
    assert choose(soft18, Card.parse("4c"), ("hit", "stand")) == "stand"
    eights = hand_of("8h 8d")  # a third split refused: hard 16 vs 6 stands
    assert choose(eights, Card.parse("6c"), ("hit", "stand", "double")) == "stand"
