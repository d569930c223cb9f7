"""Validation of the [gpio] and [sign] tables: every problem at once, each with key and reason."""

import copy
import tomllib

import pytest

from display.money import CURRENCY_CODES
from drivers.errors import HardwareConfigError, Problem
from drivers.gpio.pinmap import REFERENCE_GPIO, parse_gpio
from drivers.sign.config import REFERENCE_SIGN, SignConfig, parse_sign, spi_pins
from drivers.tableio import validate_table_io


def gpio(**changes):
    table = copy.deepcopy(REFERENCE_GPIO)
    for path, value in changes.items():
        *parents, leaf = path.split("__")
        node = table
        for p in parents:
            node = node[p]
        node[leaf] = value
    return table


def problems(gpio_table, sign_table=None):
    with pytest.raises(HardwareConfigError) as err:
        validate_table_io(gpio_table, sign_table, CURRENCY_CODES)
    return list(err.value.problems)


def test_reference_wiring_is_valid_with_the_sign_on_spi():
    io = validate_table_io(REFERENCE_GPIO, REFERENCE_SIGN)
    assert io.gpio.seats == (1, 2, 3, 4, 5, 6, 7)
    assert len(io.gpio.inputs) + len(io.gpio.lamps) == 20
    assert io.gpio.inputs["seat3"].pin == 27
    assert not io.gpio.inputs["seat3"].active_high
    assert io.gpio.inputs["seat3"].pull == "up"
    assert io.gpio.lamps["beacon"].active_high
    assert io.sign == SignConfig(kind="matrix", cascaded=8, block_orientation=-90)


def test_a_pin_used_twice_names_both_keys():
    assert problems(gpio(console__lock=4)) == [
        Problem("gpio.console.lock", "pin 4 is already used by gpio.seats.1.sensor")
    ]


def test_spi_pins_are_reserved_while_the_sign_is_on_spi():
    table = gpio(seats__3={"sensor": 27, "lamp": 10}, lamps__green=8)
    assert problems(table, {"backend": "spi"}) == [
        Problem(
            "gpio.seats.3.lamp",
            'pin 10 is reserved: SPI0 MOSI, used by the sign (sign.backend = "spi")',
        ),
        Problem(
            "gpio.lamps.green",
            'pin 8 is reserved: SPI0 CE0, used by the sign (sign.backend = "spi")',
        ),
    ]
    validate_table_io(table, {"backend": "dummy"})  # the same pins are free without SPI
    validate_table_io(table, None)  # ... and without a sign


def test_spi1_reserves_its_own_bus():
    assert set(spi_pins(parse_sign({"spi_port": 1}))) == {16, 17, 18, 19, 20, 21}
    assert any(p.key == "gpio.seats.1.lamp" for p in problems(gpio(), {"spi_port": 1}))


def test_every_problem_of_both_tables_is_reported_at_once():
    table = gpio(seats__9={"sensor": 1}, seats__2={"sensor": 0, "lamp": 23, "colour": "red"})
    table["debounce"] = 30
    table["sensor_active"] = "hi"
    table["lamps"]["beacon"] = "26"
    got = problems(table, {"kind": "oled", "brightness": 16, "currency": "XYZ", "spi_speed_hz": 3})
    assert [p.key for p in got] == [
        "sign.kind",
        "sign.brightness",
        "sign.spi_speed_hz",
        "sign.currency",
        "gpio.sensor_active",
        "gpio.seats.2.sensor",
        "gpio.seats.2.colour",
        "gpio.seats.9",
        "gpio.lamps.beacon",
        "gpio.debounce",
    ]
    reasons = {p.key: p.reason for p in got}
    assert reasons["gpio.seats.2.sensor"] == "0 is outside 2..27"
    assert reasons["gpio.seats.9"] == "a seat is a number 1..7 (digits, no leading 0)"
    assert reasons["gpio.debounce"] == "unknown key (did you mean 'debounce_ms'?)"
    assert reasons["gpio.sensor_active"] == "'hi' is not one of 'low', 'high'"
    assert reasons["gpio.lamps.beacon"] == "must be a whole number, not '26'"
    assert reasons["sign.currency"].startswith("the sign does not know 'XYZ'")
    assert "; " in str(HardwareConfigError(got))  # one line for the technician


def test_missing_sections_and_keys():
    table = copy.deepcopy(REFERENCE_GPIO)
    del table["console"]["key"]
    del table["lamps"]
    assert problems(table) == [
        Problem("gpio.console.key", "missing"),
        Problem("gpio.lamps", "missing"),
        Problem("gpio.lamps.green", "missing"),
        Problem("gpio.lamps.red", "missing"),
        Problem("gpio.lamps.beacon", "missing"),
    ]
    assert problems({"seats": {}, "console": {}, "lamps": {}})[0] == Problem(
        "gpio.seats", "at least one seat (1..7) with a sensor and a lamp"
    )


def test_fixed_pull_up_pins_take_no_other_pull():
    pulled = "has a fixed pull-up ({}): its pull must be 'up'"
    assert problems(gpio(button_active="high")) == [
        Problem("gpio.console.lock", "pin 2 " + pulled.format("I2C SDA")),
        Problem("gpio.console.confirm", "pin 3 " + pulled.format("I2C SCL")),
    ]
    assert len(problems(gpio(button_pull="off"))) == 2
    config = parse_gpio(gpio(button_active="high", console={"lock": 7, "confirm": 8, "key": 15}))
    assert config.inputs["lock"].pull == "down" and config.inputs["lock"].active_high


def test_timing_options_are_converted_to_seconds():
    config = parse_gpio(gpio(debounce_ms=50, button_debounce_ms=10, chatter_window_ms=2000))
    assert (config.sensor_debounce, config.button_debounce, config.chatter_window) == (
        0.05,
        0.01,
        2.0,
    )
    assert problems(gpio(chatter_edges=1)) == [
        Problem("gpio.chatter_edges", "1 is outside 2..1000")
    ]


def test_pin_factory_names():
    assert parse_gpio(gpio(pin_factory="rig", rig_socket="/tmp/r.sock")).pin_factory == "rig"
    assert problems(gpio(pin_factory="pigpio")) == [
        Problem(
            "gpio.pin_factory", "'pigpio' is not one of 'auto', 'lgpio', 'rpigpio', 'mock', 'rig'"
        )
    ]


@pytest.mark.parametrize(
    ("sign", "key", "reason"),
    [
        ({"rotate": 1}, "sign.rotate", "1 is not one of 0, 2"),
        ({"block_orientation": 45}, "sign.block_orientation", "45 is not one of 0, 90, -90, 180"),
        ({"spi_device": 2}, "sign.spi_device", "SPI0 has chip selects 0..1"),
        ({"frame_rate": 0}, "sign.frame_rate", "0 is outside 1..60"),
        ({"cascaded": 33}, "sign.cascaded", "33 is outside 1..32"),
        ({"reverse_blocks": "yes"}, "sign.reverse_blocks", "must be true or false, not 'yes'"),
        ({"currency": "eur"}, "sign.currency", "'eur' is not an ISO 4217 code like \"EUR\""),
        ({"backend": "hdmi"}, "sign.backend", "'hdmi' is not one of 'spi', 'dummy', 'capture'"),
    ],
)
def test_sign_problems(sign, key, reason):
    with pytest.raises(HardwareConfigError) as err:
        parse_sign(sign)
    assert err.value.problems == (Problem(key, reason),)


def test_sign_defaults_and_bytes_per_frame():
    config = parse_sign({"kind": "seven-segment", "cascaded": 1})
    assert config.width == 8
    assert config.spi_bytes_per_frame() == 16
    assert parse_sign({}).spi_bytes_per_frame() == 128


def test_the_documented_toml_is_the_reference():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "tableio.md").read_text()
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    data = tomllib.loads(block)
    assert validate_table_io(data["gpio"], data["sign"]) == validate_table_io(
        REFERENCE_GPIO, REFERENCE_SIGN
    )


@pytest.mark.parametrize("second", ["03", "\u0663", "\uff13", "+3", " 3"])
def test_a_seat_written_twice_another_way_is_refused(second):
    """ "03" or an Arabic-Indic three beside 3 was a second wiring of one seat: the check said
    OK and one of the two wirings was dropped. A seat is ASCII digits without a leading 0."""
    table = gpio()
    table["seats"][second] = table["seats"].pop("3")  # the same seat, written another way
    table["seats"]["3"] = {"sensor": 2, "lamp": 3}
    assert (f"gpio.seats.{second}", "a seat is a number 1..7 (digits, no leading 0)") in [
        (p.key, p.reason) for p in problems(table)
    ]
