"""The table configuration (``/etc/croupier/table.toml``): one file says what this table is.

Sections (every key is checked; ``croupier config check FILE`` reports every problem at once
with its key and reason, and the daemon refuses to start on any):

``[table]``      ``id``, ``profile`` (name or path), ``seats`` in use (default: all of the
                 profile's seats)
``[shuffler]``   ``port`` (device path, pyserial URL or ``usb:VID:PID``) or ``emulate = true``
                 (the daemon starts the reference emulator on a pty: the sim table),
                 ``baud``, ``firmware_allow`` (SHA-256 of the shuffler firmware builds this
                 table trusts; an unknown build keeps the table CLOSED), ``packet_timeout``
``[shuffler.emulator]`` (with ``emulate``): ``decks``, ``seed`` (tests only), ``baud`` pacing,
                 ``trusted`` (default true: the emulator's own build is allowed)
``[gpio]``, ``[sign]`` the table I/O (drivers.tableio; docs/tableio.md)
``[pools.NAME]`` per progressive pool: ``seed``, ``contribution_rate``, ``reserve_rate``,
                 ``cap`` (controller.engine.pools.config; the profile fixes the rules); or, for a
                 linked (wide-area) pool, ``dsn`` and ``pool`` (docs/linked-pools.md)
``[ledger]``     ``path`` (relative paths are under the state directory)
``[technician]`` ``credential``: a salted hash from ``croupier config hash-credential``
``[control]``    ``socket`` (relative: under the runtime directory), ``group``
``[timing]``     ``settled_display`` seconds
``[report]``     ``gaming_day_start`` (``"HH:MM"`` local, default ``"06:00"``), ``timezone``
                 (IANA name, default ``"UTC"``), ``key`` (the report signing key, default
                 ``/etc/croupier/report-key.pem``; relative: under the state directory);
                 docs/regulatory.md
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.books.linked.settings import (
    LinkedSettings,
    is_linked,
    linked_settings,
    table_id_problem,
)
from controller.books.reports.gaming_day import GamingDayError, GamingDayRule
from controller.engine.pools.config import PoolConfig, pool_config
from controller.engine.profiles import Profile, load_profile
from controller.table.credentials import check_stored
from controller.validation import (
    ConfigError,
    Problems,
    Section,
    positive_int,
    read_toml,
)
from drivers.errors import ConfigError as DriverConfigError
from drivers.tableio import TableIO, validate_table_io

TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")
SHA256 = re.compile(r"^[0-9a-f]{64}$")


@dataclass(frozen=True)
class EmulatorSettings:
    decks: int = 1
    seed: int | None = None
    baud: int | None = None  # pace the emulator's output like a real line; None = memory speed
    trusted: bool = True  # add the started emulator's own firmware build to the allow-list


@dataclass(frozen=True)
class ShufflerSettings:
    port: str | None  # None: emulate
    baud: int
    firmware_allow: tuple[str, ...]
    packet_timeout: float
    emulator: EmulatorSettings | None


@dataclass(frozen=True)
class ReportSettings:
    gaming_day_start: str = "06:00"
    timezone: str = "UTC"
    key: str = "/etc/croupier/report-key.pem"


@dataclass(frozen=True)
class TableConfig:
    source: str
    table_id: str
    profile: Profile
    seats: tuple[int, ...]
    shuffler: ShufflerSettings
    io: TableIO | None  # None: no [gpio] (a table without sensors, e.g. blackjack)
    pools: dict[str, PoolConfig]  # local pools, in the table's SQLite ledger
    linked: dict[str, LinkedSettings]  # linked pools, in a PostgreSQL store
    ledger_path: str
    credential: str | None
    control_socket: str
    control_group: str | None
    settled_display: float
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    report: ReportSettings = field(default_factory=lambda: ReportSettings())

    def resolve_state(self, state_dir: Path) -> Path:
        return _under(state_dir, self.ledger_path)

    def resolve_socket(self, runtime_dir: Path) -> Path:
        return _under(runtime_dir, self.control_socket)

    def resolve_report_key(self, state_dir: Path) -> Path:
        return _under(state_dir, self.report.key)


def _under(base: Path, value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else base / path


def _positive_number(value: Any) -> str | None:
    return None if value > 0 else f"must be above zero, got {value}"


def _read_shuffler(sec: Section | None) -> ShufflerSettings | None:
    if sec is None:
        return None
    emulate = sec.get("emulate", bool, default=False)
    port = sec.get("port", str, default=None)
    if emulate and port:
        sec.problems.add(sec.key("port"), "give either a port or emulate = true, not both")
    if not emulate and not port:
        sec.problems.add(
            sec.key("port"),
            "required: a device path, a pyserial URL or usb:VID:PID"
            " (or emulate = true for a simulated table)",
        )
    baud = sec.get("baud", int, default=115200, check=positive_int)
    allow_raw = sec.get("firmware_allow", list, default=[])
    allow = []
    for i, item in enumerate(allow_raw or []):
        if not isinstance(item, str) or not SHA256.match(item.lower()):
            sec.problems.add(
                f"{sec.key('firmware_allow')}[{i}]", "a firmware SHA-256 is 64 hex digits"
            )
        else:
            allow.append(item.lower())
    if not allow and not emulate:
        sec.problems.add(
            sec.key("firmware_allow"),
            "list the SHA-256 of every shuffler firmware build this table trusts"
            " (shown by `croupier shuffler info`)",
        )
    timeout = sec.get("packet_timeout", (int, float), default=10.0, check=_positive_number)
    emulator = None
    emu = sec.section("emulator", required=False)
    if emu is not None:
        if not emulate:
            sec.problems.add(emu.path, "only with emulate = true")
        decks = emu.get(
            "decks", int, default=1, check=lambda v: None if 1 <= v <= 8 else "must be 1..8"
        )
        seed = emu.get("seed", int, default=None)
        emu_baud = emu.get("baud", int, default=None, check=positive_int)
        trusted = emu.get("trusted", bool, default=True)
        emulator = EmulatorSettings(decks or 1, seed, emu_baud, trusted is not False)
        emu.finish()
    elif emulate:
        emulator = EmulatorSettings()
    sec.finish()
    return ShufflerSettings(
        None if emulate else port, baud or 115200, tuple(allow), float(timeout or 10.0), emulator
    )


def _read_pools(
    sec: Section | None, profile: Profile | None, problems: Problems
) -> tuple[dict[str, PoolConfig], dict[str, LinkedSettings]]:
    """Local pools (the SQLite ledger) and linked pools (a ``dsn``: docs/linked-pools.md)."""
    pools: dict[str, PoolConfig] = {}
    linked: dict[str, LinkedSettings] = {}
    if profile is None:
        return pools, linked
    prog = profile.progressive
    if sec is None:
        if prog is not None:
            problems.add(
                "pools",
                f"profile {profile.name} has a progressive ({prog.bet}):"
                " configure its pool, e.g. [pools.main] seed = 500000",
            )
        return pools, linked
    entries = list(sec.items())
    if prog is None and entries:
        problems.add("pools", f"profile {profile.name} has no progressive bet")
        return pools, linked
    if prog is not None and len(entries) != 1:
        problems.add("pools", f"exactly one pool feeds the {prog.bet} bet; got {len(entries)}")
    for name, raw in entries:
        entry = Section(raw, f"pools.{name}", problems)
        if is_linked(raw):
            settings = linked_settings(name, entry)
            if settings is not None:
                linked[name] = settings
            continue
        seed = entry.get("seed", int)
        rate = entry.get("contribution_rate", str, default=None)
        reserve = entry.get("reserve_rate", str, default="0")
        cap = entry.get("cap", int, default=None)
        entry.finish()
        if seed is None or prog is None:
            continue
        try:
            pools[name] = pool_config(
                name,
                prog,
                seed=seed,
                contribution_rate=rate,
                reserve_rate=reserve,
                cap=cap,
                source=problems.source,
            )
        except ConfigError as exc:
            problems.items.extend(exc.problems)
    return pools, linked


def parse_table_config(data: dict[str, Any], source: str) -> TableConfig:
    problems = Problems(source)
    top = Section(data, "", problems)
    table = top.section("table")
    table_id, profile, seats = None, None, ()
    if table:
        table_id = table.get(
            "id",
            str,
            check=lambda v: None if TABLE_ID.match(v) else "1-32 letters, digits, '-' or '_'",
        )
        profile_name = table.get("profile", str)
        if profile_name:
            try:
                profile = load_profile(profile_name)
            except ConfigError as exc:
                for key, reason in exc.problems:
                    problems.add(table.key("profile"), f"{exc.source}: {key}: {reason}")
        seats_raw = table.get("seats", list, default=None)
        if profile is not None:
            allowed = range(1, profile.seats + 1)
            if seats_raw is None:
                seats = tuple(allowed)
            elif (
                not seats_raw
                or any(isinstance(s, bool) or s not in allowed for s in seats_raw)
                or len(set(seats_raw)) != len(seats_raw)
            ):
                problems.add(
                    table.key("seats"),
                    f"distinct seat numbers 1..{profile.seats} (profile {profile.name})",
                )
            else:
                seats = tuple(sorted(seats_raw))
        table.finish()
    shuffler = _read_shuffler(top.section("shuffler"))
    gpio_raw = top.data.get("gpio")
    sign_raw = top.data.get("sign")
    top.section("gpio", required=False)
    top.section("sign", required=False)
    io = None
    if gpio_raw is not None or sign_raw is not None:
        try:
            currencies = (profile.money.currency,) if profile else ()
            io = validate_table_io(gpio_raw or {}, sign_raw, currencies)
        except DriverConfigError as exc:
            for p in exc.problems:
                problems.add(p.key, p.reason)
    pools, linked = _read_pools(top.section("pools", required=False), profile, problems)
    if linked and table_id and (reason := table_id_problem(table_id)):
        problems.add("table.id", f"a linked pool names this table in its store: {reason}")
    ledger = top.section("ledger", required=False)
    ledger_path = "ledger.sqlite3"
    if ledger:
        ledger_path = ledger.get("path", str, default=ledger_path)
        ledger.finish()
    tech = top.section("technician", required=False)
    credential = None
    if tech:
        credential = tech.get("credential", str, default=None, check=check_stored)
        tech.finish()
    control = top.section("control", required=False)
    socket_path, group = "control.sock", None
    if control:
        socket_path = control.get("socket", str, default=socket_path)
        group = control.get("group", str, default=None)
        control.finish()
    timing = top.section("timing", required=False)
    settled_display = 15.0
    if timing:
        settled_display = float(
            timing.get("settled_display", (int, float), default=15.0, check=_positive_number)
            or 15.0
        )
        timing.finish()
    report = _read_report(top.section("report", required=False))
    top.finish()
    problems.raise_if_any()
    assert table_id and profile and shuffler
    return TableConfig(
        source,
        table_id,
        profile,
        seats,
        shuffler,
        io,
        pools,
        linked,
        ledger_path,
        credential,
        socket_path,
        group,
        settled_display,
        data,
        report,
    )


def _read_report(sec: Section | None) -> ReportSettings:
    if sec is None:
        return ReportSettings()
    default = ReportSettings()

    def rule_problem(start: str, zone: str) -> str | None:
        try:
            GamingDayRule.parse(start, zone)
        except GamingDayError as exc:
            return str(exc)
        return None

    start = sec.get("gaming_day_start", str, default=default.gaming_day_start,
                    check=lambda v: rule_problem(v, "UTC"))  # fmt: skip
    zone = sec.get("timezone", str, default=default.timezone,
                   check=lambda v: rule_problem("00:00", v))  # fmt: skip
    key = sec.get("key", str, default=default.key, check=lambda v: None if v else "a path")
    sec.finish()
    return ReportSettings(start, zone, key)


def load_table_config(path: str | Path) -> TableConfig:
    return parse_table_config(read_toml(path), str(path))
