"""The rig's own GPIO lines wired to a controller (drivers.gpio.rig_gpio), on gpiozero's mock
pins: the levels it drives on the controller's inputs, the lamps it reads, the wiring check."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory

from drivers.errors import RigError
from drivers.gpio.pinmap import parse_gpio
from drivers.gpio.rig_gpio import GpioRig

# The controller: seat 1 sensor on BCM 4 (active low), its lamp on 18; LOCK on 2, CONFIRM on
# 3, key on 15 (active low); status lamps 19, 21, 26 (active high).
GPIO = {
    "sensor_active": "low",
    "seats": {"1": {"sensor": 4, "lamp": 18}},
    "console": {"lock": 2, "confirm": 3, "key": 15},
    "lamps": {"green": 19, "red": 21, "beacon": 26},
}
WIRING = {4: 5, 18: 6, 2: 12, 3: 13, 15: 16, 19: 20, 21: 22, 26: 23}  # controller -> rig


@pytest.fixture
def rig():
    factory = MockFactory()
    rig = GpioRig(parse_gpio(GPIO), WIRING, factory)
    yield rig, factory
    rig.close()
    factory.close()


def test_inputs_idle_then_driven_to_their_active_levels(rig):
    rig, factory = rig
    sensor, lock = factory.pin(5), factory.pin(12)
    assert (sensor.state, lock.state) == (1, 1)  # nobody on the sensor, nobody pressing
    rig.place_stake(1)
    rig.press("lock")
    assert (sensor.state, lock.state) == (0, 0)  # active low, as the controller reads them
    rig.lift_stake(1)
    rig.release("lock")
    assert (sensor.state, lock.state) == (1, 1)


def test_lamps_read_and_their_history_kept(rig):
    rig, factory = rig
    assert rig.lamp_lit("green") is False
    factory.pin(20).drive_high()
    assert rig.lamp_lit("green") is True
    factory.pin(20).drive_low()
    factory.pin(20).drive_high()
    assert [lit for _, lit in rig.lamp_history("green")] == [False, True, False, True]
    rig.wait_for_lamp("green", True, timeout=0.1)
    with pytest.raises(RigError, match="red lit"):
        rig.wait_for_lamp("red", True, timeout=0.05)


def test_an_unwired_line_and_unknown_names_are_refused():
    factory = MockFactory()
    with pytest.raises(RigError, match=r"BCM pin\(s\) \[26\] \(\[pins.wiring\]\)"):
        GpioRig(parse_gpio(GPIO), {k: v for k, v in WIRING.items() if k != 26}, factory)
    rig = GpioRig(parse_gpio(GPIO), WIRING, factory)
    with pytest.raises(RigError, match="no input 'seat4'"):
        rig.place_stake(4)
    with pytest.raises(RigError, match="no lamp 'amber'"):
        rig.lamp_lit("amber")
    rig.close()
    factory.close()
