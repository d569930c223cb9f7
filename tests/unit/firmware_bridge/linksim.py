"""A host session and the reference firmware joined by a simulated wire, on a fake clock.

Bytes written at time t arrive at t + ``latency`` (plus wire time at ``baud``). ``run()``
jumps the clock from deadline to deadline; no real time passes, so timing is exact.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import MachineTiming, ShufflerMachine
from firmware_bridge.framing import encode_frame
from firmware_bridge.messages import Message, Pong
from firmware_bridge.session import Completed, Failed, HostSession, LinkTiming, SessionEvent


class LinkSim:
    def __init__(
        self,
        *,
        decks: int = 1,
        seed: int = 1,
        timing: MachineTiming | None = None,
        latency: float = 0.001,
        baud: int = 115200,
        link: LinkTiming | None = None,
    ) -> None:
        self.now = 0.0
        self.latency = latency
        self.baud = baud
        self.rng = random.Random(seed)
        self.machine = ShufflerMachine(
            decks, rng=random.Random(seed), timing=timing or MachineTiming()
        )
        self.device = DeviceFirmware(self.machine, rng=random.Random(seed + 1))
        self.host = HostSession(link, nonce=0x5EED0000 + seed)
        self.to_device: list[tuple[float, bytes]] = []
        self.to_host: list[tuple[float, bytes]] = []
        self.events: list[SessionEvent] = []
        self.sent_by_host: list[tuple[float, bytes]] = []
        self.cable = True
        self.host.connection_made(self.now)
        self.pump()

    def _arrival(self, data: bytes) -> float:
        return self.now + self.latency + len(data) * 10 / self.baud

    def pump(self) -> None:
        """Move whatever is ready at ``now`` across the wire, both ways, until quiet."""
        while True:
            moved = False
            out = self.host.data_to_send()
            if out and self.cable:
                self.sent_by_host.append((self.now, out))
                self.to_device.append((self._arrival(out), out))
            out = self.device.data_to_send()
            if out and self.cable:
                self.to_host.append((self._arrival(out), out))
            for queue, receiver in ((self.to_device, self.device), (self.to_host, self.host)):
                while queue and queue[0][0] <= self.now:
                    receiver.receive_data(queue.pop(0)[1], self.now)
                    moved = True
            while (ev := self.host.next_event()) is not None:
                self.events.append(ev)
                moved = True
            if not moved:
                return

    def next_time(self) -> float | None:
        times = [self.host.next_deadline(), self.device.next_deadline()]
        times += [q[0][0] for q in (self.to_device, self.to_host) if q]
        return min((t for t in times if t is not None), default=None)

    def advance(self, until: float) -> None:
        """Run the link until the clock reaches ``until``."""
        self.pump()
        while True:
            t = self.next_time()
            if t is None or t > until:
                self.now = until
                break
            self.now = max(self.now, t)
            self.host.poll(self.now)
            self.device.poll(self.now)
            self.pump()
        self.host.poll(self.now)
        self.device.poll(self.now)
        self.pump()

    def run(self, stop: Callable[[], bool], limit: float = 60.0) -> None:
        end = self.now + limit
        while not stop():
            t = self.next_time()
            if t is None or t > end:
                raise AssertionError(f"condition not met by t={end:.3f}: {self.events[-5:]}")
            self.advance(t)

    def request(self, msg: Message, limit: float = 60.0) -> Completed | Failed:
        handle = self.host.submit(msg, self.now)
        self.pump()

        def done() -> bool:
            return any(
                isinstance(e, Completed | Failed) and e.handle == handle for e in self.events
            )

        self.run(done, limit)
        return next(
            e for e in self.events if isinstance(e, Completed | Failed) and e.handle == handle
        )

    def reply(self, msg: Message, limit: float = 60.0) -> Message:
        outcome = self.request(msg, limit)
        if isinstance(outcome, Failed):
            raise outcome.error
        return outcome.reply

    def of_type(self, cls: type) -> list:
        return [e for e in self.events if isinstance(e, cls)]


def frame(seq: int, msg: Message) -> bytes:
    """``msg`` framed as the device sends it, with SEQ ``seq``."""
    return encode_frame(seq, msg.TYPE, msg.encode())


def hostile_session() -> HostSession:
    """A host session whose link is up (the device answered its PING), fed bytes by a test
    as a hostile or broken device would send them."""
    session = HostSession(nonce=7)
    session.connection_made(0.0)
    session.receive_data(frame(0, Pong(boot_id=1, state=2)), 0.0)
    session.data_to_send()
    return session
