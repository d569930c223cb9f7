"""What the table I/O commands share: the configuration, the pin factory, one-line errors.

The commands read the ``[gpio]`` and ``[sign]`` tables of the table configuration
(``--config FILE``; else ``/etc/croupier/table.toml`` when it exists; else the reference wiring
of ``docs/tableio.md``) and validate them as the daemon does. ``--pin-factory`` overrides
``gpio.pin_factory`` (``mock`` and ``rig`` work off the Pi). Errors of ``drivers`` and
``display`` are turned into :class:`~controller.errors.CroupierError`, which the CLI prints as
one line (exit status 1: a failure, not a usage error).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Iterator

from controller.cli import argtypes
from controller.cli.paths import SYSTEM_CONFIG
from controller.errors import CroupierError
from display.errors import DisplayError
from display.money import CURRENCY_CODES

TYPE_CHECKING = False
if TYPE_CHECKING:  # drivers, gpiozero and pathlib are imported by the commands, not by parsers
    from pathlib import Path
    from typing import Any

    from gpiozero.pins import Factory

    from drivers.sign.config import SignConfig
    from drivers.tableio import TableIO

# The choices the parsers offer, written here so that `--help` imports no driver (the drivers'
# FACTORY_NAMES and BACKENDS; tests/unit/cli/test_cli_light_choices.py holds them equal)
PIN_FACTORIES = ("auto", "lgpio", "rpigpio", "mock", "rig")
SIGN_BACKENDS = ("spi", "dummy", "capture")


def add_config_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        type=argtypes.input_file,
        metavar="FILE",
        help=f"table configuration (default: {SYSTEM_CONFIG}, else the reference wiring)",
    )


def add_pin_options(parser: argparse.ArgumentParser) -> None:
    add_config_option(parser)
    parser.add_argument(
        "--pin-factory",
        choices=PIN_FACTORIES,
        help="GPIO backend (default: gpio.pin_factory, $GPIOZERO_PIN_FACTORY, auto)",
    )
    parser.add_argument("--rig-socket", metavar="PATH", help="the rig's socket (rig factory)")
    parser.add_argument(
        "--rig-wait",
        type=argtypes.seconds(0, 600),
        default=5.0,
        metavar="SECONDS",
        help="how long to wait for the rig link (rig factory, 5)",
    )


@contextlib.contextmanager
def one_line_errors() -> Iterator[None]:
    """Re-raise the drivers' and display's errors as CroupierError (one line, exit 2)."""
    from drivers.errors import DriverError

    try:
        yield
    except (DriverError, DisplayError) as exc:
        raise CroupierError(str(exc)) from exc


def read_config(path: Path | None, *, gpio: bool = True) -> tuple[dict[str, Any], str]:
    """The configuration file's tables and its name (the reference wiring without a file;
    its ``[gpio]`` table only if ``gpio``: the sign commands load no pin map)."""
    if path is None and os.path.exists(SYSTEM_CONFIG):
        path = argtypes.path(SYSTEM_CONFIG)
    if path is None:
        from drivers.sign.config import REFERENCE_SIGN

        reference = {"sign": REFERENCE_SIGN}
        if gpio:
            from drivers.gpio.pinmap import REFERENCE_GPIO

            reference["gpio"] = REFERENCE_GPIO
        return reference, "reference wiring"
    from controller.validation import ConfigError, read_toml

    try:
        return read_toml(path), str(path)
    except ConfigError as exc:  # one line: the file and what is wrong with it
        key, reason = exc.problems[0]
        what = {"(syntax)": "not valid TOML: ", "(file)": ""}.get(key, f"{key}: ")
        raise CroupierError(f"{path}: {what}{reason}") from exc


def load_table_io(path: Path | None) -> tuple[TableIO, str]:
    """The validated ``[gpio]`` and ``[sign]`` tables and where they came from."""
    from drivers.errors import DriverError
    from drivers.tableio import validate_table_io

    data, source = read_config(path)
    try:
        return validate_table_io(data.get("gpio"), data.get("sign"), CURRENCY_CODES), source
    except DriverError as exc:
        raise CroupierError(f"{source}: {exc}") from exc


def load_sign(path: Path | None) -> tuple[SignConfig, str]:
    """The validated ``[sign]`` table alone (the sign commands need no GPIO wiring)."""
    from drivers.errors import DriverError
    from drivers.sign.config import parse_sign

    data, source = read_config(path, gpio=False)
    if "sign" not in data:
        raise CroupierError(f"{source}: no [sign] table")
    try:
        return parse_sign(data["sign"], CURRENCY_CODES), source
    except DriverError as exc:
        raise CroupierError(f"{source}: {exc}") from exc


def open_factory(args: argparse.Namespace, io: TableIO) -> Factory:
    """The pin factory the options and configuration ask for; with the rig, waits up to
    ``--rig-wait`` seconds for the rig link so that the first levels read are the rig's."""
    from drivers.gpio.factories import make_pin_factory

    name = args.pin_factory or io.gpio.pin_factory
    with one_line_errors():
        factory = make_pin_factory(name, rig_socket=args.rig_socket or io.gpio.rig_socket)
    wait = getattr(factory, "wait_for_rig", None)
    if wait is not None and not wait(args.rig_wait):
        error = getattr(factory, "last_error", None) or "no answer"
        factory.close()
        raise CroupierError(f"rig pin factory: {error} (is the rig running?)")
    return factory


def say(line: str) -> None:
    """A line on stdout, flushed (the commands are read live through pipes)."""
    print(line, flush=True)
