"""Scenario files of the rig (``tests/hil/*.toml``): what to do to the table and what it must
do in return, step by step (pure: parsing and validation only).

A scenario::

    name = "MD-S1: a wrong card count to a player voids the round"
    rules = ["MD-S1"]
    config = "config/sim.toml"      # the table (relative: to this file, the current
                                    # directory, then the repository)
    paced = false                   # true: keep the emulator's wire pacing (baud)
    timeout = 60                    # seconds for the whole scenario
    [overrides]                     # merged over the table configuration
    timing.settled_display = 5.0

    [[step]]
    stake = [2, 4]                  # progressive stakes on the sensors of seats 2 and 4
    [[step]]
    emulator = "faults"             # the shuffler's fault injection (firmware_bridge control)
    args = { machine = { wrong_count_at_packet = 2 } }
    [[step]]
    press = "lock"
    [[step]]
    wait = "void"
    [[step]]
    expect = { verdict = "MD-S1", lamps = { red = "blink", green = "off" } }

Each step does one thing (:data:`ACTIONS`); ``note`` describes it in the report, ``timeout``
bounds a wait or an expectation (default :data:`STEP_TIMEOUT`). Expectations
(:data:`EXPECTATIONS`) are polled until they all hold or the step times out. Every problem of
a file is reported at once, each with its step and reason (:class:`ConfigError`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.engine.cards import parse_cards
from controller.errors import CardError
from controller.rig.table import REPO
from controller.validation import Problems, read_toml

STEP_TIMEOUT = 10.0
SCENARIO_TIMEOUT = 120.0

# action -> (what its value must be, the optional keys it takes besides note/timeout)
ACTIONS: dict[str, tuple[str, tuple[str, ...]]] = {
    "stake": ("seats", ()),  # put stakes on these seats' sensors
    "lift": ("seats", ()),  # take them off
    "press": ("button", ()),  # press and release LOCK or CONFIRM
    "key": ("bool", ()),  # the technician key switch
    "command": ("text", ("args", "privileged", "refused", "result")),  # a control command
    "emulator": ("text", ("args",)),  # a command of the shuffler emulator's control channel
    "deck": ("cards", ("now",)),  # these cards come out first (arrange)
    "draw": ("count", ()),  # the dealer draws cards from the shoe
    "wait": ("states", ()),  # until the table is in one of these states
    "sleep": ("seconds", ()),
    "kill": ("true", ()),  # kill -9 the daemon (and power off the sim's shuffler)
    "start": ("true", ()),  # start the daemon again on the same state directory
    "restart": ("true", ()),  # a clean stop (SIGTERM), then start
    "expect": ("table", ()),
}
EXPECTATIONS = (
    "state",
    "verdict",
    "reason",
    "conditions",
    "lamps",
    "sign",
    "sign_mode",
    "seats",
    "meters",
    "round",
    "recovered",
    "journal",
    "cards_as_delivered",
)
LAMP_PATTERNS = ("on", "off", "blink")
BUTTONS = ("lock", "confirm")
COMMON = ("note", "timeout")


@dataclass(frozen=True)
class Step:
    number: int
    action: str
    value: Any
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    timeout: float = STEP_TIMEOUT

    def describe(self) -> str:
        if self.note:
            return self.note
        if self.action == "expect":
            return "expect " + ", ".join(f"{k} {v}" for k, v in self.value.items())
        args = self.options.get("args")
        return f"{self.action} {self.value}" + (f" {args}" if args else "")


@dataclass(frozen=True)
class Scenario:
    source: Path
    name: str
    description: str
    rules: tuple[str, ...]
    config: Path
    overrides: dict[str, Any]
    paced: bool
    timeout: float
    steps: tuple[Step, ...]

    @property
    def table_overrides(self) -> dict[str, Any]:
        """The configuration overrides, with the emulator's pacing off unless ``paced``."""
        overrides = dict(self.overrides)
        if not self.paced:
            shuffler = dict(overrides.get("shuffler", {}))
            shuffler["emulator"] = {**shuffler.get("emulator", {}), "baud": None}
            overrides["shuffler"] = shuffler
        return overrides


def _check_value(kind: str, value: Any) -> str | None:
    """Why ``value`` is not a ``kind`` (None: it is)."""

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    checks = {
        "seats": lambda v: isinstance(v, list) and v and all(whole(s) and s > 0 for s in v),
        "button": lambda v: v in BUTTONS,
        "bool": lambda v: isinstance(v, bool),
        "true": lambda v: v is True,
        "text": lambda v: isinstance(v, str) and v.strip(),
        "count": lambda v: whole(v) and v > 0,
        "seconds": lambda v: isinstance(v, int | float) and not isinstance(v, bool) and v >= 0,
        "states": lambda v: (
            isinstance(v, str) or (isinstance(v, list) and v and all(isinstance(s, str) for s in v))
        ),
        "table": lambda v: isinstance(v, dict) and v,
        "cards": lambda v: isinstance(v, list) and v and all(isinstance(c, str) for c in v),
    }
    if checks[kind](value):
        if kind == "cards":
            try:
                parse_cards(" ".join(value), unique=False)
            except CardError as exc:
                return str(exc)
        return None
    wanted = {
        "seats": "a list of seat numbers",
        "button": f"one of {', '.join(BUTTONS)}",
        "bool": "true or false",
        "true": "true",
        "text": "a name",
        "count": "a whole number",
        "seconds": "seconds",
        "states": "a state or a list of states",
        "table": "a table of expectations",
        "cards": 'a list of cards like "As"',
    }[kind]
    return f"must be {wanted}, got {value!r}"


def _expectation_problems(expect: dict[str, Any]) -> list[str]:
    problems = [
        f"unknown expectation {k!r} (known: {', '.join(EXPECTATIONS)})"
        for k in expect
        if k not in EXPECTATIONS
    ]
    lamps = expect.get("lamps", {})
    if not isinstance(lamps, dict) or not all(v in LAMP_PATTERNS for v in lamps.values()):
        problems.append(f"lamps: each lamp is one of {', '.join(LAMP_PATTERNS)}")
    for key in ("meters", "round", "seats"):
        if key in expect and not isinstance(expect[key], dict):
            problems.append(f"{key}: must be a table")
    return problems


def _parse_step(number: int, raw: Any, problems: Problems) -> Step | None:
    where = f"step {number}"
    if not isinstance(raw, dict):
        problems.add(where, "a step is a table ([[step]])")
        return None
    actions = [k for k in raw if k in ACTIONS]
    if len(actions) != 1:
        problems.add(
            where, f"a step does exactly one of {', '.join(ACTIONS)} (found {actions or 'none'})"
        )
        return None
    action = actions[0]
    kind, optional = ACTIONS[action]
    unknown = set(raw) - {action, *optional, *COMMON}
    if unknown:
        problems.add(
            where,
            f"{action}: unknown key(s) {sorted(unknown)} (it takes"
            f" {', '.join((*optional, *COMMON))})",
        )
    value = raw[action]
    if (why := _check_value(kind, value)) is not None:
        problems.add(f"{where} {action}", why)
        return None
    if action == "expect":
        for why in _expectation_problems(value):
            problems.add(f"{where} expect", why)
    timeout = raw.get("timeout", STEP_TIMEOUT)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        problems.add(f"{where} timeout", f"must be seconds above zero, got {timeout!r}")
        timeout = STEP_TIMEOUT
    if "args" in raw and not isinstance(raw["args"], dict):
        problems.add(f"{where} args", "must be a table")
    options = {k: raw[k] for k in optional if k in raw}
    return Step(number, action, value, options, str(raw.get("note", "")), float(timeout))


def resolve_config(value: str, source: Path) -> Path | None:
    """A configuration path: as given if absolute, else next to the scenario, in the current
    directory or in the repository (the first that exists)."""
    path = Path(value)
    if path.is_absolute():
        return path if path.exists() else None
    for base in (source.parent, Path.cwd(), REPO):
        if (base / path).exists():
            return base / path
    return None


def parse_scenario(data: dict[str, Any], source: Path) -> Scenario:
    problems = Problems(str(source))
    known = {"name", "description", "rules", "config", "paced", "timeout", "overrides", "step"}
    for key in sorted(set(data) - known):
        problems.add(key, f"unknown key (known: {', '.join(sorted(known))})")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.add("name", "required: what the scenario shows")
        name = source.stem
    config = resolve_config(str(data.get("config", "config/sim.toml")), source)
    if config is None:
        problems.add("config", f"no table configuration {data.get('config', 'config/sim.toml')!r}")
    rules = data.get("rules", [])
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        problems.add("rules", 'a list of rule IDs like "MD-S1"')
        rules = []
    overrides = data.get("overrides", {})
    if not isinstance(overrides, dict):
        problems.add("overrides", "must be a table")
        overrides = {}
    timeout = data.get("timeout", SCENARIO_TIMEOUT)
    if not isinstance(timeout, int | float) or isinstance(timeout, bool) or timeout <= 0:
        problems.add("timeout", "seconds above zero")
        timeout = SCENARIO_TIMEOUT
    raw_steps = data.get("step")
    if not isinstance(raw_steps, list) or not raw_steps:
        problems.add("step", "no steps ([[step]] tables)")
        raw_steps = []
    steps = [_parse_step(n, raw, problems) for n, raw in enumerate(raw_steps, 1)]
    problems.raise_if_any()
    assert config is not None
    return Scenario(
        source,
        name.strip(),
        str(data.get("description", "")).strip(),
        tuple(rules),
        config,
        overrides,
        bool(data.get("paced", False)),
        float(timeout),
        tuple(s for s in steps if s is not None),
    )


def load_scenario(path: str | Path) -> Scenario:
    return parse_scenario(read_toml(path), Path(path))
