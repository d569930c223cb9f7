"""The emulator on a real pseudo-terminal: pyserial, the asyncio client, the control socket,
disconnect/reconnect, exclusive open, and the CLI in subprocesses."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import serial

from drivers.errors import PortBusy
from drivers.reconnect import Backoff
from drivers.serial_transport import SerialTransport
from drivers.shuffler_client import ShufflerClient
from drivers.transport import open_transport
from firmware_bridge.emulator.control import EmulatorControl, EmulatorControlServer
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import ShufflerMachine
from firmware_bridge.emulator.pty_runner import PtyEmulator
from firmware_bridge.errors import LinkDown
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.messages import (
    FaultEvent,
    IdentifyReply,
    IdentifyRequest,
    decode_message,
)
from firmware_bridge.session import DeviceEvent, LinkDownEvent, LinkUp

CROUPIER = [sys.executable, "-m", "controller.cli.main"]


@pytest.fixture
def emulator(tmp_path):
    fw = DeviceFirmware(ShufflerMachine(1, rng=random.Random(4)), rng=random.Random(5))
    emu = PtyEmulator(fw, str(tmp_path / "shuffler"), baud=115200).start()
    yield emu
    emu.stop()


def test_pyserial_speaks_to_the_emulator_through_the_symlink(emulator):
    with serial.Serial(emulator.link, 115200, timeout=2, exclusive=True) as port:
        port.write(encode_frame(1, IdentifyRequest.TYPE, IdentifyRequest(1, 42).encode()))
        decoder, frames = FrameDecoder(), []
        deadline = time.monotonic() + 2
        while not frames and time.monotonic() < deadline:
            frames = decoder.feed(port.read(port.in_waiting or 1))
    reply = decode_message(frames[0].type, frames[0].payload)
    assert isinstance(reply, IdentifyReply) and frames[0].seq == 1


def test_output_is_paced_at_the_baud_rate(tmp_path):
    """At 9600 baud a reply cannot arrive before its bytes and the request's had time to
    cross the wire (a lower bound: pacing can only make it later, never earlier)."""
    fw = DeviceFirmware(ShufflerMachine(1))
    request = encode_frame(1, IdentifyRequest.TYPE, IdentifyRequest(1, 42).encode())
    with (
        PtyEmulator(fw, str(tmp_path / "slow"), baud=9600) as emu,
        serial.Serial(emu.link, timeout=3) as port,
    ):
        decoder, received = FrameDecoder(), b""
        start = time.monotonic()
        port.write(request)
        while not decoder.feed(chunk := port.read(max(1, port.in_waiting))):
            received += chunk
            assert chunk, "no reply"
        elapsed = time.monotonic() - start
    floor = (len(request) + len(received) + len(chunk)) * 10 / 9600
    assert elapsed >= floor


def test_client_deals_and_survives_a_disconnect(emulator, tmp_path):
    control = EmulatorControlServer(emulator, str(tmp_path / "ctl")).start()

    async def scenario():
        client = ShufflerClient(open_transport(emulator.link), backoff=Backoff(initial=0.05))
        await client.connect()
        await client.shuffle()
        packets = [await client.deal(n, tag) for n, tag in [(5, 0), (2, 1), (2, 7)]]
        with EmulatorControl(str(tmp_path / "ctl")) as ctl:
            ctl.call("disconnect", seconds=0.3)
            events = []
            while not (events and isinstance(events[-1], LinkUp) and len(events) > 2):
                events.append(await asyncio.wait_for(anext(client.events()), 5))
            ctl.call("fault", code="MISFEED")
            fault = await asyncio.wait_for(anext(client.events()), 5)
            state = ctl.state()
        await client.close()
        return packets, events, fault, state

    try:
        packets, events, fault, state = asyncio.run(scenario())
    finally:
        control.stop()
    assert [p.count for p in packets] == [5, 2, 2]
    assert state["delivered"] == [c.card for p in packets for c in p.cards]
    assert [type(e) for e in events] == [LinkUp, LinkDownEvent, LinkUp]
    assert isinstance(fault, DeviceEvent) and isinstance(fault.message, FaultEvent)


def test_requests_fail_fast_while_unplugged(emulator):
    async def scenario():
        client = ShufflerClient(open_transport(emulator.link), backoff=Backoff(initial=5.0))
        await client.connect()
        emulator.disconnect(10)
        while client.link_up:
            await asyncio.sleep(0.01)
        try:
            with pytest.raises(LinkDown):
                await client.status()
        finally:
            await client.close()

    asyncio.run(scenario())


def test_second_exclusive_open_is_refused(emulator):
    async def scenario():
        first = SerialTransport(emulator.link)
        await first.open(lambda d: None, lambda e: None)
        try:
            with pytest.raises(PortBusy, match="in use"):
                await SerialTransport(emulator.link).open(lambda d: None, lambda e: None)
        finally:
            first.close()

    asyncio.run(scenario())


def _croupier(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CROUPIER, *args], capture_output=True, text=True, timeout=30)


def test_cli_against_the_emulator_process(tmp_path):
    link, ctl = tmp_path / "shuffler", tmp_path / "ctl"
    emu = subprocess.Popen(
        [*CROUPIER, "emulator", "--link", str(link), "--control", str(ctl), "--seed", "9"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert emu.stdout.readline().startswith(f"emulator: {link} -> /dev/pts/")
        info = _croupier("shuffler", "info", "--port", str(link))
        assert info.returncode == 0 and "CR-EMU" in info.stdout
        with EmulatorControl(str(ctl)) as control:
            control.call("deck", remove=[22])  # 22 = 7h
        deck = _croupier("shuffler", "deck-check", "--port", str(link))
        assert deck.stdout.strip() == "deck check: 51 cards, missing 7h"
        assert deck.returncode == 1
        assert _croupier("shuffler", "shuffle", "--port", str(link)).returncode == 0
        deal = _croupier("shuffler", "deal", "2", "--tag", "3", "--port", str(link), "--json")
        assert deal.returncode == 0 and '"count": 2' in deal.stdout
        bad = _croupier("shuffler", "status", "--port", str(tmp_path / "nope"))
        assert bad.returncode == 1 and bad.stderr.count("\n") == 1
        assert "does not exist" in bad.stderr
    finally:
        emu.send_signal(signal.SIGTERM)
        assert emu.wait(10) == 128 + signal.SIGTERM  # as every croupier command
    assert emu.stderr.read().endswith("emulator: stopped by SIGTERM\n")
    assert not os.path.lexists(link) and not Path(ctl).exists()


@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGINT], ids=["SIGHUP", "SIGINT"])
def test_the_emulator_stopped_by_a_signal_exits_128_plus_n(tmp_path, sig):
    """A shell user (or script) sees how the emulator ended; it cleans up as on SIGTERM."""
    link = tmp_path / "shuffler"
    emu = subprocess.Popen(
        [*CROUPIER, "emulator", "--link", str(link)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert emu.stdout.readline().startswith(f"emulator: {link} -> /dev/pts/")
    finally:
        emu.send_signal(sig)
        assert emu.wait(10) == 128 + sig
    name = signal.Signals(sig).name
    assert emu.stderr.read() == f"emulator: stopped by {name}\n"
    assert not os.path.lexists(link)
