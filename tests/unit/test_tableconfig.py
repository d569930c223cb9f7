"""Table configuration: every shipped example loads; every problem reported with its key."""

import copy
import tomllib
from pathlib import Path

import pytest

from controller.table.tableconfig import load_table_config, parse_table_config
from controller.validation import ConfigError

CONFIG = Path(__file__).resolve().parents[2] / "config"
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
def test_shipped_examples_load(name):
    config = load_table_config(CONFIG / name)
    assert config.profile.name == (name[:-5] if name != "sim.toml" else "uth-gr")


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
    assert "expected int" in found["shuffler.baud"]
    assert "PRG-1" in found["pools.main.contribution_rate"]
    assert any(k.startswith("gpio.seats") for k in found)
    assert "hash-credential" in found["technician.credential"]
    assert found["timing.settle_display"] == "unknown key"


def test_a_real_shuffler_needs_an_allow_list():
    data = copy.deepcopy(SIM)
    data["shuffler"] = {"port": "/dev/shuffler"}
    assert "shuffler.firmware_allow" in problems(data)


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
