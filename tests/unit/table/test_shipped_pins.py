"""The shipped table examples keep their pins off the Pi's buses as systemd/install.sh enables
them (ENABLE_UART=1: enable_uart=1, ENABLE_SPI=1: dtparam=spi=on): the key switch is no longer
on GPIO15, the UART's RXD. Only ch-bg, seven seats and a sign on SPI0, has no free pin left
with the UART on: its shuffler is on USB, so its UART stays off (its comment says so)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.table.tableconfig import parse_table_config
from controller.validation import ConfigError

CONFIG = Path(__file__).resolve().parents[3] / "config"
UART = "enable_uart=1\n"
SPI = "dtparam=spi=on\n"


def pin_problems(name: str, boot: str) -> dict[str, str]:
    """The ``gpio.*`` problems of a shipped example under ``boot`` (its placeholder firmware
    allow-list is refused anyway: not a pin problem)."""
    data = tomllib.loads((CONFIG / name).read_text())
    try:
        parse_table_config(data, name, boot_config=boot)
    except ConfigError as exc:
        return {k: v for k, v in exc.problems if k.startswith(("gpio", "sign"))}
    return {}


def boot_of(name: str, *, uart: bool = True) -> str:
    data = tomllib.loads((CONFIG / name).read_text())
    on_spi = data.get("sign", {}).get("backend") == "spi"
    return (UART if uart else "") + (SPI if on_spi else "")


@pytest.mark.parametrize("name", ["uth-gr.toml", "uth-it.toml", "uth-sk.toml", "trilux-gr.toml"])
def test_the_examples_pins_are_free_with_the_uart_and_spi_on(name):
    assert pin_problems(name, boot_of(name)) == {}


def test_the_key_switch_is_off_the_uart_in_every_example_but_ch_bg():
    for path in sorted(CONFIG.glob("*.toml")):
        key = tomllib.loads(path.read_text()).get("gpio", {}).get("console", {}).get("key")
        assert (key in (14, 15)) == (path.name == "ch-bg.toml"), path.name


def test_ch_bg_checks_with_its_uart_off_and_says_why_with_it_on():
    assert pin_problems("ch-bg.toml", boot_of("ch-bg.toml", uart=False)) == {}
    found = pin_problems("ch-bg.toml", boot_of("ch-bg.toml"))
    assert list(found) == ["gpio.console.key"] and "UART RXD" in found["gpio.console.key"]
