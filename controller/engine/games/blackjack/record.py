"""A recorded blackjack round as JSON (docs/blackjack-round.md), replayed through the engine.

:func:`settle` is the ``croupier settle`` entry for ``game = "blackjack"`` profiles: it reads
the round (the cards in the order they left the shoe, each seat's stakes and each hand's
actions), plays it out on a :class:`~.engine.BlackjackRound` exactly as the table would, and
returns the settlement. The record must account for every card and every action: a card the
round never asked for, a missing card, an action left over or missing is a
:class:`~controller.errors.RoundError` saying where and why, with its rule. An action recorded
after its hand ended (a hit after a double, on a blackjack, after a stand) is reported as that
action the moment the hand ends, before anything is said about the cards that follow it; a
single ``stand`` on a hand that stood by itself (21, a split ace, a double) is accepted.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from controller.engine.cards import parse_cards
from controller.engine.games.blackjack.engine import (
    DECISION_RULE,
    STAND,
    BlackjackRound,
    Phase,
    SeatBet,
)
from controller.engine.games.blackjack.hand import Hand
from controller.engine.games.blackjack.rules import BlackjackRules
from controller.engine.games.blackjack.settlement import round_result
from controller.engine.games.results import RoundResult
from controller.engine.profiles import DECKS, Profile
from controller.engine.wagers import Limit, check_offered, check_whole_chips, parse_limits
from controller.errors import RoundError
from controller.validation import Problems, Section, non_negative_int, positive_int


@dataclass(frozen=True)
class RoundRecord:
    decks: int | None
    shoe: list[int]
    bets: list[SeatBet]
    insurance: dict[int, int]  # seat -> insurance stake (BJ-8), only seats that insured
    actions: dict[int, dict[str, list[str]]]  # seat -> wager name -> actions in order
    limits: dict[str, Limit] | None = None  # the table's limits, when the file carries them


def settle(
    profile: Profile, round_data: dict[str, Any], *, table_record: bool = False
) -> RoundResult:
    """Settle a recorded blackjack round of ``profile`` (the ``croupier settle`` JSON).
    ``table_record`` changes nothing: a blackjack round has no pool."""
    record = parse_round(round_data, profile)
    rules = BlackjackRules.from_profile(profile, record.decks, record.limits)
    return round_result(replay(rules, record), profile.name)


def parse_round(data: Any, profile: Profile | None = None) -> RoundRecord:
    """Check the shape of a round document; RoundError listing every problem at once. With
    ``profile``, a stake on a wager it does not offer, or not of whole chips, is refused with
    its rule first."""
    seats = data.get("seats") if isinstance(data, dict) else None
    if profile is not None and isinstance(seats, list):  # the shape is checked just below
        for index, seat in enumerate(seats):
            stakes = seat.get("stakes") if isinstance(seat, dict) else None
            if isinstance(stakes, dict):
                check_offered(profile, seat.get("seat", f"#{index + 1}"), stakes)
                check_whole_chips(profile, seat.get("seat", f"#{index + 1}"), stakes)
    problems = Problems("round")
    top = Section(data, "", problems)
    top.get("profile", str, default="")
    top.get("round", (str, int), default="")  # the table's own round ID, for the reviewer
    top.get("game", str, default="blackjack", check=_is_blackjack)
    decks = top.get("decks", int, default=None, check=_deck_count)
    shoe_raw = top.get("shoe", (str, list))
    seats_raw = top.get("seats", list)
    limits_raw = top.get("limits", dict, default=None)
    top.finish()
    limits = None
    if limits_raw is not None and profile is not None:
        limits, limit_problems = parse_limits(profile, limits_raw)
        problems.items.extend(limit_problems)
    shoe: list[int] = []
    if shoe_raw is not None:
        try:
            shoe = list(parse_cards(shoe_raw, what="shoe", unique=False))
        except ValueError as exc:
            problems.add("shoe", str(exc))
    bets, insurance, actions = [], {}, {}
    for index, item in enumerate(seats_raw or []):
        seat = _parse_seat(Section(item, f"seats[{index}]", problems))
        if seat is not None:
            bet, insured, seat_actions = seat
            bets.append(bet)
            if insured:
                insurance[bet.seat] = insured
            actions[bet.seat] = seat_actions
    if problems:
        listed = "; ".join(f"{key}: {reason}" for key, reason in problems.items)
        raise RoundError(f"round file: {listed}")
    return RoundRecord(decks, shoe, bets, insurance, actions, limits)


def _deck_count(decks: int) -> str | None:
    return None if DECKS[0] <= decks <= DECKS[1] else f"BJ-1: a shoe has 4 to 6 decks, got {decks}"


def _is_blackjack(game: str) -> str | None:
    return None if game == "blackjack" else f"this is a blackjack round settler, not {game!r}"


def _parse_seat(sec: Section) -> tuple[SeatBet, int, dict[str, list[str]]] | None:
    seat = sec.get("seat", int, check=positive_int)
    stakes = sec.section("stakes")
    main = trilux = insured = None
    if stakes is not None:
        main = stakes.get("main", int, check=positive_int)  # BJ-1: mandatory
        trilux = stakes.get("trilux", int, default=0, check=non_negative_int)
        insured = stakes.get("insurance", int, default=0, check=non_negative_int)
        stakes.finish()
    actions: dict[str, list[str]] = {}
    actions_sec = sec.section("actions", required=False)
    if actions_sec is not None:
        for name, value in actions_sec.items():
            if isinstance(value, str):
                value = value.split()
            if not isinstance(value, list) or not all(isinstance(a, str) for a in value):
                sec.problems.add(
                    actions_sec.key(name), "expected a list of actions like ['hit', 'stand']"
                )
                continue
            actions[name] = value
    sec.finish()
    if seat is None or main is None or trilux is None or insured is None:
        return None
    return SeatBet(seat, main, trilux), insured, actions


def replay(rules: BlackjackRules, record: RoundRecord) -> BlackjackRound:
    """Play the record out on a fresh round; the round returned is settled."""
    game = BlackjackRound(rules, record.bets)
    queues = {
        seat: {name: deque(acts) for name, acts in hands.items()}
        for seat, hands in record.actions.items()
    }
    offered: set[int] = set()
    position = 0
    while game.phase is not Phase.SETTLED:
        _check_ended_hands(game, queues)
        if game.expected_cards():
            if position == len(record.shoe):
                raise RoundError(
                    f"the shoe list ends after {position} cards, but {game.waiting_for()} is due",
                    "MD-S1",
                )
            game.deal(record.shoe[position])
            position += 1
            continue
        turn = game.turn()
        assert turn is not None  # not settled and no card due: a decision is awaited
        if turn.kind is Phase.INSURANCE:
            offered.add(turn.seat)
            game.insure(record.insurance.get(turn.seat, 0))
            continue
        queue = queues.get(turn.seat, {}).get(turn.hand or "")
        if not queue:
            hand = game.current_hand()
            raise RoundError(
                f"{turn} ({hand.describe()}) must act ({', '.join(game.legal_actions())}), "
                "but the round file lists no further action for it",
                DECISION_RULE,
            )
        game.act(queue.popleft())
    _check_ended_hands(game, queues)
    _check_all_used(game, record, queues, offered, position)
    return game


def _check_ended_hands(game: BlackjackRound, queues: dict[int, dict[str, deque[str]]]) -> None:
    """An action still listed for a hand that has ended is refused as that action, with the
    rule that ended the hand; one ``stand`` on a hand that stood by itself is consumed."""
    for seat in game.seats:
        seat_queues = queues.get(seat.seat)
        if not seat_queues:
            continue
        for hand in seat.hands:
            queue = seat_queues.get(hand.label)
            if not queue or not hand.is_done:
                continue
            if hand.stands_by_itself and list(queue) == [STAND]:
                queue.popleft()  # the reviewer wrote down the stand the hand made by itself
                continue
            reason, rule = _why_ended(hand)
            raise RoundError(
                f"seat {seat.seat} {hand.label}: {queue[0]!r} refused: the hand ended ({reason});"
                f" actions {list(queue)} left over",
                rule,
            )


def _check_all_used(
    game: BlackjackRound,
    record: RoundRecord,
    queues: dict[int, dict[str, deque[str]]],
    offered: set[int],
    position: int,
) -> None:
    for seat in game.seats:
        hands = {h.label: h for h in seat.hands}
        for name, queue in queues.get(seat.seat, {}).items():
            if queue and name not in hands:
                raise RoundError(
                    f"seat {seat.seat} has actions for hand {name!r}, but its hands are "
                    f"{', '.join(hands)}",
                    "BJ-7",
                )
    for seat in game.seats:
        if seat.seat in record.insurance and seat.seat not in offered:
            raise RoundError(
                f"seat {seat.seat} has an insurance stake, but the dealer's first card is "
                f"{game.dealer.cards[0]}: insurance is offered only against an ace",
                "BJ-8",
            )
    left = record.shoe[position:]
    if left:
        raise RoundError(
            f"{len(left)} card(s) left in the shoe list after the round ended "
            f"({game.why_no_card()}), from {left[0]}",
            "MD-S1",
        )


def _why_ended(hand: Hand) -> tuple[str, str]:
    if hand.is_blackjack:
        return "blackjack", "BJ-5"
    if hand.is_bust:
        return f"bust {hand.hard}", "BJ-3"
    if hand.split_aces:
        return "a split ace takes one card", "BJ-7"
    if hand.doubled:
        return "a double takes one card", "BJ-6"
    if hand.total == 21:
        return "21 stands", "BJ-3"
    return f"it stood on {hand.describe()}", DECISION_RULE
