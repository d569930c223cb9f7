"""The simulated table of ``make demo``: a :class:`~controller.rig.table.SimTable` with the
rig's hands on it (keys) or a robot dealer playing it (autoplay), seen as
:mod:`controller.rig.view` draws it.

:class:`LiveTable` keeps what the rig does between snapshots: the stakes it holds on the
sensors, the fault or royal armed for the next round, the last few actions. Autoplay runs the
:class:`~controller.rig.dealer.Dealer` on a thread of its own, a round after another, with
pauses so that people can follow (none when nobody watches); the keys of a person and the
autoplay do not mix: while autoplay is on, only the keys that change the next round act.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

from controller.errors import CroupierError
from controller.rig.dealer import Dealer, Fault, RoundPlan, RoundSeen, royal_order
from controller.rig.expect import lamp_pattern
from controller.rig.table import SimTable
from controller.rig.view import Snapshot, excluded_reason, short_reason
from controller.table.control.wire import ControlError
from drivers.errors import DriverError

# Faults a person can arm with the f key, in turn (the emulator's machine faults)
DEMO_FAULTS = (
    Fault("wrong count", "a seat gets 3 cards (MD-S1)", {"machine": {"wrong_count_at_packet": 2}}),
    Fault("jam", "the shuffler jams (MD-S2)", {"machine": {"jam_at_packet": 2}}),
    Fault(
        "2 face up",
        "two cards face up (MD-S3)",
        {"machine": {"exposed_at_packet": 1, "exposed_cards": 2}},
    ),
)
MAIN_BETS = {"ante": 1000, "blind": 1000, "trips": 500}  # EUR 10 + 10 + 5, entered by the tablet
PAUSES = {"staked": 1.0, "verified": 1.5, "settled": 3.0}  # seconds, when someone watches
LAMPS = ("green", "red", "beacon")
ERRORS = (CroupierError, DriverError, OSError)


class LiveTable:
    def __init__(
        self,
        table: SimTable,
        *,
        watched: bool = True,
        seed: int | None = None,
        on_message: Callable[[str], None] | None = None,
    ) -> None:
        self.table = table
        self.watched = watched
        self.on_message = on_message
        self.errors = 0
        self.rng = random.Random(seed)
        self.messages: deque[str] = deque(maxlen=4)
        self.stakes: set[int] = set()
        self.armed: Fault | None = None
        self.royal = False
        self.rounds = 0
        self.limit: int | None = None
        self.currency = table.config.profile.money.currency
        self._fault_index = 0
        self._stop = threading.Event()
        self._autoplay: threading.Thread | None = None
        # one robot dealer for every autoplay: what it leaves on the sensors when a round is
        # cut short (an error, a kill) it lifts at its next round, or when autoplay ends
        self.dealer = Dealer(table, pause=self._pause)
        self.left_out: dict[int, str] = {}  # the excluded seats autoplay last said it leaves out
        self.kills = 0  # kill -9s by the k key: a round they cut short is not autoplay's failure
        self._up = threading.Event()  # the daemon is not being killed and restarted (k)
        self._up.set()

    # --- what the rig sees ---------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        table = self.table
        try:
            status = table.status()
            sign = table.call("sign.state") if table.config.io and table.config.io.sign else None
            last = table.call("round.last")
        except (ControlError, OSError):
            return Snapshot(
                {
                    "state": "starting",
                    "table": table.config.table_id,
                    "profile": table.config.profile.name,
                    "pools": {},
                },
                messages=list(self.messages),
            )
        now = time.monotonic()
        wired = table.io.config.lamps if table.io is not None else {}
        names = [f"seat{s}" for s in status["seats"]] + list(LAMPS)
        lamps = {name: self._lamp(name, now) for name in names if name in wired}
        frame = table.sign_frame() if sign else None
        return Snapshot(
            status,
            frame,
            table.sign_text() if frame else None,
            lamps,
            last,
            self.currency,
            self._armed_text(),
            self._autoplay_text(),
            list(self.messages),
        )

    def _lamp(self, name: str, now: float) -> str:
        pattern = lamp_pattern(self.table, name, now)
        if pattern == "changing":  # it just went on or off: say which
            pattern = "on" if self.table.io and self.table.io.lamp_lit(name) else "off"
        return pattern

    def _armed_text(self) -> str:
        parts = [str(self.armed)] if self.armed else []
        return " + ".join(parts + (["a royal flush"] if self.royal else []))

    def _autoplay_text(self) -> str:
        if not self.autoplaying:
            return ""
        limit = f" of {self.limit}" if self.limit else ""
        return f"on, round {self.rounds + 1}{limit}"

    def say(self, text: str) -> None:
        self.messages.append(text)
        if self.on_message is not None:
            self.on_message(text)

    # --- the keys ------------------------------------------------------------------------

    def key(self, ch: str) -> bool:
        """Carry out one key; False to quit."""
        actions: dict[str, Callable[[], Any]] = {
            "l": lambda: self._tap("lock"),
            "c": lambda: self._tap("confirm"),
            "f": self.arm_fault,
            "r": self.arm_royal,
            "a": self.toggle_autoplay,
            "j": lambda: self._technician("jackpot.ack", "jackpot acknowledged"),
            "t": lambda: self._technician("shuffler.reset", "shuffler reset"),
            "x": self.clear_seats,
            "k": self.kill,
        }
        if ch in ("q", "\x03"):
            return False
        try:
            if ch.isdigit():
                self.toggle_stake(int(ch))
            elif ch in actions:
                actions[ch]()
        except ERRORS as exc:
            self.say(f"{ch}: {exc}".splitlines()[0])
        return True

    @property
    def autoplaying(self) -> bool:
        return self._autoplay is not None and self._autoplay.is_alive()

    def _manual(self) -> bool:
        if self.autoplaying:
            self.say("autoplay is on: press a to play yourself")
        return not self.autoplaying

    def toggle_stake(self, seat: int) -> None:
        if not self._manual() or self.table.io is None:
            return
        if f"seat{seat}" not in self.table.io.config.inputs:
            self.say(f"this table has no seat {seat}")
        elif seat in self.stakes:
            self.table.io.lift_stake(seat)
            self.stakes.discard(seat)
            self.say(f"stake lifted from seat {seat}")
        else:
            self.table.io.place_stake(seat)
            self.stakes.add(seat)
            self.say(f"stake placed on seat {seat}")

    def _tap(self, button: str) -> None:
        if self._manual():
            if button == "lock":
                self._arm_next_round(sorted(self.stakes))
            self.table.tap(button)
            self.say(f"{button.upper()} pressed")

    def arm_fault(self) -> None:
        self.armed = DEMO_FAULTS[self._fault_index % len(DEMO_FAULTS)]
        self._fault_index += 1
        self.say(f"armed for the next deal: {self.armed}")

    def arm_royal(self) -> None:
        self.royal = True
        self.say("the next deal gives the first staked seat a royal flush")

    def _arm_next_round(self, seats: list[int]) -> None:
        """Hand the armed fault and royal to the shuffler before a LOCK by hand."""
        self.table.emulate("clear")
        if self.armed is not None:
            self.table.emulate("faults", **self.armed.faults)
            self.armed = None
        if self.royal and seats:
            self.table.emulate(
                "arrange", cards=royal_order(tuple(seats), self.rng, community=False)
            )
            self.royal = False

    def _technician(self, cmd: str, done: str) -> None:
        self.table.call(cmd, privileged=True, technician="demo")
        self.say(done)

    def clear_seats(self) -> None:
        status = self.table.status()
        for seat, info in status["seats"].items():
            if info["excluded"]:
                self.table.call("seat.clear", privileged=True, seat=int(seat), technician="demo")
                self.say(f"seat {seat} cleared")

    def kill(self) -> None:
        """``kill -9`` the daemon and start it again. Autoplay goes on: the round it was
        playing fails on the lost control socket, and it waits for the restart (_up) and plays
        the next one (the one cut short is voided at start-up, MD-S2)."""
        self.say("kill -9 croupierd ... restarting")
        self._up.clear()
        self.kills += 1
        try:
            self.table.kill()
            self.table.start()
            recovered = self.table.status()["recovered_rounds"]
            self.say(f"restarted; voided at start-up (MD-S2): {', '.join(recovered) or 'nothing'}")
        finally:  # autoplay goes on from here, restarted or not
            self._up.set()

    # --- autoplay ------------------------------------------------------------------------

    def toggle_autoplay(self) -> None:
        if self.autoplaying:
            self._stop.set()
            self.say("autoplay stops after this round")
            return
        for seat in sorted(self.stakes):
            self.table.io.lift_stake(seat)
        self.stakes.clear()
        self.start_autoplay()

    def start_autoplay(self, limit: int | None = None) -> None:
        if self.table.config.profile.game != "uth":
            self.errors += 1
            self.say("autoplay plays Ultimate Texas Hold'em tables (config/sim.toml) only")
            return
        self.limit = limit
        self._stop.clear()
        self._autoplay = threading.Thread(
            target=self.autoplay, name="croupier-autoplay", daemon=True
        )
        self.say("autoplay on")  # before the thread, which may say at once why it cannot play
        self._autoplay.start()

    def stop_autoplay(self, timeout: float | None = None) -> None:
        """The table is being stopped: the robot dealer stops at once, its round in play cut
        short (the table's waits raise RigStopped), and says nothing of the table going away."""
        self._stop.set()
        self.table.stopping.set()
        if self._autoplay is not None:
            self._autoplay.join(timeout)

    def wait_autoplay(self) -> None:
        if self._autoplay is not None:
            self._autoplay.join()

    def _pause(self, moment: str) -> None:
        if self.watched:
            self._stop.wait(PAUSES[moment])

    def plan(self, free: Sequence[int] = range(1, 7)) -> RoundPlan:
        """The next round: 1 to 4 of the ``free`` seats staked (never an excluded seat: its
        sensor takes no stake), now and then the armed or a random fault, or a royal."""
        rng = self.rng
        seats = tuple(sorted(rng.sample(list(free), rng.randint(1, min(4, len(free))))))
        plan = RoundPlan(seats, main_bets=MAIN_BETS)
        if self.armed is not None or rng.random() < 0.15:
            plan.fault, self.armed = self.armed or rng.choice(DEMO_FAULTS), None
        elif self.royal or rng.random() < 0.03:
            plan.arrange, self.royal = royal_order(seats, rng, community=rng.random() < 0.3), False
        return plan

    def free_seats(self) -> list[int] | None:
        """The seats autoplay may stake: those not excluded. Says once which it leaves out
        and why; ``None`` (and says so at once) when every seat is excluded."""
        seats = self.table.status()["seats"]
        excluded = {int(s): info["excluded"] for s, info in seats.items() if info["excluded"]}
        free = [int(s) for s in seats if int(s) not in excluded]
        why = "; ".join(sorted({excluded_reason(r) or "sensor fault" for r in excluded.values()}))
        if not free:
            self.say(f"autoplay cannot play: every seat is excluded ({why}); x clears them")
            return None
        if excluded and excluded != self.left_out:  # in one line: the view says why in full
            which = ", ".join(str(s) for s in sorted(excluded))
            short = "/".join(sorted({short_reason(r) for r in excluded.values()}))
            self.say(f"autoplay leaves out excluded seat(s) {which} ({short}); x clears")
        self.left_out = excluded
        return free

    def autoplay(self) -> None:
        try:
            self._autoplay_rounds()
        finally:  # nothing of the robot's left on the sensors for the person at the keys
            with contextlib.suppress(*ERRORS):
                self.dealer.lift()

    def _autoplay_rounds(self) -> None:
        self.left_out = {}
        while not self._stop.is_set() and (self.limit is None or self.rounds < self.limit):
            kills = self.kills
            try:
                free = self.free_seats()
                if free is None:
                    self.errors += 1
                    return
                seen = self.dealer.play(self.plan(free))
            except ERRORS as exc:
                if self.table.stopping.is_set():  # RigStopped, or the daemon already stopped
                    return
                if self.kills != kills or not self._up.is_set():  # the k key's kill -9
                    if not self._wait_for_restart():
                        return
                    self.say("autoplay: the round was cut short by the kill -9; it goes on")
                    continue
                self.errors += 1
                self.say(f"autoplay stopped: {exc}".splitlines()[0])
                return
            self.rounds += 1
            self.say(describe(seen))

    def _wait_for_restart(self) -> bool:
        """Wait until the k key's restart is over; False if autoplay is stopped meanwhile."""
        while not self._up.wait(0.1):
            if self._stop.is_set() or self.table.stopping.is_set():
                return False
        return not self._stop.is_set()


def describe(seen: RoundSeen) -> str:
    what = {"settled": "settled", "voided": f"voided ({seen.rule})"}.get(seen.outcome, seen.outcome)
    fault = f", fault: {seen.plan.fault}" if seen.plan.fault else ""
    jackpot = ", JACKPOT" if seen.jackpot else ""
    return f"{seen.round_id}: seats {list(seen.plan.seats)} {what}{jackpot}{fault}"
