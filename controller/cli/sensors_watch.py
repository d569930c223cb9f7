"""The work of ``croupier sensors watch`` (controller/cli/sensors_cmd.py): its own module, so
that the command's parser (``--help``, a usage error) imports neither asyncio nor the GPIO
drivers."""

from __future__ import annotations

import argparse
import asyncio
import json
import time

from controller.cli.hardware import say
from drivers.gpio.events import ButtonPressed, KeySwitched, SeatState, TableEvent
from drivers.gpio.pinmap import GpioConfig
from drivers.gpio.table import GpioTable

TYPE_CHECKING = False
if TYPE_CHECKING:  # gpiozero is first imported by drivers.gpio (drivers/gpio/deferred_imports.py)
    from gpiozero.pins import Factory

SEAT_MARK = {
    SeatState.AWAITING: "-",
    SeatState.STAKE_PLACED: "S",
    SeatState.LOCKED: "L",
    SeatState.EXCLUDED: "X",
    SeatState.WINNER: "W",
}


async def watch(args: argparse.Namespace, gpio: GpioConfig, factory: Factory, source: str) -> None:
    start = time.monotonic()
    async with GpioTable(gpio, factory, report_edges=args.edges) as table:
        if not args.json:
            pins = ", ".join(f"{n}={line.pin}" for n, line in gpio.inputs.items())
            factory_name = args.pin_factory or gpio.pin_factory or "default"
            say(f"sensors watch: {source}, pin factory {factory_name}")
            say(f"  inputs (BCM): {pins}")
            say(
                f"  debounce {gpio.sensor_debounce * 1000:g} ms,"
                f" chatter > {gpio.chatter_edges} edges in {gpio.chatter_window:g} s"
            )
            say("  seats: - awaiting, S stake placed, L locked, X excluded, W winner")
            say(f"{0.0:9.3f}  {'watching':<44} {seat_row(table)}")
        else:  # scripts (and the rig) know from this line that every input is watched
            say(json.dumps({"event": "watching", "t": 0.0, "seats": seat_states(table)}))
        key_on = False
        count = 0
        deadline = None if args.duration is None else start + args.duration
        while args.events is None or count < args.events:
            timeout = None if deadline is None else deadline - time.monotonic()
            if timeout is not None and timeout <= 0:
                break
            try:
                async with asyncio.timeout(timeout):
                    event = await table.next_event()
            except TimeoutError:
                break
            count += 1
            key_on = run_round_flow(table, event, key_on)
            show(args, table, event, start)


def run_round_flow(table: GpioTable, event: TableEvent, key_on: bool) -> bool:
    """The daemon's use of the console, for a technician's check. Returns the key state."""
    if isinstance(event, KeySwitched):
        return event.on
    if isinstance(event, ButtonPressed) and event.button == "lock":
        table.lock()
    elif isinstance(event, ButtonPressed) and event.button == "confirm":
        if key_on:
            for seat, state in table.seat_states().items():
                if state is SeatState.EXCLUDED:
                    table.clear(seat)
        else:
            table.round_boundary()
    return key_on


def seat_row(table: GpioTable) -> str:
    return "[" + " ".join(f"{n}:{SEAT_MARK[s]}" for n, s in table.seat_states().items()) + "]"


def seat_states(table: GpioTable) -> dict[str, str]:
    return {str(n): s.value for n, s in table.seat_states().items()}


def show(args: argparse.Namespace, table: GpioTable, event: TableEvent, start: float) -> None:
    t = event.at - start
    if args.json:
        say(json.dumps({**event.as_dict(), "t": round(t, 6), "seats": seat_states(table)}))
    else:
        say(f"{t:9.3f}  {event.describe():<44} {seat_row(table)}")
