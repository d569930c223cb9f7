"""Header pins that an enabled Pi bus owns: a seat or button there would fight the bus.

A Pi's primary UART is on GPIO14 (TXD) and GPIO15 (RXD) and SPI0 on GPIO7-11. They belong to
the bus when ``/boot/firmware/config.txt`` enables it (``enable_uart=1``, ``dtparam=spi=on``,
``dtoverlay=uart0``/``spi0-...``; the install options of systemd/install.sh write these) or when
the table's shuffler is cabled to the Pi's own UART (``/dev/serial0``, ``/dev/ttyAMA0``,
``/dev/ttyS0``). The sign's SPI bus is reserved separately, by the sign's configuration
(:func:`drivers.sign.config.spi_pins`).

:func:`bus_pins` is pure (the config.txt text is an argument); the table configuration loader
reads the file where it exists.
"""

from __future__ import annotations

import re
from pathlib import Path

from drivers.sign.config import SPI_BUSES

BOOT_CONFIG = Path("/boot/firmware/config.txt")  # Pi OS bookworm; /boot/config.txt before
UART0 = {14: "TXD", 15: "RXD"}
PI_UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0")
_UART_ON = re.compile(r"^(enable_uart\s*=\s*1|dtoverlay\s*=\s*(uart0|miniuart-bt|disable-bt))\b")
_SPI_ON = re.compile(r"^(dtparam\s*=\s*(.*,)?spi\s*=\s*on|dtoverlay\s*=\s*spi0-)")


def _enabled(config_txt: str, pattern: re.Pattern[str]) -> str | None:
    """The first config.txt line matching (comments and blanks skipped). Lines of every
    conditional section count: a bus enabled for any board model may be enabled on this one."""
    for raw in config_txt.splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and pattern.match(line):
            return line
    return None


def bus_pins(config_txt: str | None, shuffler_port: str | None) -> dict[int, str]:
    """BCM pin -> why it is reserved, for the GPIO validator."""
    pins: dict[int, str] = {}
    uart = _enabled(config_txt or "", _UART_ON)
    if uart is not None:
        pins |= {p: f"UART {r}, enabled in {BOOT_CONFIG} ({uart})" for p, r in UART0.items()}
    elif shuffler_port in PI_UART_PORTS:
        pins |= {
            p: f"UART {r}, the shuffler's (shuffler.port = {shuffler_port})"
            for p, r in UART0.items()
        }
    spi = _enabled(config_txt or "", _SPI_ON)
    if spi is not None:
        pins |= {p: f"SPI0 {r}, enabled in {BOOT_CONFIG} ({spi})" for r, p in SPI_BUSES[0].items()}
    return pins


def read_boot_config(path: Path = BOOT_CONFIG) -> str | None:
    """config.txt where this is a Pi (None elsewhere or when unreadable)."""
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
