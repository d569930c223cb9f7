"""Table configuration: every shipped example loads; every problem reported with its key."""

import copy
import tomllib
from pathlib import Path

import pytest

from controller.table.tableconfig import load_table_config, parse_table_config
from controller.validation import ConfigError

CONFIG = Path(__file__).resolve().parents[3] / "config"
SHIPPED = sorted(p.name for p in CONFIG.glob("*.toml"))
SIM = tomllib.loads((CONFIG / "sim.toml").read_text())


def test_one_example_per_profile_plus_sim():
    assert SHIPPED == [
        "ch-bg.toml",
        "sim.toml",
        "trilux-gr.toml",
        "uth-gr.toml",
        "uth-it.toml",
        "uth-sk.toml",
    ]


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_examples_load_once_the_firmware_is_named(name):
    """A real table's example names the shuffler firmware with an all-zero placeholder, which
    `config check` refuses until the technician fills in the real digest."""
    data = tomllib.loads((CONFIG / name).read_text())
    if name != "sim.toml":
        found = problems(copy.deepcopy(data))
        assert list(found) == ["shuffler.firmware_allow[0]"]
        assert "placeholder" in found["shuffler.firmware_allow[0]"]
        data["shuffler"]["firmware_allow"] = ["ab" * 32]
    config = parse_table_config(data, name)
    assert config.profile.name == (name[:-5] if name != "sim.toml" else "uth-gr")


def test_the_placeholder_is_harmless_on_the_simulated_table():
    data = copy.deepcopy(SIM)
    data["shuffler"]["firmware_allow"] = ["0" * 64]
    assert parse_table_config(data, "t.toml").shuffler.firmware_allow == ("0" * 64,)


def problems(data):
    with pytest.raises(ConfigError) as info:
        parse_table_config(data, "t.toml")
    return dict(info.value.problems)


def test_every_problem_at_once():
    data = copy.deepcopy(SIM)
    data["table"]["id"] = "no spaces please"
    data["table"]["seats"] = [1, 9]
    data["shuffler"]["baud"] = "fast"
    data["pools"]["main"]["contribution_rate"] = "30%"
    data["gpio"]["seats"]["2"]["sensor"] = 4  # pin used twice
    data["technician"]["credential"] = "secret"
    data["timing"]["settle_display"] = 3
    found = problems(data)
    assert "table.id" in found and "table.seats" in found
    assert "expected a whole number" in found["shuffler.baud"]
    assert "PRG-1" in found["pools.main.contribution_rate"]
    assert any(k.startswith("gpio.seats") for k in found)
    assert "hash-credential" in found["technician.credential"]
    assert found["timing.settle_display"] == "unknown key"


def test_a_real_shuffler_needs_an_allow_list():
    data = copy.deepcopy(SIM)
    data["shuffler"] = {"port": "/dev/shuffler"}
    assert "shuffler.firmware_allow" in problems(data)


UART_ON = "[all]\nenable_uart=1   # the shuffler's cable\n"
SPI_ON = "dtparam=i2c_arm=on,spi=on\n"


def real_table(**changes):
    data = copy.deepcopy(SIM)
    data["shuffler"] = {"port": "/dev/shuffler", "firmware_allow": ["ab" * 32]} | changes
    data["sign"]["backend"] = "dummy"
    return data


def bus_problems(data, boot):
    with pytest.raises(ConfigError) as info:
        parse_table_config(data, "t.toml", boot_config=boot)
    return dict(info.value.problems)


def key_on_rxd(**changes):
    data = real_table(**changes)
    data["gpio"]["console"]["key"] = 15  # the UART's RXD (the examples keep it off since)
    return data


def test_an_enabled_uart_owns_gpio14_and_15():
    found = bus_problems(key_on_rxd(), UART_ON)
    assert list(found) == ["gpio.console.key"]
    assert (
        "UART RXD, enabled in /boot/firmware/config.txt (enable_uart=1)"
        in found["gpio.console.key"]
    )
    parse_table_config(key_on_rxd(), "t.toml", boot_config="#enable_uart=1\n")


def test_a_shuffler_on_the_pis_uart_owns_gpio14_and_15():
    found = bus_problems(key_on_rxd(port="/dev/serial0"), None)
    assert "the shuffler's (shuffler.port = /dev/serial0)" in found["gpio.console.key"]
    parse_table_config(key_on_rxd(port="/dev/ttyUSB0"), "t.toml")


def test_an_enabled_spi0_owns_gpio7_to_11():
    data = real_table()
    data["gpio"]["console"]["key"] = 9
    data["gpio"]["lamps"]["beacon"] = 11
    found = bus_problems(data, SPI_ON)
    assert "SPI0 MISO, enabled in" in found["gpio.console.key"]
    assert "SPI0 SCLK" in found["gpio.lamps.beacon"]
    del data["sign"]
    parse_table_config(data, "t.toml", boot_config="dtparam=spi=off\n")


def test_progressive_profile_needs_its_pool():
    data = copy.deepcopy(SIM)
    del data["pools"]
    assert "configure its pool" in problems(data)["pools"]


def test_missing_file_and_syntax(tmp_path):
    with pytest.raises(ConfigError, match=r"(?i)no such file"):
        load_table_config(tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("[table\n")
    with pytest.raises(ConfigError, match="syntax"):
        load_table_config(bad)


def test_relative_paths_resolve_under_the_directories(tmp_path):
    config = parse_table_config(copy.deepcopy(SIM), "t.toml")
    assert config.resolve_state(tmp_path) == tmp_path / "ledger.sqlite3"
    assert config.resolve_socket(tmp_path) == tmp_path / "control.sock"


@pytest.mark.parametrize(
    ("socket", "size"),
    [("/run/x/" + "s" * 101, 108), ("s" * 200, 214)],
    ids=["absolute", "relative"],
)
def test_a_control_socket_too_long_to_bind_is_named(socket, size):
    """bind(2) takes at most 107 bytes of path: config check said OK and croupierd failed
    with "AF_UNIX path too long". A relative path is counted under /run/croupier."""
    data = copy.deepcopy(SIM)
    data.setdefault("control", {})["socket"] = socket
    reason = problems(data)["control.socket"]
    assert f"{size} bytes, longer than the 107 a Unix socket's path may have" in reason
    data["control"]["socket"] = "/run/x/" + "s" * 100  # 107 bytes: bound
    assert parse_table_config(data, "t.toml").control_socket == data["control"]["socket"]


def test_a_wrong_kind_of_value_is_named_in_the_configurations_words():
    """TOML reads `id = 1979-05-27T07:32:00Z` as a date-time: the problem said "expected str,
    got datetime.datetime(1979, 5, 27, ...)", Python's words, not the file's."""
    data = copy.deepcopy(SIM)
    data["table"]["id"] = tomllib.loads("x = 1979-05-27T07:32:00Z")["x"]
    data["shuffler"]["baud"] = "fast"
    found = problems(data)
    assert found["table.id"] == "expected text, got a date or time"
    assert found["shuffler.baud"] == "expected a whole number, got 'fast'"


def test_a_shuffler_port_that_names_no_shuffler_is_a_problem_of_config_check(tmp_path):
    regular = tmp_path / "notes.txt"
    regular.write_text("x")
    assert problems(real_table(port=str(regular)))["shuffler.port"].endswith(
        "is a regular file, not a serial device"
    )
    assert "expected usb:VID:PID in hex" in problems(real_table(port="usb:zz:1"))["shuffler.port"]


def test_a_port_on_the_command_line_that_names_no_shuffler_is_a_usage_error(tmp_path, capsys):
    from controller.cli.main import main

    regular = tmp_path / "notes.txt"
    regular.write_text("x")
    assert main(["shuffler", "info", "--port", str(regular)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--port: " in err and "not a serial device" in err


def test_a_sign_currency_other_than_the_tables_says_which_the_table_plays_in():
    """The sign knows JPY (sign show --currency JPY draws it); a uth-gr table plays in EUR.
    The problem said "the sign does not know 'JPY' (known: EUR)", which sent a technician to
    the sign's fonts; a code no sign knows is still refused as unknown."""
    data = copy.deepcopy(SIM)
    data["sign"]["currency"] = "JPY"
    assert problems(data)["sign.currency"] == (
        "'JPY': the table plays in EUR (profile uth-gr); the sign shows that: currency = \"EUR\""
    )
    data["sign"]["currency"] = "XYZ"
    assert problems(data)["sign.currency"].startswith("the sign does not know 'XYZ'")


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (49, "must be 50..90 (percent)"),
        (91, "must be 50..90 (percent)"),
        (0.75, "expected a whole number, got 0.75"),
        (True, "expected a whole number, got True"),
    ],
)
def test_the_shoe_penetration_is_a_percent_within_its_limits(value, problem):
    data = copy.deepcopy(SIM)
    data["shuffler"]["shoe_penetration"] = value
    assert problems(data) == {"shuffler.shoe_penetration": problem}


def test_the_shoe_penetration_reaches_the_round_machine():
    from controller.table.core import TableLogic

    data = copy.deepcopy(SIM)
    data["shuffler"]["shoe_penetration"] = 60
    config = parse_table_config(data, "t.toml")
    assert config.shuffler.shoe_penetration == 60
    assert TableLogic(config).machine.settings.shoe_penetration == 60
    assert parse_table_config(copy.deepcopy(SIM), "t.toml").shuffler.shoe_penetration == 75
