"""The table's GPIO wiring: the ``[gpio]`` table of the table configuration, validated.

Pins are BCM numbers. :func:`parse_gpio` reads the table (a plain ``dict``, as TOML gives it)
and reports **every** problem at once as a :class:`~drivers.errors.HardwareConfigError`, each
with its dotted key and reason: a pin outside 2..27, a pin used twice, a pin the sign's SPI bus
needs (passed in as ``reserved`` by :func:`drivers.tableio.validate_table_io`), another pull
than "up" on a pin with a fixed pull-up, unknown keys.

Inputs and outputs get stable names, used by events, lamps and the rig: ``seat1`` .. ``seat7``
(a seat's bet sensor, and its lamp), ``lock``, ``confirm``, ``key`` (the dealer console and the
technician key switch), ``green``, ``red``, ``beacon`` (status lamps).

Example (the reference wiring, :data:`REFERENCE_GPIO`)::

    [gpio]
    pin_factory = "auto"        # auto (lgpio or RPi.GPIO, what the board can use) | lgpio |
                                # rpigpio | mock | rig
    sensor_active = "low"       # level of a bet sensor with a stake on it
    debounce_ms = 30
    chatter_edges = 12          # more raw edges than this ...
    chatter_window_ms = 1000    # ... within this window = chatter
    seats = { 1 = { sensor = 4, lamp = 18 }, 2 = { sensor = 17, lamp = 23 } }  # up to 7
    console = { lock = 2, confirm = 3, key = 15 }
    lamps = { green = 19, red = 21, beacon = 26 }
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import HardwareConfigError, Problem
from drivers.settings import TableReader

FACTORY_NAMES = ("auto", "lgpio", "rpigpio", "mock", "rig")
MAX_SEATS = 7
CONSOLE_INPUTS = ("lock", "confirm", "key")
STATUS_LAMPS = ("green", "red", "beacon")
FIRST_PIN, LAST_PIN = 2, 27  # BCM GPIOs on the 40-pin header; 0 and 1 are the HAT ID EEPROM
FIXED_PULL_UP = {2: "I2C SDA", 3: "I2C SCL"}  # 1.8 kOhm pull-ups on the board


@dataclass(frozen=True)
class InputLine:
    """An input pin: ``active_high`` says which level means "stake on" / "pressed" / "key on";
    ``pull`` is the internal resistor (``None``: none, the board has its own)."""

    name: str
    pin: int
    active_high: bool
    pull: str | None

    def is_active(self, level: int | bool) -> bool:
        return bool(level) == self.active_high


@dataclass(frozen=True)
class OutputLine:
    name: str
    pin: int
    active_high: bool


@dataclass(frozen=True)
class GpioConfig:
    seats: tuple[int, ...]
    inputs: dict[str, InputLine]
    lamps: dict[str, OutputLine]
    pin_factory: str | None = None
    rig_socket: str | None = None
    sensor_debounce: float = 0.030
    button_debounce: float = 0.020
    chatter_edges: int = 12
    chatter_window: float = 1.0
    stuck_rounds: int = 1


REFERENCE_GPIO: dict[str, Any] = {
    "sensor_active": "low",
    "debounce_ms": 30,
    "chatter_edges": 12,
    "chatter_window_ms": 1000,
    "seats": {
        "1": {"sensor": 4, "lamp": 18},
        "2": {"sensor": 17, "lamp": 23},
        "3": {"sensor": 27, "lamp": 24},
        "4": {"sensor": 22, "lamp": 25},
        "5": {"sensor": 5, "lamp": 12},
        "6": {"sensor": 6, "lamp": 16},
        "7": {"sensor": 13, "lamp": 20},
    },
    "console": {"lock": 2, "confirm": 3, "key": 15},
    "lamps": {"green": 19, "red": 21, "beacon": 26},
}


def _level(reader: TableReader, name: str, default: str) -> bool | None:
    value = reader.choice(name, ("low", "high"), default)
    return None if value is None else value == "high"


def _pull(reader: TableReader, name: str, active_high: bool | None) -> str | None:
    default = "down" if active_high else "up"
    value = reader.choice(name, ("up", "down", "off"), default)
    return None if value == "off" else value


def _seat_number(key: str) -> bool:
    """``key`` names a seat: 1..MAX_SEATS in ASCII digits, without a leading zero."""
    return key.isascii() and key.isdigit() and key[0] != "0" and int(key) <= MAX_SEATS


def parse_gpio(
    table: Mapping[str, Any] | None, reserved: Mapping[int, str] | None = None
) -> GpioConfig:
    """Validate the ``[gpio]`` table. ``reserved`` maps pins that something else owns (the
    sign's SPI bus) to why. Raises :class:`HardwareConfigError` listing every problem."""
    problems: list[Problem] = []
    config = read_gpio(table, reserved or {}, problems)
    if problems:
        raise HardwareConfigError(problems)
    return config


def read_gpio(
    table: Mapping[str, Any] | None, reserved: Mapping[int, str], problems: list[Problem]
) -> GpioConfig:
    """:func:`parse_gpio` that appends its problems to ``problems`` (for a whole-file check)."""
    r = TableReader(table, "gpio", problems)
    factory = r.choice("pin_factory", FACTORY_NAMES, None)
    rig_socket = r.text("rig_socket", None)
    sensor_high = _level(r, "sensor_active", "low")
    sensor_pull = _pull(r, "sensor_pull", sensor_high)
    button_high = _level(r, "button_active", "low")
    button_pull = _pull(r, "button_pull", button_high)
    lamp_high = _level(r, "lamp_active", "high")
    timing: dict[str, Any] = {
        "sensor_debounce": (r.number("debounce_ms", 30, 1, 1000) or 30) / 1000,
        "button_debounce": (r.number("button_debounce_ms", 20, 1, 1000) or 20) / 1000,
        "chatter_edges": r.int("chatter_edges", 12, 2, 1000) or 12,
        "chatter_window": (r.number("chatter_window_ms", 1000, 100, 60_000) or 1000) / 1000,
        "stuck_rounds": r.int("stuck_rounds", 1, 1, 100) or 1,
    }

    inputs: dict[str, InputLine] = {}
    lamps: dict[str, OutputLine] = {}
    owners: dict[int, str] = {}

    def take(reader: TableReader, name: str) -> int | None:
        pin: int | None = reader.int(name, lo=FIRST_PIN, hi=LAST_PIN)
        if pin is None:
            return None
        if pin in owners:
            reader.problem(name, f"pin {pin} is already used by {owners[pin]}")
        elif pin in reserved:
            reader.problem(name, f"pin {pin} is reserved: {reserved[pin]}")
        owners.setdefault(pin, reader.key(name))
        return pin

    def add_input(
        reader: TableReader, key: str, name: str, high: bool | None, pull: str | None
    ) -> None:
        pin = take(reader, key)
        if pin is None or high is None:
            return
        if pin in FIXED_PULL_UP and pull != "up":
            fixed = FIXED_PULL_UP[pin]
            reader.problem(key, f"pin {pin} has a fixed pull-up ({fixed}): its pull must be 'up'")
        inputs[name] = InputLine(name, pin, high, pull)

    def add_lamp(reader: TableReader, key: str, name: str) -> None:
        pin = take(reader, key)
        if pin is not None and lamp_high is not None:
            lamps[name] = OutputLine(name, pin, lamp_high)

    seats_table = r.sub("seats")
    seats = []
    for key in sorted(seats_table.table, key=lambda k: (not k.isdigit(), k.zfill(3))):
        # as written in ASCII digits without a leading zero: "01" or "٣" beside 1 or 3 would
        # be a second wiring of one seat, one of them silently dropped
        if not _seat_number(key):
            seats_table.problem(key, f"a seat is a number 1..{MAX_SEATS} (digits, no leading 0)")
            seats_table.raw(key)
            continue
        seat = seats_table.sub(key)
        add_input(seat, "sensor", f"seat{int(key)}", sensor_high, sensor_pull)
        add_lamp(seat, "lamp", f"seat{int(key)}")
        seat.unknown_keys()
        seats.append(int(key))
    if not seats_table.table and seats_table.key("") not in {p.key for p in problems}:
        seats_table.problem("", f"at least one seat (1..{MAX_SEATS}) with a sensor and a lamp")

    console = r.sub("console")
    for name in CONSOLE_INPUTS:
        add_input(console, name, name, button_high, button_pull)
    console.unknown_keys()
    status = r.sub("lamps")
    for name in STATUS_LAMPS:
        add_lamp(status, name, name)
    status.unknown_keys()
    r.unknown_keys()
    return GpioConfig(tuple(seats), inputs, lamps, factory, rig_socket, **timing)
