"""GpioTable.refresh wakes the loop task only when the table core was commanded since its
last pass, or a lamp is to be written again (drivers/gpio/table.py): the lamps follow every
command as before, and an event that commanded nothing costs no pass."""

import asyncio
import copy

from gpiozero.pins.mock import MockFactory

from drivers.gpio.pinmap import REFERENCE_GPIO, parse_gpio
from drivers.gpio.table import GpioTable


def config():
    return parse_gpio(copy.deepcopy(REFERENCE_GPIO) | {"debounce_ms": 5})


async def settled(table):
    for _ in range(5):  # let the loop task run its pass
        await asyncio.sleep(0)
    return table._wake.is_set()


def test_refresh_wakes_after_a_command_only():
    async def scenario():
        async with GpioTable(config(), MockFactory()) as table:
            assert not await settled(table)
            table.refresh()  # nothing commanded since the last pass
            assert not table._wake.is_set()
            table.core.set_status_lamp("green", "on", 0.0)  # as the table core does
            table.refresh()
            assert table._wake.is_set()
            assert not await settled(table)
            assert table.lamp_levels()["green"] is True  # the pin followed the command
            table.refresh()
            assert not table._wake.is_set()

    asyncio.run(scenario())


def test_refresh_wakes_while_a_lamp_waits_to_be_written_again():
    async def scenario():
        async with GpioTable(config(), MockFactory()) as table:
            assert not await settled(table)
            table.lamp_faults["green"] = "OSError: Input/output error"
            table.refresh()
            assert table._wake.is_set()

    asyncio.run(scenario())


def test_every_command_counts():
    async def scenario():
        async with GpioTable(config(), MockFactory()) as table:
            core = table.core
            before = core.commands
            core.lock(0.0)
            core.round_boundary(0.0)
            core.set_status_lamp("red", "off", 0.0)
            core.clear(1, 0.0)
            assert core.commands == before + 4

    asyncio.run(scenario())
