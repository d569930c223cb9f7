"""The daemon's shuffler link against the emulator on a pty: a jam is a malfunction (MD-S2)
reported before the short packet, the ``shuffler`` condition keeps the table closed until a
technician resets the machine, and an open door closes it too."""

from __future__ import annotations

import asyncio
import contextlib
import random

import pytest

from controller.engine.cards import card_name
from controller.table import shuffler_link
from controller.table.events import (
    ConditionChanged,
    PacketDelivered,
    RequestPacket,
    ShoeShuffled,
    ShuffleDeck,
    ShufflerFault,
)
from controller.table.shuffler_events import FaultStorm
from controller.table.shuffler_link import ResetShuffler, ShufflerLink
from drivers.shuffler_client import ShufflerClient
from drivers.transport import open_transport
from firmware_bridge.codes import ErrorCode
from firmware_bridge.emulator.firmware import DeviceFirmware, firmware_digest
from firmware_bridge.emulator.machine import MachineTiming, ShufflerMachine
from firmware_bridge.emulator.pty_runner import PtyEmulator
from firmware_bridge.errors import LinkTimeout
from firmware_bridge.messages import ShuffleMode

TIMEOUT = 5.0


@pytest.fixture
def emulator(tmp_path):
    fw = DeviceFirmware(ShufflerMachine(1, rng=random.Random(8)), rng=random.Random(9))
    emu = PtyEmulator(fw, str(tmp_path / "shuffler")).start()
    yield emu
    emu.stop()


class Posted:
    """The link's events, awaited one kind at a time."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue = asyncio.Queue()
        self.seen: list = []

    def post(self, event) -> None:
        self.queue.put_nowait(event)

    async def until(self, predicate):
        async with asyncio.timeout(TIMEOUT):
            while True:
                event = await self.queue.get()
                self.seen.append(event)
                if predicate(event):
                    return event


def shuffler_condition(blocking: bool):
    return lambda e: (
        isinstance(e, ConditionChanged) and e.name == "shuffler" and (e.blocking == blocking)
    )


def link_condition(blocking: bool):
    return lambda e: isinstance(e, ConditionChanged) and e.name == "link" and e.blocking == blocking


def run_link(emulator, scenario, shoe=False, wait_up=True):
    """``scenario(link, posted)`` on a started link; ``wait_up``: once the link is up."""

    async def main():
        posted = Posted()
        link = ShufflerLink(
            ShufflerClient(open_transport(emulator.link)),
            posted.post,
            firmware_allow={firmware_digest().hex()},
            shoe=shoe,
            card_name=card_name,
        )
        await link.start()
        try:
            if wait_up:
                await posted.until(link_condition(False))
            return await scenario(link, posted)
        finally:
            await link.close()

    return asyncio.run(main())


def test_a_jam_is_reported_before_its_short_packet_and_closes_until_reset(emulator):
    def jam_second_packet(fw, now):
        fw.machine.faults = fw.machine.faults.updated({"jam_at_packet": 2})

    emulator.call(jam_second_packet)

    async def scenario(link, posted):
        link.submit(ShuffleDeck())
        link.submit(RequestPacket("community", 5))
        link.submit(RequestPacket("seat:1", 2))
        first = await posted.until(lambda e: isinstance(e, PacketDelivered))
        fault = await posted.until(lambda e: isinstance(e, ShufflerFault | PacketDelivered))
        short = await posted.until(lambda e: isinstance(e, PacketDelivered))
        closed = await posted.until(shuffler_condition(True))
        link.submit(ResetShuffler("tech"))
        opened = await posted.until(shuffler_condition(False))
        return first, fault, short, closed, opened

    first, fault, short, closed, opened = run_link(emulator, scenario)
    assert first.packet.count == 5
    assert isinstance(fault, ShufflerFault) and "jam" in fault.description
    assert short.packet.count == 1  # half the packet before the jam
    assert "JAM active" in closed.detail and "croupier shuffler reset" in closed.detail
    assert opened.detail == ""


def test_an_open_door_closes_the_table_until_it_is_shut(emulator):
    async def scenario(link, posted):
        emulator.call(lambda fw, now: fw.set_door(True, now))
        closed = await posted.until(shuffler_condition(True))
        emulator.call(lambda fw, now: fw.set_door(False, now))
        await posted.until(shuffler_condition(False))
        return closed

    closed = run_link(emulator, scenario)
    assert "door is open" in closed.detail


def test_a_shoe_is_identified_and_shuffled_once_when_the_link_comes_up(emulator):
    """The session's LinkUp arrives during the first identify; answering it with a second one
    re-shuffled the shoe under an open table (the rig's arranged cards vanished)."""
    requests = []

    def count_requests(fw, now):
        execute = fw._execute
        fw._execute = lambda msg: (requests.append(type(msg).__name__), execute(msg))[1]

    emulator.call(count_requests)

    async def scenario(link, posted):
        # any request made now queues behind a second identify, were one on its way
        await link.client.status()
        await link.client.status()
        return list(requests)

    seen = run_link(emulator, scenario, shoe=True)
    assert seen.count("IdentifyRequest") == 1, seen
    assert seen.count("ShuffleRequest") == 1, seen


def test_a_shoe_that_refused_shoe_mode_is_identified_again_after_the_technicians_reset(emulator):
    """A misfeed active when the link comes up: the shoe refuses SHOE mode and the ``link``
    condition closes the table. The technician clears it and resets the machine: the link
    identifies again and opens (before, only a daemon restart did; found by ``croupier sim
    --profile trilux-gr --seed 10 --faults 0.3 --crash-rate 0.05``)."""
    emulator.call(lambda fw, now: fw.machine.raise_fault(ErrorCode.MISFEED))

    async def scenario(link, posted):
        refused = await posted.until(
            lambda e: link_condition(True)(e) and "shoe mode refused" in e.detail
        )
        # the link is quiet: every identify the link makes by itself has been refused
        # (LinkUp arrives during the first one), before the technician comes
        await asyncio.sleep(0.5)
        await link.client.status()
        link.submit(ResetShuffler("tech"))
        return refused, await posted.until(link_condition(False))

    refused, opened = run_link(emulator, scenario, shoe=True, wait_up=False)
    assert "MISFEED" in refused.detail
    assert opened.detail == ""


def test_a_shoe_at_its_cut_card_is_shuffled_in_shoe_mode_and_says_how_many_cards(emulator):
    """The table's ShuffleDeck on a shoe (its cut card: controller.table.shoe) puts every
    card back and shuffles in SHOE mode; identify and reshuffle both tell the table how many
    cards the shoe holds (before, only an identify shuffled a shoe, and it ran dry)."""

    async def scenario(link, posted):
        first = await posted.until(lambda e: isinstance(e, ShoeShuffled))
        await posted.until(link_condition(False))
        for _ in range(3):
            emulator.call(lambda fw, now: fw.draw_card(now))
        for _ in range(3):
            await posted.until(lambda e: isinstance(e, PacketDelivered))
        link.submit(ShuffleDeck())
        again = await posted.until(lambda e: isinstance(e, ShoeShuffled))
        emulator.call(lambda fw, now: fw.draw_card(now))
        card = await posted.until(lambda e: isinstance(e, PacketDelivered))
        state = emulator.call(lambda fw, now: (fw.machine.mode, len(fw.machine.stack)))
        return first, again, card, state

    first, again, card, (mode, stack) = run_link(emulator, scenario, shoe=True, wait_up=False)
    assert first == again == ShoeShuffled(52)
    assert card.packet.destination == "shoe"  # the new shoe's first card, in order
    assert mode == ShuffleMode.SHOE and stack == 51


def test_a_shoe_whose_reshuffle_failed_is_identified_again_and_shuffled(emulator, monkeypatch):
    monkeypatch.setattr(shuffler_link, "IDENTIFY_RETRY_FIRST", 0.05)

    async def scenario(link, posted):  # the link is up: identified, the shoe shuffled
        shuffle, failed = link.client.shuffle, []

        async def refused_once(mode):
            if not failed:
                failed.append(mode)
                raise LinkTimeout("SHUFFLE: no reply")
            return await shuffle(mode)

        link.client.shuffle = refused_once
        link.submit(ShuffleDeck())
        fault = await posted.until(lambda e: isinstance(e, ShufflerFault))
        return fault, await posted.until(lambda e: isinstance(e, ShoeShuffled)), failed

    fault, shuffled, failed = run_link(emulator, scenario, shoe=True)
    assert failed == [ShuffleMode.SHOE] and "no reply" in fault.description
    assert shuffled == ShoeShuffled(52)  # the identify tried again put the shoe in play


@pytest.fixture
def slow_shoe(tmp_path):
    """A shoe whose shuffle takes 1 s: long enough to be interrupted by a crash."""
    machine = ShufflerMachine(1, rng=random.Random(8), timing=MachineTiming(shuffle=1.0))
    emu = PtyEmulator(DeviceFirmware(machine, rng=random.Random(9)), str(tmp_path / "shoe"))
    emu.start()
    yield emu
    emu.stop()


def test_a_shoe_busy_when_the_daemon_starts_is_identified_once_it_is_free(slow_shoe):
    """The controller was killed while the shoe shuffled: at the next start its deck check and
    SHOE mode are answered NAK BUSY. The link tries again (IDENTIFY_RETRY_FIRST, doubling)
    and opens once the shoe is free (before, nothing identified it again and the table stayed
    closed until the daemon restarted; found by ``croupier sim --profile trilux-gr --rounds
    837 --seed 1 --faults 0.2 --crash-rate 0.01``)."""

    async def killed_while_shuffling():
        client = ShufflerClient(open_transport(slow_shoe.link))
        await client.connect(identify=True)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(client.shuffle(ShuffleMode.SHOE), 0.3)
        await client.close()

    asyncio.run(killed_while_shuffling())

    async def scenario(link, posted):
        refused = await posted.until(
            lambda e: link_condition(True)(e) and "shoe mode refused" in e.detail
        )
        return refused, await posted.until(link_condition(False))

    refused, opened = run_link(slow_shoe, scenario, shoe=True, wait_up=False)
    assert "BUSY" in refused.detail
    assert opened.detail == ""


def test_a_bouncing_door_is_one_storm_not_a_journal_entry_and_a_status_each(emulator):
    """A door switch bouncing 200 times: each FAULT was a ``shuffler-fault`` entry in the
    ledger's journal, a STATUS request and a condition change; now the first faults pass,
    the storm closes the table once (MD-S2 for a round being dealt), the rest are counted,
    and once the machine is quiet the STATUS it then asks opens the table again."""

    async def scenario(link, posted):
        link.storm = FaultStorm(limit=6, window=0.5)
        asked = []
        status = link.client.status

        async def counting():
            asked.append(1)
            return await status()

        link.client.status = counting
        for i in range(200):
            emulator.call(lambda fw, now, is_open=(i % 2 == 0): fw.set_door(is_open, now))
            await asyncio.sleep(0.001)
        await posted.until(lambda e: isinstance(e, ShufflerFault) and "faster than 6" in str(e))
        await posted.until(shuffler_condition(False))  # quiet for 0.5 s: the storm is over
        await asyncio.sleep(0.7)  # anything still to come
        while not posted.queue.empty():
            posted.seen.append(posted.queue.get_nowait())
        return posted.seen, asked

    seen, asked = run_link(emulator, scenario)
    faults = [e for e in seen if isinstance(e, ShufflerFault)]
    shuffler = [e for e in seen if isinstance(e, ConditionChanged) and e.name == "shuffler"]
    assert len(faults) <= 4 + 1, faults  # 3 door openings of the 6 faults let through + storm
    # the identify's, one per fault let through at most, the one after the storm
    assert len(asked) <= 1 + 6 + 1, len(asked)
    assert len(shuffler) <= 2 * 6 + 2, shuffler
    assert shuffler[-1].blocking is False  # the door ended shut: the table may open
    assert any("faster than 6 in 0.5 s" in e.detail for e in shuffler if e.blocking)


def test_a_status_that_fails_with_the_link_up_is_asked_again(emulator, monkeypatch):
    """The door shut, and the STATUS that would have said so timed out: the ``shuffler``
    condition kept the table closed on the open door (or a fault storm's end) until another
    fault came. A failed STATUS is now asked again while the link is up."""
    monkeypatch.setattr(shuffler_link, "STATUS_RETRY", 0.05)

    async def scenario(link, posted):
        emulator.call(lambda fw, now: fw.set_door(True, now))
        await posted.until(shuffler_condition(True))
        status = link.client.status
        failures = [LinkTimeout("STATUS timed out (simulated)")]

        async def failing_once():
            if failures:
                raise failures.pop()
            return await status()

        link.client.status = failing_once
        emulator.call(lambda fw, now: fw.set_door(False, now))
        return await posted.until(shuffler_condition(False)), failures

    opened, failures = run_link(emulator, scenario)
    assert failures == [] and opened.blocking is False


def test_failed_statuses_keep_one_retry_not_one_each(emulator, monkeypatch):
    """Each failed STATUS armed a retry of its own: a STATUS asked for another reason (a
    fault, a storm's end) while the machine did not answer STATUS started another chain of
    retries beside the first, so the command queue filled with STATUS, one chain more per
    trigger. One retry is pending at most (the last failure's), and close() cancels it."""
    monkeypatch.setattr(shuffler_link, "STATUS_RETRY", 0.05)

    async def scenario(link, posted):
        asked = []

        async def failing():
            asked.append(asyncio.get_running_loop().time())
            raise LinkTimeout("STATUS timed out (simulated)")

        link.client.status = failing
        link._want_status()
        for _ in range(6):  # other reasons to ask, between the retries
            await asyncio.sleep(0.03)
            link._want_status()
        await asyncio.sleep(0.05)
        before = len(asked)
        await asyncio.sleep(0.5)  # one chain asks about ten times in this
        return len(asked) - before

    assert run_link(emulator, scenario) <= 14
