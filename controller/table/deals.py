"""How a round's cards arrive, for the two kinds of machine the tables use.

Both classes answer the round state machine the same way: each shuffler event gives a
:class:`~controller.engine.deal.validator.Verdict` plus the requests to send, :meth:`next_deadline`
says when to poll, and once the cards are all in, :meth:`record` gives the round in the
``croupier settle`` format: the engine settles it, and a reviewer can settle it again.

- :class:`HandFormingDeal` (UTH, Casino Hold'em, UTH-11): the controller asks the shuffler for
  each packet of the plan and checks it with the :class:`DealValidator`; VERIFIED at the last
  packet; the dealer's CONFIRM starts the showdown. Dealer or community cards exposed after
  the deal go back into the shuffler and are replaced in their positions
  (:meth:`HandFormingDeal.replace_exposed`: MD-X1, MD-X2, MD-X3; :mod:`controller.table.
  exposure` says which the profile has).
- :class:`ShoeDeal` (Trilux blackjack): the shoe reports every card as it leaves; the blackjack
  engine knows how many cards are due and where each goes, and the players' decisions come in
  between. A card when none is due is a wrong count (MD-S1); a card due but not coming within
  ``packet_timeout`` is a malfunction (MD-S2). VERIFIED once the initial deal (BJ-2) is in;
  the round is complete when the engine has settled every hand.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from controller.engine.cards import card_name
from controller.engine.deal.validator import (
    COMMUNITY,
    DEALER,
    DealValidator,
    Packet,
    Verdict,
    VerdictStatus,
    holdem_plan,
    seat_destination,
)
from controller.engine.profiles import Profile
from controller.engine.wagers import Limit, limits_to_json
from controller.errors import RoundError
from controller.table.events import Effect, ReinsertCards, RequestPacket, ShuffleDeck

Wagers = dict[int, tuple[dict[str, int], Any]]  # seat -> (stakes, decision)
_T = TypeVar("_T")


@dataclass(frozen=True)
class RoundStakes:
    """What the table knows of a round's money besides the cards: the progressive stakes
    sensed at LOCK, the pool they feed and its amount, the stakes and decisions entered."""

    progressive: dict[int, int]  # seat -> progressive stake
    pool_name: str | None  # the progressive bet (``progressive``, ``jumbo7``)
    pools: dict[str, tuple[int, int]]  # bet -> (amount, seed)
    wagers: Wagers
    limits: Mapping[str, Limit] = field(default_factory=dict)  # the table's [limits]


def holdem_record(
    profile: Profile, cards: dict[str, tuple[int, ...]], seats: tuple[int, ...], stakes: RoundStakes
) -> dict[str, Any]:
    """A hold'em round as ``croupier settle`` reads it (docs/settle.md): the cards, the sensed
    progressive stakes, the entered stakes and decisions, the pool."""
    names = {dest: [card_name(c) for c in hand] for dest, hand in cards.items()}
    entries = []
    pool_name = stakes.pool_name
    for seat in seats:
        entered, decision = stakes.wagers.get(seat, ({}, None))
        seat_stakes = dict(entered)
        if seat in stakes.progressive and pool_name:
            seat_stakes[pool_name] = stakes.progressive[seat]
        entry: dict[str, Any] = {
            "seat": seat,
            "cards": names[seat_destination(seat)],
            "stakes": seat_stakes,
        }
        if decision is not None:
            entry["decision"] = decision
        entries.append(entry)
    data: dict[str, Any] = {
        "profile": profile.name,
        "dealer": names[DEALER],
        "community": names[COMMUNITY],
        "seats": entries,
    }
    if pool_name and pool_name in stakes.pools:
        amount, seed = stakes.pools[pool_name]
        data["pools"] = {pool_name: {"amount": amount, "seed": seed}}
    if stakes.limits:
        data["limits"] = limits_to_json(stakes.limits)
    return data


def check_positions(destination: str, positions: tuple[int, ...], held: int, rule: str) -> None:
    """RoundError (citing ``rule``) unless ``positions`` name distinct cards of the ``held``
    that ``destination`` holds."""
    if (
        not positions
        or len(set(positions)) != len(positions)
        or not all(1 <= p <= held for p in positions)
    ):
        raise RoundError(
            f"the {destination} holds cards 1..{held}: positions {list(positions)}"
            " cannot be exposed",
            rule,
        )


class HandFormingDeal:
    needs_confirm = True  # the showdown waits for the dealer's CONFIRM

    def __init__(self, profile: Profile, seats: tuple[int, ...], now: float, timeout: float):
        self.profile = profile
        self.validator = DealValidator(
            holdem_plan(seats, game=profile.game), started=now, packet_timeout=timeout
        )
        self._planned = len(self.validator.plan.packets)
        # the positions sent back, in order: the k-th replaced by the k-th packet after the
        # plan (MD-X1, MD-X2, MD-X3)
        self.replaced: list[tuple[str, tuple[int, ...]]] = []

    def plan_text(self) -> list[str]:
        return [f"{p.count}->{p.destination}" for p in self.validator.plan.packets]

    def start(self, now: float) -> list[Effect]:
        self.validator.restart(now)
        first = self.validator.plan.packets[0]
        return [ShuffleDeck(), RequestPacket(first.destination, first.count)]

    def packet(self, packet: Packet, now: float) -> tuple[Verdict, list[Effect]]:
        verdict = self.validator.packet(packet, now)
        expected = self.validator.expected()
        requests: list[Effect] = []
        if verdict.status == VerdictStatus.OK and expected is not None:
            requests.append(RequestPacket(expected.destination, expected.count))
        return verdict, requests

    def fault(self, description: str, now: float) -> Verdict:
        return self.validator.fault(description, now)

    def replace_exposed(
        self, destination: str, positions: tuple[int, ...], rule: str, now: float
    ) -> list[Effect]:
        """MD-X1, MD-X2, MD-X3 (``rule``): the cards of ``destination`` (dealer, community) at
        ``positions`` (1-based) were exposed: they go back into the shuffler, which shuffles
        the rest and deals as many replacements, checked like any packet. Raises RoundError
        for positions ``destination`` does not hold."""
        hand = self._cards().get(destination, [])
        check_positions(destination, positions, len(hand), rule)
        back = tuple(hand[p - 1] for p in positions)
        self.validator.replace(destination, back, now)
        self.replaced.append((destination, positions))
        return [ReinsertCards(back), RequestPacket(destination, len(back))]

    def face_up_at(self, destination: str, positions: tuple[int, ...]) -> int:
        """How many of ``positions`` of ``destination`` hold a card the machine delivered
        face up: the validator's count of exposed cards has them already (MD-S3 counts a card
        once, however many report it)."""
        flags = self._placed(lambda p: p.face_up).get(destination, [])
        return sum(1 for p in set(positions) if 0 < p <= len(flags) and flags[p - 1])

    def _cards(self) -> dict[str, list[int | None]]:
        """The cards each destination holds."""
        return self._placed(lambda p: p.cards)

    def _placed(self, of: Callable[[Packet], Sequence[_T]]) -> dict[str, list[_T]]:
        """``of`` each card each destination holds: the packets of the plan, each replacement
        packet in the positions whose cards went back into the shuffler (MD-X1..X3)."""
        placed: dict[str, list[_T]] = {}
        delivered = self.validator.delivered
        for p in delivered[: self._planned]:
            placed.setdefault(p.destination, []).extend(of(p))
        for (destination, positions), p in zip(
            self.replaced, delivered[self._planned :], strict=False
        ):
            for position, value in zip(positions, of(p), strict=False):
                placed[destination][position - 1] = value
        return placed

    def poll(self, now: float) -> Verdict:
        return self.validator.poll(now)

    def next_deadline(self) -> float | None:
        return self.validator.next_deadline()

    @property
    def is_complete(self) -> bool:
        return self.validator.verdict.status == VerdictStatus.VERIFIED

    def unrecognised(self) -> bool:
        return any(c is None for p in self.validator.delivered for c in p.cards)

    def record(self, stakes: RoundStakes) -> dict[str, Any]:
        """The round as ``croupier settle`` reads it (docs/settle.md): the recognised cards,
        the sensed progressive stakes, the entered stakes and decisions, the pool."""
        cards = {
            dest: tuple(c for c in held if c is not None) for dest, held in self._cards().items()
        }
        seats = tuple(
            int(p.destination.split(":")[1])
            for p in self.validator.plan.packets
            if p.destination.startswith("seat:")
        )
        return holdem_record(self.profile, cards, seats, stakes)

    def delivered_order(self) -> list[int | None]:
        """The cards in the order the shuffler delivered them (for the shuffle audit)."""
        return [c for p in self.validator.delivered for c in p.cards]


# The rule of each place's count dealt by hand: a player's (MD-M3), the dealer's own (MD-M5),
# the board's five (UTH-3: hold'em dealt by hand is UTH, uth-sk and uth-it)
_COUNT_RULE = {DEALER: "MD-M5", COMMUNITY: "UTH-3"}


class ManualDeal:
    """A dealer dealing by hand (profile ``deal = "manual"``, e.g. uth-sk with its burns,
    UTH-11): nothing to count automatically. The dealer's CONFIRM says the initial deal is
    out (VERIFIED); the cards are entered (``croupier round cards``) before the showdown; a
    misdeal is declared by the dealer with its MD-M rule (``croupier round misdeal``)."""

    needs_confirm = True
    manual = True

    def __init__(self, profile: Profile, seats: tuple[int, ...], now: float):
        self.profile = profile
        self.seats = seats
        self.cards: dict[str, tuple[int, ...]] = {}
        self.dealt = False
        self.verdict = Verdict(VerdictStatus.OK)

    def plan_text(self) -> list[str]:
        return ["manual deal by the dealer (UTH-11): confirmed by the dealer, cards entered"]

    def start(self, now: float) -> list[Effect]:
        return []

    def expected_cards(self) -> dict[str, int]:
        wanted = {COMMUNITY: 5, DEALER: 2}
        wanted.update({seat_destination(s): 2 for s in self.seats})
        return wanted

    def confirm_dealt(self) -> Verdict:
        self.dealt = True
        self.verdict = Verdict(VerdictStatus.VERIFIED, None, "the dealer confirmed the manual deal")
        return self.verdict

    def replace_exposed(
        self, destination: str, positions: tuple[int, ...], rule: str, now: float
    ) -> list[Effect]:
        """MD-X1, MD-X2 dealt by hand: the dealer puts the exposed cards of ``destination``
        back into the remaining cards and deals new ones. The cards entered for that place
        are dropped: the dealer enters them again, the new ones with the others (RoundError
        for positions it does not hold)."""
        check_positions(destination, positions, self.expected_cards().get(destination, 0), rule)
        self.cards.pop(destination, None)
        return []

    def enter_cards(self, destination: str, cards: tuple[int, ...]) -> None:
        wanted = self.expected_cards()
        if destination not in wanted:
            raise RoundError(f"no {destination} in this round (seats {list(self.seats)})")
        if len(cards) != wanted[destination]:
            raise RoundError(
                f"{destination} holds {wanted[destination]} cards, got {len(cards)}",
                _COUNT_RULE.get(destination, "MD-M3"),
            )
        others = {c for d, cs in self.cards.items() if d != destination for c in cs}
        twice = [card_name(c) for c in cards if c in others]
        if twice or len(set(cards)) != len(cards):
            raise RoundError(
                f"{destination}: {', '.join(twice) or 'a card'} entered twice", "POK-1"
            )
        self.cards[destination] = cards

    def packet(self, packet: Packet, now: float) -> tuple[Verdict, list[Effect]]:
        return self.verdict, []  # a dealing machine's packet means nothing to a manual table

    def fault(self, description: str, now: float) -> Verdict:
        return self.verdict

    def poll(self, now: float) -> Verdict:
        return self.verdict

    def next_deadline(self) -> float | None:
        return None

    @property
    def is_complete(self) -> bool:
        return self.dealt

    def unrecognised(self) -> bool:
        return set(self.cards) != set(self.expected_cards())

    def record(self, stakes: RoundStakes) -> dict[str, Any]:
        return holdem_record(self.profile, self.cards, self.seats, stakes)

    def delivered_order(self) -> list[int | None]:
        return []


class ShoeDeal:
    needs_confirm = False  # the engine knows when the round is over

    def __init__(
        self,
        profile: Profile,
        wagers: Wagers,
        now: float,
        timeout: float,
        limits: Mapping[str, Limit] | None = None,
    ):
        # imported by a blackjack table only: a hand-forming table starts without them
        from controller.engine.games.blackjack.engine import BlackjackRound, Phase, SeatBet
        from controller.engine.games.blackjack.rules import BlackjackRules

        self.profile = profile
        self.limits = dict(limits or {})
        self._dealing, self._settled = Phase.DEAL, Phase.SETTLED
        bets = []
        for seat, (stakes, _decision) in sorted(wagers.items()):
            if "main" not in stakes:
                raise RoundError(f"seat {seat}: a blackjack seat needs a main bet", "BJ-1")
            bets.append(SeatBet(seat, stakes["main"], stakes.get("trilux", 0)))
        if not bets:
            raise RoundError("no seat has a main bet", "BJ-1")
        self.game = BlackjackRound(BlackjackRules.from_profile(profile, None, self.limits), bets)
        self.actions: dict[int, dict[str, list[str]]] = {}  # seat -> hand -> actions
        self.insurance: dict[int, int] = {}
        self.timeout = timeout
        self._last = now
        self.verdict = Verdict(VerdictStatus.OK)

    def plan_text(self) -> list[str]:
        return ["BJ-2: one card to each seat, one to the dealer, a second card to each seat"]

    def opening_stakes(self) -> dict[int, dict[str, int]]:
        """Each seat's main bet and Trilux as the table accepted them (BJ-1, TRX-1: capped at
        the maximum, the excess returned): taken at LOCK, they never change (a double or a
        split adds to them, an insurance comes later; the settlement records those)."""
        stakes = {}
        for play in self.game.seats:
            bet = play.bet
            stakes[bet.seat] = {"main": bet.main} | ({"trilux": bet.trilux} if bet.trilux else {})
        return stakes

    def stakes_now(self) -> dict[int, dict[str, int]]:
        """Each seat's stakes as the round holds them now (a double, a split, an insurance
        included): what a void returns (MD)."""
        return self.game.stakes()

    def start(self, now: float) -> list[Effect]:
        self._last = now
        return []  # the dealer draws from the shoe; the shoe reports each card

    def _misdeal(self, rule: str, reason: str) -> Verdict:
        self.verdict = Verdict(VerdictStatus.MISDEAL, rule, reason)
        return self.verdict

    def packet(self, packet: Packet, now: float) -> tuple[Verdict, list[Effect]]:
        if self.verdict.status == VerdictStatus.MISDEAL:
            return self.verdict, []
        self._last = now
        for card in packet.cards:
            if card is None:
                return self._misdeal("MD-S2", "the shoe did not recognise a card"), []
            if self.game.expected_cards() == 0:
                why = self.game.why_no_card()
                return self._misdeal("MD-S1", f"a card left the shoe when none was due ({why})"), []
            try:
                self.game.deal(card)
            except RoundError as exc:
                return self._misdeal("MD-S2" if exc.rule == "BJ-1" else "MD-S1", str(exc)), []
        if self.verdict.status == VerdictStatus.OK and self.game.phase != self._dealing:
            self.verdict = Verdict(VerdictStatus.VERIFIED, None, "initial deal verified (BJ-2)")
            return self.verdict, []
        return Verdict(self.verdict.status), []

    def decide(self, seat: int, action: str, amount: int = 0) -> None:
        """A player's decision: ``insurance`` (with an amount, 0 declines) or an action."""
        turn = self.game.turn()
        if turn is None or turn.seat != seat:
            whose = f"seat {turn.seat}" if turn else "nobody"
            raise RoundError(f"seat {seat} cannot act now: waiting for {whose}")
        if action == "insurance":
            self.game.insure(amount)
            if amount:
                self.insurance[seat] = amount
        else:
            hand = turn.hand or "main"
            self.game.act(action)
            self.actions.setdefault(seat, {}).setdefault(hand, []).append(action)

    def fault(self, description: str, now: float) -> Verdict:
        if self.verdict.status == VerdictStatus.MISDEAL or self.is_complete:
            return self.verdict
        return self._misdeal("MD-S2", f"shuffler fault during the round: {description}")

    def poll(self, now: float) -> Verdict:
        deadline = self.next_deadline()
        if deadline is not None and now >= deadline:
            due = self.game.expected_cards()
            return self._misdeal(
                "MD-S2", f"shoe malfunction: {due} card(s) due, none for {self.timeout:g} s"
            )
        return self.verdict

    def next_deadline(self) -> float | None:
        if self.verdict.status == VerdictStatus.MISDEAL or self.game.expected_cards() == 0:
            return None
        return self._last + self.timeout

    @property
    def is_complete(self) -> bool:
        return self.game.phase == self._settled

    def unrecognised(self) -> bool:
        return False

    def record(self, stakes: RoundStakes) -> dict[str, Any]:
        """The round as ``croupier settle`` reads it (docs/blackjack-round.md)."""
        seats = []
        for play in self.game.seats:  # the stakes as put down; the cap is replayed (BJ-1)
            seat_stakes = {"main": play.offered.main}
            if play.offered.trilux:
                seat_stakes["trilux"] = play.offered.trilux
            if play.seat in self.insurance:
                seat_stakes["insurance"] = self.insurance[play.seat]
            entry: dict[str, Any] = {"seat": play.seat, "stakes": seat_stakes}
            if play.seat in self.actions:
                entry["actions"] = self.actions[play.seat]
            seats.append(entry)
        record = {
            "game": "blackjack",
            "profile": self.profile.name,
            "decks": self.game.rules.decks,
            "shoe": " ".join(card_name(c) for c in self.game.cards),
            "seats": seats,
        }
        if self.limits:
            record["limits"] = limits_to_json(self.limits)
        return record

    def delivered_order(self) -> list[int | None]:
        return list(self.game.cards)
