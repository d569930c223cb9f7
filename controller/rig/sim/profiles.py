"""The table configurations of ``croupier sim --profile``: the simulated table of
``config/sim.toml`` with each profile's game and pool (Jumbo 7 of ch-bg as a LOCAL pool: the
simulator has no PostgreSQL), a state directory of the run's own, and the soak's speed levers
(short debounce; the dealer, not the display time, closes a settled round)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from controller.rig.table import REPO_CONFIG, merged
from controller.table.tableconfig import TableConfig, parse_table_config

PROFILES: dict[str, dict[str, Any]] = {
    "uth-gr": {"table": {"id": "SIM-GR"}},
    "uth-sk": {"table": {"id": "SIM-SK", "profile": "uth-sk"}},
    "uth-it": {"table": {"id": "SIM-IT", "profile": "uth-it"}, "pools": None},
    "ch-bg": {
        "table": {"id": "SIM-CH", "profile": "ch-bg"},
        "pools": {"jumbo7": {"seed": 10_000_000, "contribution_rate": "20%"}},
    },
    "trilux-gr": {
        "table": {"id": "SIM-BJ", "profile": "trilux-gr"},
        "shuffler": {"emulator": {"decks": 6}},
        "pools": None,
    },
}
SPEED: dict[str, Any] = {
    "shuffler": {"emulator": {"baud": None}},
    "gpio": {
        "pin_factory": "mock",
        "rig_socket": None,
        "debounce_ms": 2,
        "button_debounce_ms": 1,
        "chatter_window_ms": 100,
    },
    "timing": {"settled_display": 60.0},
    "sign": None,
    "report": None,
}


def sim_table_data(profile: str, state_dir: Path) -> dict[str, Any]:
    """The configuration's text (as TOML reads it) of ``profile`` (a key of
    :data:`PROFILES`), with its ledger in ``state_dir``."""
    base = tomllib.loads(REPO_CONFIG.read_text())
    if profile != "uth-gr":
        base.pop("pools", None)
    data = merged(merged(base, SPEED), PROFILES[profile])
    data["ledger"] = {"path": str(state_dir / "ledger.sqlite3")}
    return data


def sim_config(data: dict[str, Any], profile: str) -> TableConfig:
    return parse_table_config(data, f"sim profile {profile}")
