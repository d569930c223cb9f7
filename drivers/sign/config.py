"""The sign's configuration: the ``[sign]`` table of the table configuration, validated.

Example (the reference sign, :data:`REFERENCE_SIGN`)::

    [sign]
    kind = "matrix"           # "matrix" (8x8 modules) | "seven-segment" (8-digit modules)
    cascaded = 8              # MAX7219 modules in the chain
    block_orientation = -90   # matrix modules: 0 | 90 | -90 | 180 (how each 8x8 is mounted)
    rotate = 0                # 0 | 2 (the whole sign upside down)
    reverse_blocks = false    # modules wired right to left
    brightness = 8            # 0..15, the MAX7219 intensity register
    frame_rate = 20           # frames per second at most, 1..60
    currency = "EUR"
    backend = "spi"           # "spi" (the real sign) | "dummy" | "capture" (PNG/GIF files)
    spi_port = 0              # /dev/spidev<port>.<device>
    spi_device = 0
    spi_speed_hz = 8000000
    capture = "sign.gif"      # capture backend: a .gif file, or a directory of numbered PNGs

With ``backend = "spi"`` the SPI bus pins are reserved for the sign
(:func:`spi_pins`): the GPIO validator refuses them for sensors or lamps.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import HardwareConfigError, Problem
from drivers.settings import TableReader

KINDS = ("seven-segment", "matrix")
BACKENDS = ("spi", "dummy", "capture")
# luma.core.interface.serial.spi accepts these clock rates only.
SPI_SPEEDS = tuple(
    int(mhz * 1_000_000) for mhz in (0.5, 1, 2, 4, 8, 16, 20, 24, 28, 32, 36, 40, 44, 48, 50, 52)
)
# Raspberry Pi SPI buses (BCM): clock, MOSI, MISO and chip selects. The kernel's spi0 overlay
# claims both chip selects; spi1 claims the ones enabled (we reserve all three).
SPI_BUSES = {
    0: {"SCLK": 11, "MOSI": 10, "MISO": 9, "CE0": 8, "CE1": 7},
    1: {"SCLK": 21, "MOSI": 20, "MISO": 19, "CE0": 18, "CE1": 17, "CE2": 16},
}
MAX_MODULES = 32


@dataclass(frozen=True)
class SignConfig:
    kind: str = "matrix"
    cascaded: int = 8
    block_orientation: int = -90
    rotate: int = 0
    reverse_blocks: bool = False
    brightness: int = 8
    frame_rate: float = 20.0
    currency: str = "EUR"
    backend: str = "spi"
    spi_port: int = 0
    spi_device: int = 0
    spi_speed_hz: int = 8_000_000
    capture: str = "sign.gif"
    roll_seconds: float = 2.0
    pool_seconds: float = 6.0

    @property
    def width(self) -> int:
        """Positions across the sign: digits (seven-segment) or columns (matrix)."""
        return 8 * self.cascaded

    def spi_bytes_per_frame(self) -> int:
        """Bytes a full frame costs on the bus: 8 digit registers x 2 bytes per module."""
        return 8 * 2 * self.cascaded


REFERENCE_SIGN: dict[str, Any] = {"kind": "matrix", "cascaded": 8, "block_orientation": -90}


def spi_pins(config: SignConfig | None) -> dict[int, str]:
    """Pins the sign owns: its SPI bus when it is on SPI, nothing otherwise."""
    if config is None or config.backend != "spi":
        return {}
    return {
        pin: f'SPI{config.spi_port} {role}, used by the sign (sign.backend = "spi")'
        for role, pin in SPI_BUSES[config.spi_port].items()
    }


def parse_sign(table: Mapping[str, Any] | None, currencies: Collection[str] = ()) -> SignConfig:
    """Validate the ``[sign]`` table; ``currencies`` lists the codes the renderer knows (empty:
    any three capital letters). Raises :class:`HardwareConfigError` listing every problem."""
    problems: list[Problem] = []
    config = read_sign(table, problems, currencies)
    if problems:
        raise HardwareConfigError(problems)
    return config


def read_sign(
    table: Mapping[str, Any] | None, problems: list[Problem], currencies: Collection[str] = ()
) -> SignConfig:
    """:func:`parse_sign` that appends its problems to ``problems`` (for a whole-file check)."""
    d = SignConfig()
    r = TableReader(table, "sign", problems)
    values: dict[str, Any] = {
        "kind": r.choice("kind", KINDS, d.kind),
        "cascaded": r.int("cascaded", d.cascaded, 1, MAX_MODULES),
        "block_orientation": r.choice("block_orientation", (0, 90, -90, 180), d.block_orientation),
        "rotate": r.choice("rotate", (0, 2), d.rotate),
        "reverse_blocks": r.bool("reverse_blocks", d.reverse_blocks),
        "brightness": r.int("brightness", d.brightness, 0, 15),
        "frame_rate": r.number("frame_rate", d.frame_rate, 1, 60),
        "currency": r.text("currency", d.currency),
        "backend": r.choice("backend", BACKENDS, d.backend),
        "spi_port": r.choice("spi_port", tuple(SPI_BUSES), d.spi_port),
        "spi_device": r.int("spi_device", d.spi_device, 0, 2),
        "spi_speed_hz": r.choice("spi_speed_hz", SPI_SPEEDS, d.spi_speed_hz),
        "capture": r.text("capture", d.capture),
        "roll_seconds": r.number("roll_seconds", d.roll_seconds, 0, 60),
        "pool_seconds": r.number("pool_seconds", d.pool_seconds, 1, 600),
    }
    r.unknown_keys()
    code = values["currency"]
    if code is not None and not (len(code) == 3 and code.isalpha() and code.isupper()):
        r.problem("currency", f'{code!r} is not an ISO 4217 code like "EUR"')
    elif code is not None and currencies and code not in currencies:
        r.problem("currency", f"the sign does not know {code!r} (known: {', '.join(currencies)})")
    port, device = values["spi_port"], values["spi_device"]
    if port is not None and device is not None:
        selects = [role for role in SPI_BUSES[port] if role.startswith("CE")]
        if device >= len(selects):
            r.problem("spi_device", f"SPI{port} has chip selects 0..{len(selects) - 1}")
    defaults = {k: getattr(d, k) for k in values}
    return SignConfig(**{k: defaults[k] if v is None else v for k, v in values.items()})
