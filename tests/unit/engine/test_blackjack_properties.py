"""Property tests: any legal play from any shoe ends in a settled round where every card is
accounted for and no wager is paid more than the rules allow (BJ-1..9, TRX-1..2).

Hypothesis draws the table (1 to 7 seats, stakes within the limits, options of the profile,
4 to 6 decks), every card when the engine asks for one (never more copies than the shoe holds)
and every decision among the legal ones (or basic strategy); now and then it tries an illegal
action first, which must be refused without changing anything. The same round is then written
as a round file and settled through ``controller.engine.games.settle``: the two settlements
must agree.
"""

from collections import Counter
from functools import lru_cache

from blackjack_support import trilux_profile
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.games import settle
from controller.engine.games.blackjack import (
    ACTIONS,
    BlackjackRound,
    BlackjackRules,
    Phase,
    SeatBet,
    round_result,
)
from controller.engine.games.blackjack.strategy import choose
from controller.errors import RoundError


@lru_cache
def profile(enhc, draws, double_on, rank_only, rounding):
    return trilux_profile(
        money={"rounding": rounding},
        house=double_on != "2-11",  # BJ-6 fixes 2 to 11 for trilux-gr
        enhc_loses=enhc,
        dealer_draws=draws,
        double_on=double_on,
        split_same_rank_only=rank_only,
    )


profiles = st.builds(
    profile,
    st.sampled_from(["all", "original-only"]),
    st.sampled_from(["when-needed", "always"]),
    st.sampled_from(["2-11", "any", "10-11"]),
    st.booleans(),
    st.sampled_from(["down", "nearest"]),
)


def table(draw, rules):
    seats = draw(st.lists(st.integers(1, 7), min_size=1, max_size=7, unique=True))
    trilux = st.one_of(st.just(0), st.integers(rules.trilux_min, rules.trilux_max))
    return [
        SeatBet(s, draw(st.integers(rules.bet_min, rules.bet_max)), draw(trilux)) for s in seats
    ]


def card_choice(game, copies):
    """Any card the shoe can still hold; often a ten-value card or an ace (blackjacks,
    insurance), often the rank of the last card (pairs to split, three hands), often the
    card that gives the dealer a blackjack (BJ-9)."""
    spare = [c for c in range(52) if copies[c] < game.rules.decks]
    pools = [
        spare,
        [c for c in spare if c >> 2 >= 8],
        [c for c in spare if game.cards and c >> 2 == game.cards[-1] >> 2],
    ]
    if game.next_card_for().seat is None and len(game.dealer.cards) == 1:
        up_is_ace = game.dealer.cards[0] >> 2 == 12
        pools.append([c for c in spare if (c >> 2 == 12) != up_is_ace and c >> 2 >= 8])
    return st.one_of(*(st.sampled_from(pool) for pool in pools if pool))


def play_out(draw, game, use_strategy):
    """Drive the round to the end; checks the engine's promises on the way."""
    copies = Counter()
    while game.phase is not Phase.SETTLED:
        due = game.expected_cards()
        if due:
            assert game.turn() is None and game.legal_actions() == ()
            card = draw(card_choice(game, copies))
            copies[card] += 1
            game.deal(card)
            if due > 1:  # the count was certain: no decision may come in between
                assert game.expected_cards() == due - 1
            continue
        turn = game.turn()
        assert turn is not None and game.next_card_for() is None
        if turn.kind is Phase.INSURANCE:
            low, high = game.insurance_limits()
            game.insure(draw(st.one_of(st.just(0), st.integers(low, high))))
            continue
        legal = game.legal_actions()
        assert legal[:2] == ("hit", "stand")
        illegal = [a for a in ACTIONS if a not in legal]
        if illegal and draw(st.booleans()):
            try:
                game.act(draw(st.sampled_from(illegal)))
            except RoundError as exc:
                assert exc.rule in ("BJ-6", "BJ-7")
            else:
                raise AssertionError("an illegal action was accepted")
            assert game.legal_actions() == legal and game.turn() == turn
        if use_strategy:
            action = choose(game.current_hand(), game.dealer.cards[0], legal)
        else:
            action = draw(st.sampled_from(legal))
        game.act(action)


def record_of(game):
    """The round file a reviewer would write for this round."""
    return {
        "profile": "trilux-gr",
        "decks": game.rules.decks,
        "shoe": [str(c) for c in game.cards],
        "seats": [
            {
                "seat": s.seat,
                "stakes": {"main": s.bet.main, "trilux": s.bet.trilux, "insurance": s.insurance},
                "actions": {h.label: h.actions for h in s.hands},
            }
            for s in game.seats
        ],
    }


def check_cards(game):
    in_hands = [c for hand in game.hands() for c in hand.cards]
    assert sorted(in_hands) == sorted(game.cards)
    assert max(Counter(game.cards).values()) <= game.rules.decks
    for seat in game.seats:
        assert 1 <= len(seat.hands) <= 3  # BJ-7
        for hand in seat.hands:
            assert len(hand.cards) >= 2
            assert not (hand.split_aces and len(hand.cards) != 2)  # one card each
            assert not (hand.doubled and len(hand.cards) != 3)  # one card only


def check_money(game, result):
    rules, dealer = game.rules, game.dealer
    best_trilux = max(p.ratio for p in rules.trilux.pays.values())
    for seat, seat_result in zip(game.seats, result.seats, strict=True):
        wagers = seat_result.wagers
        for wager in wagers.values():
            assert {
                "win": wager.paid > wager.stake,
                "push": wager.paid == wager.stake,
                "lose": wager.paid < wager.stake,
            }[wager.result]
        if seat.bet.trilux:
            trilux = wagers["trilux"]
            assert trilux.paid <= trilux.stake + rules.winnings(trilux.stake, best_trilux)
        if seat.insurance:
            insurance = wagers["insurance"]
            assert insurance.paid in (0, seat.insurance * 3)
            assert (insurance.paid > 0) == dealer.is_blackjack
        lost_to_dealer_blackjack = 0
        for hand in seat.hands:
            wager = wagers[hand.label]
            assert hand.bet == seat.bet.main  # a split is an equal bet (BJ-7)
            assert wager.stake == seat.bet.main * (2 if hand.doubled else 1)
            ratio = rules.blackjack_pays if hand.is_blackjack else rules.win_pays
            assert wager.paid <= wager.stake + rules.winnings(wager.stake, ratio)
            if hand.is_bust:
                assert wager.paid == 0
            if wager.result == "win":
                assert hand.is_blackjack or dealer.is_bust or hand.total > dealer.total
                assert not dealer.is_blackjack
            if dealer.is_blackjack and not (hand.is_blackjack or hand.is_bust):
                lost_to_dealer_blackjack += wager.stake - wager.paid
        if rules.enhc_loses == "original-only":  # BJ-9: the original bet at most
            assert lost_to_dealer_blackjack <= seat.bet.main


@given(st.data(), profiles, st.sampled_from([4, 5, 6]), st.booleans())
def test_any_legal_play_settles_within_the_rules(data, prof, decks, use_strategy):
    rules = BlackjackRules.from_profile(prof, decks)
    game = BlackjackRound(rules, table(data.draw, rules))
    play_out(data.draw, game, use_strategy)
    assert game.expected_cards() == 0 and game.turn() is None
    result = round_result(game, prof.name)
    check_cards(game)
    check_money(game, result)
    assert settle(prof, record_of(game)).to_json() == result.to_json()
