"""The rooms of controller/ (DESIGN.md): engine < books < table < cli, rig.

A room imports only from the rooms below it, and the engine imports nothing that does I/O.
Both are checked on the source (every ``import`` statement, including the lazy ones inside
functions) and, for the engine, on what a fresh interpreter actually loads.
"""

from __future__ import annotations

import ast
import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import controller.engine

CONTROLLER = Path(__file__).resolve().parents[2] / "controller"

# The floor of each room; a room may import rooms on a lower floor. The CLI is the front of
# the rig's commands (``croupier rig ...``), so cli may import rig, never the other way.
FLOOR = {"engine": 0, "books": 1, "table": 2, "rig": 3, "cli": 4, "web": 4}
SHARED = {
    "errors",
    "validation",
    "pidlock",
    "quick_json",
    "files",
    "stop_signals",
    "texts",
    "arguments",
}  # shared base
IO_MODULES = ("sqlite3", "asyncio", "serial", "usb", "gpiozero", "luma", "psycopg", "socket")


def _imported_controller_rooms(path: Path) -> set[str]:
    rooms: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "controller" and len(parts) > 1:
                rooms.add(parts[1])
    return rooms


def test_every_module_lives_in_a_room_or_the_shared_base() -> None:
    loose = sorted(
        p.name
        for p in CONTROLLER.iterdir()
        if p.name not in {"__init__.py", "__pycache__"}
        and p.stem not in SHARED
        and p.name not in FLOOR
    )
    assert loose == [], f"controller/ holds only the shared base and the rooms, not {loose}"


def test_rooms_import_only_from_rooms_below() -> None:
    wrong: list[str] = []
    for path in CONTROLLER.rglob("*.py"):
        room = path.relative_to(CONTROLLER).parts[0]
        if room not in FLOOR:
            continue
        for other in _imported_controller_rooms(path):
            if other in SHARED or other == room:
                continue
            if other not in FLOOR or FLOOR[other] >= FLOOR[room]:
                wrong.append(f"{path.relative_to(CONTROLLER.parent)} imports controller.{other}")
    assert wrong == []


def test_the_engine_loads_nothing_that_does_io() -> None:
    modules = [
        info.name
        for info in pkgutil.walk_packages(controller.engine.__path__, "controller.engine.")
    ]
    assert "controller.engine.games.holdem" in modules  # the walk found the room
    script = (
        "import importlib, json, sys\n"
        "before = set(sys.modules)\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    loaded = json.loads(out)  # what importing the engine added to a bare interpreter
    offenders = sorted(
        name for name in loaded if name.split(".")[0] in IO_MODULES or name == "_sqlite3"
    )
    assert offenders == [], f"controller.engine pulls in I/O modules: {offenders}"
    assert not any(name.startswith(("controller.books", "controller.table")) for name in loaded)
