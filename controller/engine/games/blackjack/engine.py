"""One round of European no-hole-card blackjack, played out from the shoe (BJ-1..9, TRX-1).

Theory of operation. A :class:`BlackjackRound` is a sans-I/O state machine fed two kinds of
input, in table order: the cards as they leave the shoe (:meth:`~BlackjackRound.deal`) and the
decisions of the seats (:meth:`~BlackjackRound.insure`, :meth:`~BlackjackRound.act`). It never
reads a clock or a device. At every point it says what it waits for:

- :meth:`~BlackjackRound.expected_cards` -- how many cards the shoe must deliver before anything
  else can happen (0 while a decision is awaited or once the round is settled), and
  :meth:`~BlackjackRound.next_card_for` -- where the next card goes;
- :meth:`~BlackjackRound.turn` and :meth:`~BlackjackRound.legal_actions` -- whose decision
  is awaited and what it may be.

A card or decision that does not fit is refused with a :class:`~controller.errors.RoundError`
naming the rule, and leaves the state untouched, so the daemon's shoe-mode validator can turn a
wrong card count into a misdeal verdict (MD-S1) and nothing is half-applied.

Phases, in order:

1. ``DEAL`` (BJ-2): one card to each seat left to right, one to the dealer, a second card to
   each seat. The Trilux bets are decided right after (TRX-1, :mod:`.settlement`).
2. ``INSURANCE`` (BJ-8), only when the dealer's first card is an ace: each seat in turn insures
   (an amount) or declines (0).
3. ``PLAY``: each seat in turn plays its hands in order. ``hit`` and ``double`` owe the hand a
   card (a double exactly one, BJ-6); ``split`` (BJ-7) makes a new hand right after the one
   split, both owed a card, dealt when each hand's turn comes (the first hand is played out
   before the second gets its card); split aces take one card each. A hand stands by itself
   on 21, on a bust, after a double's card and on a split ace's card. Hands are named when
   they are made, and keep their name whatever is split later: ``main`` for the seat's first
   hand, ``main.2`` for the hand the first split makes, ``main.3`` for the second split's.
4. ``DEALER`` (BJ-4): the dealer draws to 16 and stands on all 17s, soft 17 included. With
   ``dealer_draws = "when-needed"`` the dealer draws only when a card can change a result:
   while a hand other than a bust or a blackjack waits; or, with only busts and blackjacks
   left, the second card when the up card (an ace or a ten-value card) can make a dealer
   blackjack and a blackjack or an insurance stake depends on it (BJ-5, BJ-8). In shoe mode
   this decides whether the next card is due at all. ``"always"`` draws to 17 in every round.
5. ``SETTLED``: every card is in a hand; :func:`.settlement.round_result` pays.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.engine.cards import ACE, DECK_SIZE, Card
from controller.engine.games.blackjack.hand import RANK_VALUES, Hand
from controller.engine.games.blackjack.rules import INSURANCE_PER_BET, MAX_HANDS, BlackjackRules
from controller.engine.profiles import OverMaximum
from controller.engine.wagers import above_maximum, accept
from controller.errors import CardError, RoundError, StakeBelowMinimum, StakeNotWholeChips

HIT, STAND, DOUBLE, SPLIT = "hit", "stand", "double", "split"
ACTIONS = (HIT, STAND, DOUBLE, SPLIT)
DEALER = -1  # seat index of the dealer in card destinations
# The rule of a player's decision to draw or stand: as close to 21 as possible without passing
# it (seed 001; RULES.md BJ-3 card values). Doubles and splits cite BJ-6 and BJ-7.
DECISION_RULE = "BJ-3"


class Phase(enum.Enum):
    DEAL = "deal"
    INSURANCE = "insurance"
    PLAY = "play"
    DEALER = "dealer"
    SETTLED = "settled"


def wager_name(made: int) -> str:
    """``main``, ``main.2``, ``main.3``: the wager of the seat's hand made ``made``-th (0 =
    the first hand, 1 = made by the first split...). The name never changes afterwards."""
    return "main" if made == 0 else f"main.{made + 1}"


@dataclass(frozen=True)
class SeatBet:
    """What a seat put down before the first card (BJ-1, TRX-1), in minor units."""

    seat: int
    main: int
    trilux: int = 0


@dataclass(frozen=True)
class Spot:
    """Where a card goes or whose decision is awaited: a seat's hand, or the dealer."""

    seat: int | None  # None: the dealer
    hand: int = 0  # index of the hand in play order
    label: str = field(default="main", compare=False)  # the hand's wager name

    @property
    def wager(self) -> str:
        return self.label

    def __str__(self) -> str:
        return "dealer" if self.seat is None else f"seat {self.seat} {self.wager}"


@dataclass(frozen=True)
class Turn:
    kind: Phase  # Phase.INSURANCE or Phase.PLAY: the decision awaited
    seat: int
    hand: str | None = None  # the wager name of the hand to play

    def __str__(self) -> str:
        return f"seat {self.seat}" + (f" {self.hand}" if self.hand else "")


class SeatPlay:
    """A seat during the round: its bets, its hands in play order, its insurance."""

    __slots__ = ("bet", "hands", "insurance", "offered", "returned")

    def __init__(self, offered: SeatBet, bet: SeatBet, returned: dict[str, int], hand: Hand):
        self.offered = offered  # what the player put down
        self.bet = bet  # what the table accepted (BJ-1: capped at the maximum)
        self.returned = returned  # wager -> excess over the maximum, returned (BJ-1, BJ-8)
        self.hands = [hand]
        self.insurance = 0  # BJ-8 stake; 0 = declined or not offered

    @property
    def seat(self) -> int:
        return self.bet.seat


class BlackjackRound:
    """A round from the first card to the settlement; see the module docstring."""

    hand_class: type[Hand] = Hand  # bench/blackjack.py swaps in a recomputing hand

    def __init__(self, rules: BlackjackRules, bets: Sequence[SeatBet]) -> None:
        self.rules = rules
        ordered = sorted(bets, key=lambda b: b.seat)  # left to right (BJ-2)
        self.seats = [
            SeatPlay(offered, bet, returned, self.hand_class(bet.main))
            for offered, (bet, returned) in zip(ordered, _accept_bets(rules, ordered), strict=True)
        ]
        self.dealer = self.hand_class(0)
        self.phase = Phase.DEAL
        self.cards: list[Card] = []  # every card in the order it left the shoe
        self.trilux_cards_of: dict[int, tuple[Card, Card, Card]] = {}  # seat -> TRX-1 cards
        self._copies = [0] * DECK_SIZE
        count = len(self.seats)
        self._plan = [*range(count), DEALER, *range(count)]  # BJ-2
        self._dealt = 0  # cards of the initial deal so far
        self._seat = 0  # index of the seat deciding (insurance, play)
        self._hand = 0  # index of its hand being played
        self._need: tuple[int, int] | None = None  # (seat index or DEALER, hand index)
        self._advance()

    # --- what the round waits for ------------------------------------------------------------

    def expected_cards(self) -> int:
        """Cards the shoe must deliver before anything else can happen: the rest of the
        initial deal (BJ-2); after a split of aces or a double, the cards owed in a row
        without a decision between them (BJ-6, BJ-7); one at a time while the dealer draws
        (BJ-4). 0 while a decision is awaited or when the round is settled."""
        need = self._need
        if need is None:
            return 0
        if self.phase is Phase.DEAL:
            return len(self._plan) - self._dealt
        if need[0] == DEALER:
            return 1
        hands = self.seats[need[0]].hands
        count, index = 0, need[1]
        while index < len(hands) and hands[index].owed:
            count += 1
            hand = hands[index]
            if not (hand.doubled or hand.split_aces):
                break  # a decision follows this card (unless it makes 21)
            index += 1
        return count

    def next_card_for(self) -> Spot | None:
        """Where the next card from the shoe goes, or None when no card is due."""
        need = self._need
        if need is None:
            return None
        if need[0] == DEALER:
            return Spot(None)
        seat = self.seats[need[0]]
        return Spot(seat.seat, need[1], seat.hands[need[1]].label)

    def turn(self) -> Turn | None:
        """Whose decision is awaited (None while cards are due or once settled)."""
        if self._need is not None:
            return None
        if self.phase is Phase.INSURANCE:
            return Turn(Phase.INSURANCE, self.seats[self._seat].seat)
        if self.phase is Phase.PLAY:
            return Turn(Phase.PLAY, self.seats[self._seat].seat, self.current_hand().label)
        return None

    def legal_actions(self) -> tuple[str, ...]:
        """The actions the hand in turn may take (empty when no play decision is awaited)."""
        if self.phase is not Phase.PLAY or self._need is not None:
            return ()
        hand = self.current_hand()
        return tuple(a for a in ACTIONS if self._refusal(hand, a) is None)

    def insurance_limits(self) -> tuple[int, int] | None:
        """BJ-8 bounds (inclusive, minor units) of the seat in turn to insure, or None."""
        if self.turn() is None or self.phase is not Phase.INSURANCE:
            return None
        low = self.rules.insurance_min
        high = self.seats[self._seat].bet.main * INSURANCE_PER_BET
        chip = self.rules.money.chip_unit  # an insurance is staked in whole chips too
        return math.ceil(low / chip) * chip, math.floor(high / chip) * chip

    def current_hand(self) -> Hand:
        return self.seats[self._seat].hands[self._hand]

    def waiting_for(self) -> str:
        """What the round waits for, in words for error messages and the technician."""
        spot = self.next_card_for()
        if spot is not None:
            return f"a card for {spot}"
        turn = self.turn()
        if turn is None:
            return "nothing: the round is over"
        if turn.kind is Phase.INSURANCE:
            return f"{turn} to insure or decline (BJ-8)"
        return f"{turn} to act ({', '.join(self.legal_actions())})"

    # --- inputs -------------------------------------------------------------------------------

    def deal(self, card: int) -> Spot:
        """The next card out of the shoe; returns where it went. RoundError if no card is
        due (MD-S1: a wrong number of cards) or the shoe cannot hold it (BJ-1)."""
        if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < DECK_SIZE:
            raise CardError(f"card code {card!r} is outside 0..51")
        card = Card(card)
        need = self._need
        if need is None:
            raise RoundError(f"unexpected card {card}: {self.why_no_card()}", "MD-S1")
        if self._copies[card] >= self.rules.decks:
            raise RoundError(
                f"{card} dealt {self._copies[card] + 1} times, but the shoe has "
                f"{self.rules.decks} decks",
                "BJ-1",
            )
        self._copies[card] += 1
        self.cards.append(card)
        seat_index, hand_index = need
        if seat_index == DEALER:
            self.dealer.add(card)
            spot = Spot(None)
        else:
            seat = self.seats[seat_index]
            hand = seat.hands[hand_index]
            hand.add(card)
            hand.owed = False
            spot = Spot(seat.seat, hand_index, hand.label)
        if self.phase is Phase.DEAL:
            self._dealt += 1
        self._advance()
        return spot

    def insure(self, amount: int) -> None:
        """The seat in turn insures ``amount`` (minor units) or declines with 0 (BJ-8)."""
        limits = self.insurance_limits()
        if limits is None:
            raise RoundError(
                f"insurance is not offered now ({self.waiting_for()}); it is offered only when "
                "the dealer's first card is an ace, before the seats act",
                "BJ-8",
            )
        if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
            raise RoundError(f"insurance must be an amount in minor units, got {amount!r}", "BJ-8")
        seat = self.seats[self._seat]
        chip = self.rules.money.chip_unit
        if amount % chip:
            raise StakeNotWholeChips(
                f"seat {seat.seat}: insurance {{amount}} is not a whole number of chips: chips"
                " of {unit} ([money] chip_unit)",
                "BJ-8",
                amounts={"amount": amount, "unit": chip},
            )
        if amount and amount < limits[0]:
            raise StakeBelowMinimum(
                f"seat {seat.seat}: insurance {{amount}} is below the minimum {{low}} "
                "(half the table minimum)",
                "BJ-8",
                amounts={"amount": amount, "low": limits[0]},
            )
        if amount > limits[1] and limits[1] < limits[0]:
            # BJ-8: half the bet in whole chips is under half the table minimum (a 10.01 bet
            # at a 10.01 minimum: both bounds are 5.005); capped, the stake would be one the
            # minimum refuses when put down, so no insurance fits this bet
            raise StakeBelowMinimum(
                f"seat {seat.seat}: insurance {{amount}} capped at half the bet ({{high}}) "
                "is below the minimum {low} (half the table minimum): no insurance "
                "stake fits this bet",
                "BJ-8",
                amounts={"amount": amount, "high": limits[1], "low": limits[0]},
            )
        if amount > limits[1] and self.rules.over_maximum is OverMaximum.REFUSE:
            # BJ-1 over the maximum (half the bet), refused whole like one below the minimum
            raise above_maximum(
                seat.seat, "insurance", amount, limits[1], where="half the bet, BJ-8"
            )
        if amount > limits[1]:  # BJ-1: the excess over the maximum (half the bet) is returned
            seat.returned["insurance"] = amount - limits[1]
            amount = limits[1]
        seat.insurance = amount
        self._seat += 1
        self._advance()

    def act(self, action: str) -> None:
        """The hand in turn hits, stands, doubles or splits; RoundError naming the rule if
        the action is not allowed on it."""
        turn = self.turn()
        if turn is None or turn.kind is not Phase.PLAY:
            raise RoundError(
                f"no play decision is expected: waiting for {self.waiting_for()}",
                "BJ-8" if self.phase is Phase.INSURANCE else "MD-S1",
            )
        hand = self.current_hand()
        refusal = self._refusal(hand, action)
        if refusal is not None:
            reason, rule = refusal
            raise RoundError(f"{turn} ({hand.describe()}): {action} refused: {reason}", rule)
        hand.actions.append(action)
        if action == HIT:
            hand.owed = True
        elif action == STAND:
            hand.stood = True
        elif action == DOUBLE:
            hand.doubled = True
            hand.owed = True
        else:
            self._split(hand)
        self._advance()

    # --- internals ----------------------------------------------------------------------------

    def _split(self, hand: Hand) -> None:
        card = hand.remove_second()
        aces = card >> 2 == ACE
        hand.from_split = True
        hand.split_aces = aces
        hand.owed = True
        hands = self.seats[self._seat].hands
        new = self.hand_class(  # an equal bet: the accepted (capped) original bet (BJ-1)
            hand.bet, from_split=True, split_aces=aces, label=wager_name(len(hands))
        )
        new.add(card)
        new.owed = True
        hands.insert(self._hand + 1, new)

    def _refusal(self, hand: Hand, action: str) -> tuple[str, str] | None:
        """Why ``action`` is not allowed on ``hand`` (reason, rule), or None if it is."""
        if action in (HIT, STAND):
            return None  # a hand still in turn is below 21 and may always draw or stand
        if action == DOUBLE:
            if len(hand.cards) != 2:
                return "a double is allowed on the first two cards only", "BJ-6"
            bounds = self.rules.double_range
            if bounds is not None and not bounds[0] <= hand.hard <= bounds[1]:
                return (
                    f"a double needs the {self.rules.describe_double_on()} "
                    f"(double_on); this hand counts {hand.hard}",
                    "BJ-6",
                )
            return None
        if action == SPLIT:
            if len(hand.cards) != 2:
                return "only the first two cards of a hand can be split", "BJ-7"
            first, second = hand.cards
            if RANK_VALUES[first >> 2] != RANK_VALUES[second >> 2]:
                return f"{Card(first)} and {Card(second)} are not of the same value", "BJ-7"
            if self.rules.split_same_rank_only and first >> 2 != second >> 2:
                return (
                    f"{Card(first)} and {Card(second)} are not of the same rank "
                    "(split_same_rank_only)",
                    "BJ-7",
                )
            if len(self.seats[self._seat].hands) >= MAX_HANDS:
                return f"at most two splits ({MAX_HANDS} hands) per seat", "BJ-7"
            return None  # split aces never get here: they take one card and stand (BJ-7)
        return f"unknown action {action!r} (actions: {', '.join(ACTIONS)})", DECISION_RULE

    def _advance(self) -> None:
        """Move past every point that needs no input, and record what is needed next."""
        self._need = None
        if self.phase is Phase.DEAL:
            if self._dealt < len(self._plan):
                self._need = (self._plan[self._dealt], 0)
                return
            up = self.dealer.cards[0]
            for seat in self.seats:  # TRX-1: first two cards + the dealer's first card
                first, second = seat.hands[0].cards
                self.trilux_cards_of[seat.seat] = (first, second, up)
            if self.dealer.cards[0] >> 2 == ACE:
                self.phase = Phase.INSURANCE
            else:
                self.phase = Phase.PLAY
        if self.phase is Phase.INSURANCE:
            if self._seat < len(self.seats):
                return
            self.phase = Phase.PLAY
            self._seat = 0
        if self.phase is Phase.PLAY:
            seats = self.seats
            while self._seat < len(seats):
                hands = seats[self._seat].hands
                while self._hand < len(hands):
                    hand = hands[self._hand]
                    if hand.owed:
                        self._need = (self._seat, self._hand)
                        return
                    if not hand.is_done:
                        return
                    self._hand += 1
                self._seat += 1
                self._hand = 0
            self.phase = Phase.DEALER
        if self.phase is Phase.DEALER:
            if self._dealer_must_draw():
                self._need = (DEALER, 0)
                return
            self.phase = Phase.SETTLED

    def _dealer_must_draw(self) -> bool:
        dealer = self.dealer
        if dealer.total >= 17:
            return False  # BJ-4: stands on all 17s, soft 17 included (and on a blackjack)
        if self.rules.dealer_draws == "always":
            return True
        hands = [h for s in self.seats for h in s.hands]
        if any(not (h.is_bust or h.is_blackjack) for h in hands):
            return True  # a hand waits for the dealer's total
        if len(dealer.cards) != 1 or RANK_VALUES[dealer.cards[0] >> 2] not in (1, 10):
            return False  # every hand is decided: no card can change a result
        # the up card can make a blackjack: it decides a blackjack (stand-off, BJ-5) and the
        # insurance (BJ-8)
        return any(h.is_blackjack for h in hands) or any(s.insurance for s in self.seats)

    def why_no_card(self) -> str:
        """Why no card is due now (for the error of an unexpected card)."""
        if self.phase is Phase.SETTLED:
            if self.dealer.total >= 17:
                return f"the dealer stands on {self.dealer.describe()} (BJ-4)"
            return (
                "no hand is left for the dealer to decide "
                f"(BJ-4, dealer_draws = {self.rules.dealer_draws!r})"
            )
        return f"waiting for {self.waiting_for()}"

    # --- accounting ---------------------------------------------------------------------------

    def hands(self) -> list[Hand]:
        """Every hand in the round, seats left to right, then the dealer."""
        return [h for s in self.seats for h in s.hands] + [self.dealer]

    def stakes(self) -> dict[int, dict[str, int]]:
        """Each seat's stakes now, as accepted (BJ-1) and named as its settlement names them:
        each hand's (``main``, ``main.2``...: a double or a split included, BJ-6, BJ-7), the
        Trilux (TRX-1) and an insurance (BJ-8). What a void returns (MD)."""
        every = {}
        for seat in self.seats:
            wagers = {hand.label: hand.stake for hand in seat.hands}
            if seat.bet.trilux:
                wagers["trilux"] = seat.bet.trilux
            if seat.insurance:
                wagers["insurance"] = seat.insurance
            every[seat.seat] = wagers
        return every


def _accept_bets(
    rules: BlackjackRules, bets: Sequence[SeatBet]
) -> list[tuple[SeatBet, dict[str, int]]]:
    """BJ-1 seats and table limits, TRX-1 Trilux limits: each seat's accepted bet and the
    excess over a maximum it gets back (capped under ``over_maximum = "cap"``, refused under
    ``"refuse"``; :mod:`controller.engine.wagers`). RoundError on the first seat that cannot
    play."""
    if not bets:
        raise RoundError("no seat has a bet: a round needs at least one", "BJ-1")
    seen: set[int] = set()
    accepted = []
    for bet in bets:
        if not 1 <= bet.seat <= rules.seats:
            raise RoundError(
                f"seat {bet.seat} is not a seat of this table (1..{rules.seats})", "BJ-1"
            )
        if bet.seat in seen:
            raise RoundError(f"seat {bet.seat} is listed twice: one player per seat", "BJ-1")
        seen.add(bet.seat)
        if bet.main <= 0:
            raise RoundError(f"seat {bet.seat}: the main bet is mandatory", "BJ-1")
        over = rules.over_maximum
        main = accept(rules.limits, bet.seat, "main", bet.main, over_maximum=over)
        trilux = accept(rules.limits, bet.seat, "trilux", bet.trilux, over_maximum=over)
        returned = {
            name: taken.returned
            for name, taken in (("main", main), ("trilux", trilux))
            if taken.returned
        }
        accepted.append((SeatBet(bet.seat, main.stake, trilux.stake), returned))
    return accepted
