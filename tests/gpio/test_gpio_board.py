"""``pin_factory = "auto"``: which backend a board gets, and what a technician is told when none
can run. The facts are inputs (drivers.gpio.board), so every board is tested on this machine."""

import asyncio
import copy
import dataclasses
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w
from gpiozero.pins.mock import MockFactory, MockPin
from hypothesis import given
from hypothesis import strategies as st

from drivers.errors import PinFactoryError, PinOpenError
from drivers.gpio.board import BoardFacts, board_facts, choose_backend, rpigpio_problem
from drivers.gpio.factories import make_pin_factory
from drivers.gpio.pinmap import REFERENCE_GPIO, parse_gpio
from drivers.gpio.table import GpioTable

REPO = Path(__file__).resolve().parents[2]
OFF_PI = "off a Pi use"
PI5 = BoardFacts(
    model="Raspberry Pi 5 Model B Rev 1.0",
    hidden_model=None,
    gpiochips=("/dev/gpiochip0", "/dev/gpiochip4"),
    has_lgpio=True,
    has_rpigpio=True,
    kernel=(6, 6),
)
PI4_BULLSEYE = dataclasses.replace(
    PI5, model="Raspberry Pi 4 Model B Rev 1.4", gpiochips=("/dev/gpiochip0",), kernel=(6, 1)
)
X86 = BoardFacts(None, None, (), has_lgpio=True, has_rpigpio=False, kernel=(6, 1))


def test_lgpio_wherever_it_can_open_a_chip():
    assert choose_backend(PI5) == "lgpio"
    assert choose_backend(PI4_BULLSEYE) == "lgpio"


def test_rpigpio_only_on_a_pi_up_to_4_before_kernel_6_6():
    old = dataclasses.replace(PI4_BULLSEYE, has_lgpio=False)
    assert choose_backend(old) == "rpigpio"
    with pytest.raises(PinFactoryError, match="install lgpio") as info:
        choose_backend(dataclasses.replace(old, kernel=(6, 6)))
    assert OFF_PI not in str(info.value)
    with pytest.raises(PinFactoryError, match="install lgpio"):
        choose_backend(dataclasses.replace(PI5, has_lgpio=False))


def test_a_pi_whose_proc_is_filtered_is_told_why_not_to_use_mock():
    hidden = dataclasses.replace(PI5, model=None, hidden_model=PI5.model)
    with pytest.raises(PinFactoryError, match="ProcSubset=pid") as info:
        choose_backend(hidden)
    assert OFF_PI not in str(info.value) and "Raspberry Pi 5" in str(info.value)


def test_a_hidden_gpiochip_names_the_device_policy():
    with pytest.raises(PinFactoryError, match="DeviceAllow=char-gpiochip"):
        choose_backend(dataclasses.replace(PI5, gpiochips=()))


def test_off_a_pi_the_hint_is_mock_or_rig():
    with pytest.raises(PinFactoryError, match=OFF_PI):
        choose_backend(X86)


def test_why_rpigpio_cannot_run():
    assert "RP1" in rpigpio_problem(PI5)
    assert "kernel 6.6" in rpigpio_problem(dataclasses.replace(PI4_BULLSEYE, kernel=(6, 6)))
    assert OFF_PI in rpigpio_problem(X86)


models = st.sampled_from(
    [None, "Raspberry Pi 5 Model B Rev 1.0", "Raspberry Pi 3 Model B Plus Rev 1.3", "QEMU virt"]
)
facts = st.builds(
    BoardFacts,
    model=models,
    hidden_model=models,
    gpiochips=st.lists(st.sampled_from(["/dev/gpiochip0", "/dev/gpiochip4"]), unique=True).map(
        tuple
    ),
    has_lgpio=st.booleans(),
    has_rpigpio=st.booleans(),
    kernel=st.tuples(st.integers(4, 7), st.integers(0, 20)),
)


@given(facts)
def test_the_off_a_pi_hint_only_off_a_pi_and_rpigpio_only_where_it_works(board):
    try:
        name = choose_backend(board)
    except PinFactoryError as exc:
        assert (OFF_PI in str(exc)) == (not board.is_pi)
        return
    assert board.is_pi and board.model is not None
    assert name in ("lgpio", "rpigpio")
    if name == "rpigpio":
        assert board.kernel < (6, 6) and not board.is_pi5 and board.has_rpigpio
    else:
        assert board.has_lgpio and board.gpiochips


@pytest.mark.skipif(board_facts().is_pi, reason="this machine is a Raspberry Pi")
def test_auto_off_a_pi_is_one_actionable_error(monkeypatch):
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    for name in ("auto", None):
        with pytest.raises(PinFactoryError, match=OFF_PI):
            make_pin_factory(name)


class EdgelessPin(MockPin):
    """RPi.GPIO 0.7.1 on kernel 6.6: the pin opens, its edge detection does not."""

    def _set_edges(self, value):
        raise RuntimeError("Failed to add edge detection")


def test_a_backend_error_opening_a_pin_is_a_driver_error_naming_the_pin():
    gpio = parse_gpio(copy.deepcopy(REFERENCE_GPIO))
    factory = MockFactory(pin_class=EdgelessPin)

    async def start():
        await GpioTable(gpio, factory).start()

    with pytest.raises(PinOpenError) as info:
        asyncio.run(start())
    message = str(info.value)
    assert "GPIO4 (seat1)" in message and "Failed to add edge detection" in message
    assert "\n" not in message
    # every pin opened before the failure was released: a retry can open them again
    assert not any(factory._reservations.values())


@pytest.mark.integration
@pytest.mark.skipif(board_facts().is_pi, reason="this machine is a Raspberry Pi")
def test_the_daemon_off_a_pi_with_auto_says_so_in_one_line(tmp_path):
    """The shipped configurations' pin_factory = "auto" on a machine that is not a Pi: the
    daemon exits 1 with the reason, never a traceback."""
    data = tomllib.loads((REPO / "config" / "sim.toml").read_text())
    data["gpio"]["pin_factory"] = "auto"
    config = tmp_path / "table.toml"
    config.write_text(tomli_w.dumps(data))
    env = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    dirs = ["--state-dir", str(tmp_path / "state"), "--runtime-dir", str(tmp_path / "run")]
    run = subprocess.run(
        [sys.executable, "-m", "controller.table.daemon", "--config", str(config), *dirs],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert run.returncode == 1
    lines = [line for line in run.stderr.splitlines() if line.startswith("croupierd:")]
    assert lines == [
        "croupierd: cannot run the table: this machine is not a Raspberry Pi;"
        ' off a Pi use pin_factory = "mock" or "rig" (--pin-factory mock|rig)'
    ]
    assert "Traceback" not in run.stderr
