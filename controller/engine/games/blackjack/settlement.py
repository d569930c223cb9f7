"""Paying a blackjack round: Trilux (TRX-1, TRX-2), insurance (BJ-8), every hand (BJ-3..9).

Every payout is ``stake + winnings``, the winnings being the exact fraction ``stake * odds``
rounded once by the profile's rule (``money.round_winnings``): a 3:2 blackjack on 1,005 cents
pays 1,005 + 1,507. Outcomes of a hand, with the rule each cites:

========================================  ===========================================  =====
hand                                      outcome                                      rule
========================================  ===========================================  =====
bust (over 21)                            lost, whatever the dealer does               BJ-3
blackjack, dealer no blackjack            wins 3:2                                     BJ-5
blackjack, dealer blackjack               stand-off (stake returned)                   BJ-5
any other hand, dealer blackjack          lost; extra doubled/split stakes per option  BJ-5/9
two-card 21 of a split, wins              1:1, not a blackjack                         BJ-7
other hands against the dealer's total    1:1 / push / lost                            BJ-5
========================================  ===========================================  =====

BJ-9 (``enhc_loses``): with ``"all"`` a dealer blackjack takes every stake on the table; with
``"original-only"`` it takes the seat's original bet only (on hand ``main``) and returns the
doubled and split stakes: ``main`` is lost but pays back its doubling, ``main.2`` and ``main.3``
push.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from controller.engine.cards import Card
from controller.engine.games.blackjack.engine import BlackjackRound, Phase, SeatPlay
from controller.engine.games.blackjack.hand import Hand
from controller.engine.games.blackjack.rules import BlackjackRules
from controller.engine.games.blackjack.trilux import trilux_pay
from controller.engine.games.results import LOSE, PUSH, WIN, RoundResult, SeatResult, Wager
from controller.errors import RoundError


def trilux_wager(rules: BlackjackRules, stake: int, cards: tuple[int, int, int]) -> Wager:
    """TRX-2 on the player's first two cards and the dealer's first card."""
    found = trilux_pay(rules.trilux, cards)
    if found is None:
        return Wager(stake, LOSE, 0, "TRX-2")
    line, pay = found
    return Wager(stake, WIN, stake + rules.winnings(stake, pay.ratio), "TRX-2", line)


def trilux_wagers(game: BlackjackRound) -> dict[int, Wager]:
    """The Trilux results by seat, known right after the seats' second cards (TRX-1): the
    daemon pays them and collects the losers before play goes on."""
    if game.phase is Phase.DEAL:
        raise RoundError("Trilux is settled after the seats' second cards (TRX-1)", "TRX-1")
    return {
        s.seat: _returning(
            trilux_wager(game.rules, s.bet.trilux, game.trilux_cards_of[s.seat]), s, "trilux"
        )
        for s in game.seats
        if s.bet.trilux
    }


def _returning(wager: Wager, seat: SeatPlay, name: str) -> Wager:
    """``wager`` with the excess over the maximum the seat got back on it (BJ-1, BJ-8)."""
    excess = seat.returned.get(name, 0)
    return replace(wager, returned=excess) if excess else wager


def insurance_wager(rules: BlackjackRules, stake: int, dealer: Hand) -> Wager:
    """BJ-8: pays 2:1 when the dealer makes blackjack, lost otherwise."""
    if dealer.is_blackjack:
        return Wager(
            stake,
            WIN,
            stake + rules.winnings(stake, rules.insurance_pays),
            "BJ-8",
            "dealer-blackjack",
        )
    return Wager(stake, LOSE, 0, "BJ-8")


def hand_wager(rules: BlackjackRules, hand: Hand, index: int, dealer: Hand) -> Wager:
    """The main-bet wager of one hand (``index`` in play order) against the dealer."""
    stake = hand.stake
    if hand.is_bust:
        return Wager(stake, LOSE, 0, "BJ-3")
    if hand.is_blackjack:
        if dealer.is_blackjack:
            return Wager(stake, PUSH, stake, "BJ-5")
        paid = stake + rules.winnings(stake, rules.blackjack_pays)
        return Wager(stake, WIN, paid, "BJ-5", "blackjack")
    if dealer.is_blackjack:
        return _lost_to_dealer_blackjack(rules, hand, index)
    dealer_total = dealer.total
    total = hand.total
    if dealer_total > 21 or total > dealer_total:
        rule = "BJ-7" if hand.from_split and total == 21 and len(hand.cards) == 2 else "BJ-5"
        return Wager(stake, WIN, stake + rules.winnings(stake, rules.win_pays), rule, "win")
    if total == dealer_total:
        return Wager(stake, PUSH, stake, "BJ-5")
    return Wager(stake, LOSE, 0, "BJ-5")


def _lost_to_dealer_blackjack(rules: BlackjackRules, hand: Hand, index: int) -> Wager:
    """BJ-5: a dealer blackjack beats every hand but a blackjack; BJ-9 decides the stakes a
    double or a split added."""
    stake = hand.stake
    original = hand.bet if index == 0 else 0  # the seat's original bet rides on ``main``
    extra = stake - original
    if not extra:
        return Wager(stake, LOSE, 0, "BJ-5")
    if rules.enhc_loses == "all":
        return Wager(stake, LOSE, 0, "BJ-9")
    return Wager(stake, LOSE if original else PUSH, extra, "BJ-9")


def seat_result(game: BlackjackRound, seat: SeatPlay, trilux: Wager | None) -> SeatResult:
    rules, dealer = game.rules, game.dealer
    wagers: dict[str, Wager] = {}
    if trilux is not None:
        wagers["trilux"] = trilux
    if seat.insurance:
        wagers["insurance"] = _returning(
            insurance_wager(rules, seat.insurance, dealer), seat, "insurance"
        )
    hands: list[dict[str, Any]] = []
    for index, hand in enumerate(seat.hands):
        name = hand.label
        wagers[name] = _returning(hand_wager(rules, hand, index, dealer), seat, name)
        hands.append(
            {
                "wager": name,
                "cards": _names(hand.cards),
                "hand": hand.describe(),
                "actions": list(hand.actions),
                "doubled": hand.doubled,
            }
        )
    main = seat.hands[0]
    extra: dict[str, Any] = {"hands": hands}
    if trilux is not None:
        extra["trilux_cards"] = _names(game.trilux_cards_of[seat.seat])
    return SeatResult(
        seat=seat.seat, hand=main.describe(), wagers=wagers, cards=_names(main.cards), extra=extra
    )


def round_result(game: BlackjackRound, profile_name: str) -> RoundResult:
    """Settle a finished round: every wager of every seat, seats left to right."""
    if game.phase is not Phase.SETTLED:
        raise RoundError(f"the round is not over: waiting for {game.waiting_for()}")
    trilux = trilux_wagers(game)
    dealer = game.dealer
    return RoundResult(
        game="blackjack",
        profile=profile_name,
        dealer={
            "cards": _names(dealer.cards),
            "hand": dealer.describe(),
            "total": dealer.total,
        },
        seats=[seat_result(game, s, trilux.get(s.seat)) for s in game.seats],
    )


def _names(cards: Iterable[Card]) -> list[str]:
    return [str(c) for c in cards]  # the engine keeps Card objects
