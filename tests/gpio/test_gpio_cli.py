"""`croupier sensors watch` and `croupier lamps test` in-process, on the mock pin factory, and
their one-line errors (the rig subprocess tests are in test_gpio_rig.py)."""

import importlib.util
import json

import pytest

from controller.cli.main import main

ON_A_PI = importlib.util.find_spec("RPi") is not None


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_commands_are_listed(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("sensors", "lamps", "sign"):
        assert command in out


def test_lamps_test_on_the_mock_factory(capsys):
    status, out, _ = run(capsys, "lamps", "test", "--pin-factory", "mock", "--step", "0", "--json")
    assert status == 0
    report = json.loads(out)
    assert report["source"] == "reference wiring"
    assert [r["lamp"] for r in report["lamps"]] == [f"seat{n}" for n in range(1, 8)] + [
        "green",
        "red",
        "beacon",
    ]
    assert all(r["readback"] == 1 and r["ok"] for r in report["lamps"])


def test_lamps_test_one_lamp_in_human_form(capsys):
    status, out, _ = run(
        capsys, "lamps", "test", "--pin-factory", "mock", "--step", "0", "--lamp", "red"
    )
    assert status == 0
    assert "red     BCM 21: ON   read back 1" in out
    assert "seat1" not in out


def test_unknown_lamp_is_one_line(capsys):
    status, out, err = run(capsys, "lamps", "test", "--pin-factory", "mock", "--lamp", "blue")
    assert (status, out) == (2, "")
    assert err.startswith("croupier lamps: --lamp: no lamp blue (lamps: seat1, seat2,")
    assert err.count("\n") == 1


def test_a_mistyped_lamp_suggests_the_lamp(capsys):
    """`lamps test --lamp gren` listed the lamps but did not say green."""
    status, out, err = run(capsys, "lamps", "test", "--pin-factory", "mock", "--lamp", "gren")
    assert (status, out) == (2, "")
    assert err.startswith("croupier lamps: --lamp: no lamp gren; did you mean green? (lamps:")


def test_sensors_watch_stops_after_its_duration(capsys):
    status, out, _ = run(capsys, "sensors", "watch", "--pin-factory", "mock", "--duration", "0.05")
    assert status == 0
    assert "pin factory mock" in out
    assert "watching" in out and "[1:- 2:- 3:- 4:- 5:- 6:- 7:-]" in out


def test_sensors_watch_json_starts_with_the_seat_states(capsys):
    status, out, _ = run(
        capsys, "sensors", "watch", "--pin-factory", "mock", "--duration", "0", "--json"
    )
    assert status == 0
    first = json.loads(out.splitlines()[0])
    assert first == {
        "event": "watching",
        "t": 0.0,
        "seats": {str(n): "awaiting" for n in range(1, 8)},
    }


def test_a_bad_configuration_lists_every_problem_on_one_line(capsys, tmp_path):
    config = tmp_path / "table.toml"
    config.write_text(
        '[gpio]\nseats = { 1 = { sensor = 10, lamp = 40 } }\n[sign]\nbackend = "spi"\n'
    )
    status, _, err = run(
        capsys, "sensors", "watch", "--pin-factory", "mock", "--config", str(config)
    )
    assert status == 1
    assert err.count("\n") == 1
    assert "gpio.seats.1.sensor: pin 10 is reserved: SPI0 MOSI" in err
    assert "gpio.seats.1.lamp: 40 is outside 2..27" in err
    assert "gpio.console: missing" in err


def test_unreadable_configuration(capsys, tmp_path):
    bad = tmp_path / "table.toml"
    bad.write_text("[gpio\n")
    assert run(capsys, "lamps", "test", "--config", str(bad))[2].startswith(
        f"croupier lamps: {bad}: not valid TOML"
    )
    missing = tmp_path / "nope.toml"
    assert "No such file" in run(capsys, "lamps", "test", "--config", str(missing))[2]


def test_unreachable_rig_is_one_line(capsys, tmp_path):
    status, _, err = run(
        capsys,
        "lamps",
        "test",
        "--pin-factory",
        "rig",
        "--rig-socket",
        str(tmp_path / "none.sock"),
        "--rig-wait",
        "0.1",
    )
    assert status == 1
    assert "cannot reach the rig at" in err and "(is the rig running?)" in err


@pytest.mark.skipif(ON_A_PI, reason="RPi.GPIO works here")
def test_rpigpio_off_the_pi_says_what_to_use(capsys):
    status, _, err = run(capsys, "sensors", "watch", "--pin-factory", "rpigpio", "--duration", "0")
    assert status == 1
    assert 'off a Pi use pin_factory = "mock" or "rig"' in err
