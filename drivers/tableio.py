"""The table I/O configuration as a whole: ``[gpio]`` and ``[sign]`` checked together.

The daemon's configuration loader calls :func:`validate_table_io` with the two tables of
``table.toml``; the technician CLI does the same. The sign is read first because its SPI bus,
when it is on SPI, reserves pins that the GPIO map may then not use. Every problem of both
tables comes back in one :class:`~drivers.errors.HardwareConfigError`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from drivers.errors import HardwareConfigError, Problem
from drivers.gpio.pinmap import GpioConfig, read_gpio
from drivers.sign.config import SignConfig, read_sign, spi_pins


@dataclass(frozen=True)
class TableIO:
    gpio: GpioConfig
    sign: SignConfig | None


def validate_table_io(
    gpio: Mapping[str, Any] | None,
    sign: Mapping[str, Any] | None,
    currencies: Collection[str] = (),
    reserved: Mapping[int, str] | None = None,
) -> TableIO:
    """Validate both tables (``sign`` ``None``: the table has no sign). ``reserved``: pins an
    enabled bus owns (:func:`drivers.gpio.buses.bus_pins`). Raises
    :class:`HardwareConfigError` with every problem of both."""
    problems: list[Problem] = []
    sign_config = None if sign is None else read_sign(sign, problems, currencies)
    gpio_config = read_gpio(gpio, {**(reserved or {}), **spi_pins(sign_config)}, problems)
    if problems:
        raise HardwareConfigError(problems)
    return TableIO(gpio_config, sign_config)
