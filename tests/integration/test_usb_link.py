"""The USB transport's real pyusb code path against the emulator behind a pyusb backend."""

from __future__ import annotations

import asyncio
import random

import pytest
import usb.core

from drivers.errors import DeviceNotFound
from drivers.reconnect import Backoff
from drivers.shuffler_client import ShufflerClient
from drivers.transport import open_transport
from firmware_bridge.codes import ErrorCode
from firmware_bridge.emulator.control import handle_command
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import ShufflerMachine
from firmware_bridge.emulator.usb_backend import DEFAULT_PID, DEFAULT_VID, EmulatedUsbShuffler
from firmware_bridge.messages import FaultEvent
from firmware_bridge.session import DeviceEvent, LinkDownEvent, LinkUp

PORT = f"usb:{DEFAULT_VID:04x}:{DEFAULT_PID:04x}"


@pytest.fixture
def backend():
    return EmulatedUsbShuffler(DeviceFirmware(ShufflerMachine(2, rng=random.Random(8))))


def test_pyusb_finds_a_real_device_object(backend):
    dev = usb.core.find(idVendor=DEFAULT_VID, idProduct=DEFAULT_PID, backend=backend)
    assert isinstance(dev, usb.core.Device)
    intf = dev[0][(0, 0)]
    assert intf.bInterfaceClass == 0xFF
    assert sorted(ep.bEndpointAddress for ep in intf) == [0x01, 0x81]
    dev.set_configuration()
    with pytest.raises(usb.core.USBTimeoutError):
        dev.read(0x81, 64, 10)  # nothing to say yet: a real timeout


def test_client_over_usb_deals_and_gets_events(backend):
    async def scenario():
        client = ShufflerClient(open_transport(PORT, usb_backend=backend))
        await client.connect()
        assert client.identity.decks == 2
        await client.shuffle()
        packets = [await client.deal(n, tag) for n, tag in [(5, 0), (2, 1), (2, 7)]]
        handle_command(backend, {"cmd": "fault", "code": "JAM"})
        events = [await asyncio.wait_for(anext(client.events()), 5) for _ in range(2)]
        await client.close()
        return packets, events

    packets, events = asyncio.run(scenario())
    assert [p.count for p in packets] == [5, 2, 2]
    assert isinstance(events[0], LinkUp)
    assert isinstance(events[1], DeviceEvent) and isinstance(events[1].message, FaultEvent)
    assert events[1].message.code == ErrorCode.JAM


def test_unplug_and_replug_over_usb(backend):
    async def scenario():
        client = ShufflerClient(
            open_transport(PORT, usb_backend=backend), backoff=Backoff(initial=0.05)
        )
        await client.connect()
        backend.disconnect(0.3)
        seen = []
        while len(seen) < 3:
            seen.append(await asyncio.wait_for(anext(client.events()), 5))
        status = await client.status()
        await client.close()
        return seen, status

    seen, status = asyncio.run(scenario())
    assert [type(e) for e in seen] == [LinkUp, LinkDownEvent, LinkUp]
    assert status.cards_loaded == 104


def test_missing_usb_device_is_a_clear_error(backend):
    async def scenario():
        await ShufflerClient(open_transport("usb:dead:beef", usb_backend=backend)).connect()

    with pytest.raises(DeviceNotFound, match="no USB device usb:dead:beef"):
        asyncio.run(scenario())
