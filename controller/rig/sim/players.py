"""The simulated dealer, players and technician: what people at the table do next, read from
what the table shows (its state, its conditions, whose turn it is), each action after a
think time drawn from the seed.

A round (:class:`RoundPlan`, drawn when the table opens): the seats that play, the faults the
seed injects into it (the shuffler's machine faults, a misdeal the dealer declares, cards
exposed after the deal (the dealer's: MD-X3 on uth-it, MD-X1 on uth-gr; the community's:
MD-X2 on uth-gr), a stuck stake, a chattering sensor, a pulled cable or a device reboot during
the deal), and for each fault the misdeal verdict the rules require
(:attr:`RoundPlan.allowed`) and whether the table must take or refuse an exposure
(:meth:`RoundPlan.exposure_refused`), and each seat's hold'em wagers and decision
(:attr:`RoundPlan.wagers`: Ante and Blind or Ante, a Trips or Bonus bet or none, a decision of
UTH-4's shorthand or CH-3's play or fold), drawn from a stream of their own. The dealer enters
every dealt seat's once the deal is verified, in the order the table dealt them, the first
seat's before the dealer's cards are exposed for MD-X1 or MD-X3 (the first player action;
MD-X3 is refused when that decision is the river's) and the others' after; blackjack
players play the basic strategy of the engine's strategy table (a player's choice, not the
table's accounting).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from controller.engine.cards import Card
from controller.engine.deal.validator import COMMUNITY, DEALER
from controller.engine.games.blackjack import Phase
from controller.engine.games.blackjack.strategy import choose
from controller.engine.games.holdem_round import uth_street
from controller.engine.profiles import CommunityExposure, DealerExposure
from controller.rig.dealer import royal_order
from controller.rig.sim.shuffler import FAST_MACHINE
from controller.table.deals import ManualDeal, ShoeDeal
from controller.table.events import (
    CardsExposed,
    Condition,
    DeclareMisdeal,
    EnterCards,
    EnterWagers,
    JackpotAck,
    SeatDecision,
)
from controller.table.machine import TableState
from controller.table.shuffler_events import ResetShuffler
from drivers.gpio.events import SeatState
from firmware_bridge.codes import ErrorCode
from firmware_bridge.emulator.faults import MachineFaults
from firmware_bridge.emulator.machine import MachineError

if TYPE_CHECKING:
    from controller.rig.sim.world import World

MAINS = (1000, 2000, 5000)
ROYALS = 0.01  # share of hold'em rounds dealt a royal flush on purpose (jackpots, resets)
CARD_WAIT = 3.0  # seconds a dealer waits for the table to see the card drawn
TRILUX = (0, 0, 100, 500)
# the misdeal a dealer declares for cards exposed in the deal: by hand one card is enough
# (MD-M2), from a shuffler it takes two (MD-S3)
EXPOSED_BY_HAND, EXPOSED_BY_SHUFFLER = "MD-M2", "MD-S3"
DECLARED_REASON = {
    EXPOSED_BY_HAND: "a card exposed face up during the deal",
    EXPOSED_BY_SHUFFLER: "two cards exposed face up during the deal",
}
EXPOSED_EARLY = "the dealer's two cards exposed before any player acted"
# the exposures of a Greek table (uth-gr), drawn from a stream of their own: the dealer's cards
# after the first player action (MD-X1) or, on a share of those, before any (refused), and
# community cards (MD-X2)
EXPOSURES = "exposures"
GREEK_DEALER, EARLY, GREEK_COMMUNITY = 0.3, 0.3, 0.3  # times the faults
DEALER_POSITIONS = ((1,), (2,), (1, 2))
# the players' hold'em wagers and decisions, drawn from a stream of their own (the same draws
# for every seat: one seat more or less shifts no other choice of the run)
WAGERS = "wagers"
SIDE_BETS = (0, 0, 500, 1000)  # a Trips (UTH-9) or Bonus (CH-7) bet, or none (0)
SIDE_BET = {"uth": "trips", "casino-holdem": "bonus"}
UTH_DECISIONS = ("4x", "3x", "2x", "1x", "fold")  # UTH-4's shorthand
CH_DECISIONS = ("play", "play", "play", "fold")  # CH-3: most players call
Wagers = dict[int, tuple[dict[str, int], str]]  # seat -> (stakes, decision)


@dataclass
class RoundPlan:
    seats: tuple[int, ...]
    machine: MachineFaults = field(default_factory=MachineFaults)
    declare: str | None = None  # a misdeal the dealer declares once the deal is in
    declare_reason: str = ""  # the dealer's words for it (DECLARED_REASON by default)
    # MD-X3 (uth-it): the dealer's cards exposed once the first seat's decision is in
    # (``expose_after``, set then: refused after a decision of the river, 1x or a fold, for
    # MD-X3 is "with only the flop shown")
    expose: bool = False
    expose_after: Any = None
    # MD-X1 (uth-gr): the dealer's cards (positions) exposed once a player's decision is in
    # (the first seat's wagers and decision, entered before the others'); with
    # ``expose_early`` before any decision instead: refused, and with both cards the dealer
    # declares MD-S3
    expose_dealer: tuple[int, ...] = ()
    expose_early: bool = False
    # hold'em: each seat's table wagers and decision, entered once the deal is verified
    wagers: Wagers = field(default_factory=dict)
    expose_community: tuple[int, ...] = ()  # MD-X2 (uth-gr): community positions exposed
    stuck: int | None = None  # a seat whose stake is left on its sensor after the round
    chatter: int | None = None  # a seat whose sensor chatters before LOCK
    pull_at: float | None = None  # seconds into the deal the cable is pulled (for 5 s)
    reboot_at: float | None = None  # seconds into the deal the device restarts
    royal: bool = False  # a royal flush arranged on top of the shuffle (the pool, PRG-3)
    slow: bool = False  # the shuffler deals too slowly: the packet times out (MD-S2)
    extra_card: bool = False  # shoe: a card drawn when none is due (MD-S1)
    misfeed: bool = False  # shoe: a misfeed fault during the round (MD-S2)
    allowed: set[str | None] = field(default_factory=set)  # the verdicts the rules allow
    must_void: bool = False  # a fault the round cannot settle through

    def fault_reached(self, packets: int) -> bool:
        """Did a deal of ``packets`` packets (one per destination) reach the machine's fault
        planned at its k-th packet (a jam, a wrong count, exposed cards)? A seat left out of
        the round (a chattering sensor excludes it) deals one packet fewer than planned, and a
        fault planned past the last packet never happens: nothing to void then. The faults
        with no packet (a slow machine, a declared misdeal) always happen."""
        f = self.machine
        at = f.jam_at_packet or f.wrong_count_at_packet or f.exposed_at_packet
        # a declared misdeal comes after the deal whatever the machine's fault did not reach
        return not at or packets >= at or self.declare is not None

    def exposure_refused(self, destination: str) -> bool:
        """Must the table refuse the exposure of ``destination``'s cards this plan makes?
        Only the dealer's, exposed before any player acted (MD-X1 needs a player action
        first) or after a decision of the river (MD-X3 is with only the flop shown); the
        others it replaces (MD-X1 after a decision, MD-X2, MD-X3)."""
        if destination != DEALER:
            return False
        if self.expose:  # MD-X3: with only the flop shown, not once the river's decision is in
            return uth_street(self.expose_after) == "river"
        return self.expose_early

    def machine_back_to_speed(self) -> None:
        """The table closed before this round was locked (a power-up's deck check took the
        slow machine's time, and the dealer set it back to speed): a slow plan's round is dealt
        at speed and may settle (found by the long ``make sim``: uth-gr seed 2, round 12,391)."""
        if self.slow:
            self.slow = self.must_void = False
            self.allowed.add(None)

    def describe(self) -> str:
        parts = [f"seats {list(self.seats)}"]
        for name in (
            "declare",
            "expose",
            "expose_dealer",
            "expose_community",
            "stuck",
            "chatter",
            "pull_at",
            "reboot_at",
        ):
            if getattr(self, name):
                parts.append(f"{name}={getattr(self, name)}")
        for name in ("expose_early", "royal", "slow", "extra_card", "misfeed"):
            if getattr(self, name):
                parts.append(name)
        for seat, (stakes, decision) in self.wagers.items():
            bets = " ".join(f"{name}={amount}" for name, amount in stakes.items())
            parts.append(f"seat {seat} {bets} {decision}")
        if self.machine != MachineFaults():
            parts.append(f"machine {self.machine}")
        return ", ".join(parts)


class Dealer:
    def __init__(self, world: World, rng: random.Random, faults: float) -> None:
        self.world = world
        self.rng = rng
        self.exposure_rng = world.streams(EXPOSURES)  # drawn by uth-gr's plans only
        self.wager_rng = world.streams(WAGERS)  # drawn by the hold'em plans only
        self.faults = faults
        self.next_at = 0.0
        self.plan: RoundPlan | None = None
        self.placed: set[int] = set()  # seats whose stake is on the sensor
        self.locks = 0
        self.dealing_since: float | None = None
        self.done: set[str] = set()  # one-off actions of the round already taken
        self.drawn = 0  # cards drawn from the shoe this round
        self.drawn_at = 0.0
        self.in_round: str | None = None  # the round the table played with this plan
        self.wagered: list[int] = []  # seats whose hold'em wagers are entered this round

    # --- planning --------------------------------------------------------------------------

    def _plan(self) -> RoundPlan:
        w, rng, f = self.world, self.rng, self.faults
        seats = sorted(rng.sample(w.seat_numbers, rng.randint(1, min(4, len(w.seat_numbers)))))
        plan = RoundPlan(tuple(seats), wagers=self._wagers(seats))
        plan.allowed = {None}
        plan.royal = w.hand_forming and bool(w.config.pools) and rng.random() < ROYALS
        if rng.random() < f * 0.5 and w.hand_forming:
            packets = 2 + len(seats)
            k = rng.randint(1, packets)
            kind = rng.choice(("jam", "count", "exposed", "exposed1"))
            plan.must_void = kind != "exposed1"
            if kind == "jam":
                plan.machine, plan.allowed = MachineFaults(jam_at_packet=k), {"MD-S2"}
            elif kind == "count":
                plan.machine, plan.allowed = MachineFaults(wrong_count_at_packet=k), {"MD-S1"}
            elif kind == "exposed":
                plan.machine = MachineFaults(exposed_at_packet=k, exposed_cards=2)
                plan.allowed = {"MD-S3"}
            else:  # one card exposed: a note, not a misdeal (MD-S3 needs two)
                plan.machine = MachineFaults(exposed_at_packet=k, exposed_cards=1)
        elif rng.random() < f * 0.1 and w.hand_forming:
            plan.slow, plan.allowed, plan.must_void = True, {"MD-S2"}, True
        elif rng.random() < f * 0.2 and not w.shoe:
            # cards exposed, declared by the rule of the table's deal mode
            rule = EXPOSED_BY_HAND if w.manual else EXPOSED_BY_SHUFFLER
            plan.declare, plan.allowed, plan.must_void = rule, {rule}, True
        # the shoe's faults come when the dealer acts: a round that plays out first settles
        if w.shoe and rng.random() < f * 0.2:
            plan.extra_card, plan.allowed = True, {None, "MD-S1"}
        elif w.shoe and rng.random() < f * 0.1:
            plan.misfeed, plan.allowed = True, {None, "MD-S2"}
        if w.profile.options.get("dealer_exposure") == DealerExposure.REINSERT and (
            rng.random() < f * 0.3
        ):
            plan.expose = True
        if rng.random() < f * 0.05:
            plan.stuck = rng.choice(seats)
        if rng.random() < f * 0.03:
            plan.chatter = rng.choice(w.seat_numbers)
        if w.has_shuffler and rng.random() < f * 0.05:
            plan.pull_at = rng.uniform(0.0, 2.0)
            plan.allowed = plan.allowed | {"MD-S2"}
        elif w.has_shuffler and rng.random() < f * 0.03:
            plan.reboot_at = rng.uniform(0.0, 2.0)
            plan.allowed = plan.allowed | {"MD-S2"}
        if w.line_faulty and w.has_shuffler:
            plan.allowed.add("MD-S2")  # a request lost for good is a malfunction
        self._plan_greek_exposures(plan)
        return plan

    def _wagers(self, seats: list[int]) -> Wagers:
        """Each hold'em seat's table wagers and decision (none on a shoe: its players bet
        at OPEN and decide hand by hand). Three draws a seat from their own stream."""
        game = self.world.profile.game
        if game not in SIDE_BET:
            return {}
        rng, uth = self.wager_rng, game == "uth"
        wagers: Wagers = {}
        for seat in seats:
            ante, side = rng.choice(MAINS), rng.choice(SIDE_BETS)
            decision = rng.choice(UTH_DECISIONS if uth else CH_DECISIONS)
            stakes = {"ante": ante, "blind": ante} if uth else {"ante": ante}  # UTH-2, CH-2
            if side:
                stakes[SIDE_BET[game]] = side
            wagers[seat] = (stakes, decision)
        return wagers

    def _plan_greek_exposures(self, plan: RoundPlan) -> None:
        """MD-X1 and MD-X2 on a table whose profile has them (uth-gr), dealt by a shuffler.
        Drawn from their own stream, after the dealer's draws: the other profiles draw
        nothing from it, so their seeds replay as before (uth-gr's rounds change once an
        exposure is played: the dealer's think times follow the table)."""
        w, f = self.world, self.faults
        options = w.profile.options
        greek_dealer = options.get("dealer_exposure") == DealerExposure.AFTER_ACTION
        greek_community = options.get("community_exposure") == CommunityExposure.REPLACE
        if not w.hand_forming or not (greek_dealer or greek_community):
            return
        rng = self.exposure_rng
        dealer, early, community = rng.random(), rng.random(), rng.random()
        positions = rng.choice(DEALER_POSITIONS)
        board = tuple(sorted(rng.sample(range(1, 6), rng.randint(1, 5))))
        if plan.declare is not None:
            return  # the dealer declares the round void as soon as it is verified
        if greek_community and community < f * GREEK_COMMUNITY:
            plan.expose_community = board
        if greek_dealer and dealer < f * GREEK_DEALER:
            plan.expose_dealer = positions
            if early >= EARLY:
                return  # after the first seat's decision
            plan.expose_early = True
            if len(positions) == 2:  # two cards exposed with a shuffler: MD-S3, declared
                plan.declare, plan.declare_reason = EXPOSED_BY_SHUFFLER, EXPOSED_EARLY
                plan.allowed = (plan.allowed - {None}) | {EXPOSED_BY_SHUFFLER}
                plan.must_void = True

    # --- acting ----------------------------------------------------------------------------

    def think(self, low: float = 0.2, high: float = 1.0) -> None:
        self.next_at = self.world.now + self.rng.uniform(low, high)

    def act(self) -> None:
        """One action (or none) for the table as it is now; sets :attr:`next_at`."""
        w = self.world
        m = w.machine
        state = m.state
        self.think()
        if state not in (TableState.OPEN, TableState.LOCKED, TableState.DEALING):
            w.shuffler.machine.timing = FAST_MACHINE  # a slow machine is a fault of the deal
            if self.plan is not None and self.in_round is None:
                self.plan.machine_back_to_speed()
        if m.round is not None:
            self.in_round = m.round.round_id
        elif self.in_round is not None:  # the round is over (or a crash dropped it)
            self.new_round()
        if state is TableState.OPEN:
            self._open()
        elif state is TableState.CLOSED:
            self._closed()
        elif state in (TableState.LOCKED, TableState.DEALING):
            self._dealing()
        elif state is TableState.VERIFIED:
            self._verified()
        elif state in (TableState.SETTLED, TableState.VOID):
            stuck = self.plan.stuck if self.plan else None
            for seat in list(self.placed):
                if seat != stuck:
                    self._lift(seat)
            w.press("confirm")
        elif state is TableState.JACKPOT:
            w.jackpots += 1
            w.post(JackpotAck("sim technician"))

    def new_round(self) -> None:
        self.plan = None
        self.locks = 0
        self.dealing_since = None
        self.done = set()
        self.drawn = 0
        self.in_round = None
        self.wagered = []

    def _clear_excluded(self) -> bool:
        w = self.world
        excluded = [s for s, st in w.sensors.seat_states().items() if st is SeatState.EXCLUDED]
        if not excluded:
            return False
        for seat in excluded:
            self._lift(seat)
        now = w.now
        w.console.set("key", True, now)
        w.console.press("confirm", now + 0.05)
        w.console.set("key", False, now + 0.2)
        self.next_at = now + 0.5
        return True

    def _open(self) -> None:
        w = self.world
        if self.plan is None:
            if self._clear_excluded():
                return
            self._lift_all()
            self.plan = plan = self._plan()
            w.begin_round(plan)
            w.shuffler_faults(plan.machine, slow=plan.slow)
            if plan.royal:
                order = royal_order(plan.seats, self.rng, community=self.rng.random() < 0.5)
                w.shuffler.machine.arrange(order)
            if plan.chatter is not None:
                w.console.chatter(f"seat{plan.chatter}", w.config.io.gpio.chatter_edges + 2, w.now)
            for seat in plan.seats:
                self._place(seat)
                if w.shoe:
                    main = self.rng.choice(MAINS)
                    stakes = {"main": main}
                    trilux = self.rng.choice(TRILUX)
                    if trilux:
                        stakes["trilux"] = trilux
                    w.post(EnterWagers(seat, stakes))
            return
        self.locks += 1
        if self.locks > 3:  # nothing sensed (every seat excluded, say): start over
            self._lift_all()
            w.abandon_round()
            self.new_round()
            return
        w.press("lock")

    def _closed(self) -> None:
        w = self.world
        conditions = w.machine.conditions
        if Condition.SHUFFLER in conditions and "reset" not in self.done:
            self.done.add("reset")
            w.shuffler.submit(ResetShuffler("sim technician"), None, w.now)
            self.next_at = w.now + 3.0
        elif Condition.DECK in conditions and "deck" not in self.done:
            self.done.add("deck")
            w.shuffler.submit_check_deck(w.now)
            self.next_at = w.now + 3.0
        elif not self._clear_excluded():
            self.done.discard("reset")
            self.done.discard("deck")
            self.next_at = w.now + 2.0

    def _dealing(self) -> None:
        w, plan = self.world, self.plan
        if plan is None:
            return
        if self.dealing_since is None:
            self.dealing_since = w.now
        for seat in list(self.placed):
            if seat != plan.stuck and not w.shoe:
                self._lift(seat)  # the stake stays in the round (PRG-2)
        since = w.now - self.dealing_since
        if plan.pull_at is not None and "pull" not in self.done and since >= plan.pull_at:
            self.done.add("pull")
            w.pull_cable(5.0)
        if plan.reboot_at is not None and "reboot" not in self.done and since >= plan.reboot_at:
            self.done.add("reboot")
            w.shuffler.reboot(w.now)
        r = w.machine.round
        if r is None:
            return
        if isinstance(r.deal, ManualDeal):
            self._manual(r.deal)
        elif isinstance(r.deal, ShoeDeal):
            self._shoe(r.deal)
        self.next_at = w.now + self.rng.uniform(0.05, 0.3)

    def _manual(self, deal: ManualDeal) -> None:
        w = self.world
        if "cards" in self.done:
            w.press("confirm")  # the dealer confirms the manual deal
            return
        self.done.add("cards")
        cards = w.manual_deck()
        for dest, count in deal.expected_cards().items():
            w.post(EnterCards(dest, tuple(cards.pop() for _ in range(count))))

    def _shoe(self, deal: ShoeDeal) -> None:
        w, plan = self.world, self.plan
        assert plan is not None
        game = deal.game
        if plan.misfeed and "misfeed" not in self.done and len(game.cards) >= 2:
            self.done.add("misfeed")
            w.shuffler.device.raise_fault(ErrorCode.MISFEED, "misfeed", w.now)
            return
        if self.drawn > len(game.cards) and w.now - self.drawn_at < CARD_WAIT:
            return  # the card drawn has not reached the table yet: a dealer waits for it
        self.drawn = len(game.cards)
        due = game.expected_cards()
        if due == 0 and plan.extra_card and "extra" not in self.done and len(game.cards) >= 3:
            self.done.add("extra")
            due = 1
        if due:
            try:
                w.shuffler.device.draw_card(w.now)
            except MachineError:
                return  # a shoe in fault: the technician resets it
            self.drawn += 1
            self.drawn_at = w.now
            return
        turn = game.turn()
        if turn is None:
            return
        if turn.kind is Phase.INSURANCE:
            w.post(SeatDecision(turn.seat, "insurance", 0))
            return
        up = game.dealer.cards[0] if game.dealer.cards else Card(0)
        action = choose(game.current_hand(), int(up), game.legal_actions())
        w.post(SeatDecision(turn.seat, action))

    def _verified(self) -> None:
        w, plan = self.world, self.plan
        r = w.machine.round
        if plan is None or r is None:
            return
        if isinstance(r.deal, ShoeDeal):
            self._dealing()
            return
        if plan.expose_early and "early" not in self.done:
            self.done.add("early")  # before any decision: the table refuses it (MD-X1)
            w.post(CardsExposed(plan.expose_dealer, DEALER))
            return
        if plan.declare and "declare" not in self.done:
            self.done.add("declare")
            reason = plan.declare_reason or DECLARED_REASON[plan.declare]
            w.post(DeclareMisdeal(plan.declare, reason))
            return
        if plan.expose_community and "community" not in self.done:
            self.done.add("community")
            w.post(CardsExposed(plan.expose_community, COMMUNITY))
            return
        # the players act in the order the table dealt them: the first seat's decision is
        # the first player action, the dealer's cards exposed after it (MD-X1), then the rest
        waiting = [s for s in r.seats if s in plan.wagers and s not in self.wagered]
        exposing = plan.expose_dealer and not plan.expose_early and "dealer" not in self.done
        italian = plan.expose and "expose" not in self.done  # MD-X3, likewise
        if waiting and not ((exposing or italian) and self.wagered):
            seat = waiting[0]
            self.wagered.append(seat)
            stakes, decision = plan.wagers[seat]
            w.post(EnterWagers(seat, stakes, decision))
            return
        if italian:
            self.done.add("expose")
            plan.expose_after = plan.wagers[self.wagered[0]][1] if self.wagered else None
            w.post(CardsExposed((1, 2)))
            return
        if exposing:
            self.done.add("dealer")
            w.post(CardsExposed(plan.expose_dealer, DEALER))
            return
        w.press("confirm")

    # --- stakes on the sensors -------------------------------------------------------------

    def _place(self, seat: int) -> None:
        self.world.console.set(f"seat{seat}", True, self.world.now)
        self.placed.add(seat)

    def _lift(self, seat: int) -> None:
        self.world.console.set(f"seat{seat}", False, self.world.now)
        self.placed.discard(seat)

    def _lift_all(self) -> None:
        for seat in list(self.placed):
            self._lift(seat)
