"""The table configuration (``/etc/croupier/table.toml``): one file says what this table is.

Sections (every key is checked; ``croupier config check FILE`` reports every problem at once
with its key and reason, and the daemon refuses to start on any):

``[table]``      ``id``, ``profile`` (name or path), ``seats`` in use (default: all of the
                 profile's seats)
``[shuffler]``   ``port`` (device path, pyserial URL or ``usb:VID:PID``) or ``emulate = true``
                 (the daemon starts the reference emulator on a pty: the sim table),
                 ``baud``, ``firmware_allow`` (SHA-256 of the shuffler firmware builds this
                 table trusts; an unknown build keeps the table CLOSED; the examples' all-zero
                 placeholder is refused on a real table), ``packet_timeout``,
                 ``shoe_penetration`` (a blackjack shoe: percent of its cards dealt before
                 the cut card, 50..90, default 75; controller.table.shoe)
``[shuffler.emulator]`` (with ``emulate``): ``decks``, ``seed`` (tests only), ``baud`` pacing,
                 ``trusted`` (default true: the emulator's own build is allowed)
``[gpio]``, ``[sign]`` the table I/O (drivers.tableio; docs/tableio.md); pins of a Pi bus that
                 ``/boot/firmware/config.txt`` enables or the shuffler uses are refused
                 (drivers.gpio.buses)
``[pools.NAME]`` per progressive pool: ``seed``, ``contribution_rate``, ``reserve_rate``,
                 ``cap`` (controller.engine.pools.config; the profile fixes the rules); or, for a
                 linked (wide-area) pool, ``dsn`` and ``pool`` (docs/linked-pools.md)
``[ledger]``     ``path`` (relative paths are under the state directory), ``key`` (the keyring
                 sealing the ledger; default ``$CROUPIER_LEDGER_KEY`` or
                 ``/etc/croupier/ledger.key``, the sim table's own in its state directory),
                 ``witness`` (``http://`` or ``https://`` URL the journal head is published to)
``[technician]`` ``credential``: a salted hash from ``croupier config hash-credential``
                 (its scrypt cost bounded: controller.table.credentials.KDF_LIMITS)
``[control]``    ``socket`` (relative: under the runtime directory), ``group`` (the
                 daemon refuses to start when it does not exist),
                 ``max_connections`` (default 32, 1..256; root and the daemon's own user get
                 4 more: the technician's ``status`` gets through a full socket),
                 ``idle_timeout`` seconds (default 300, 1..86400), ``observers``: login
                 names (at most 16) whose processes may only read and send credentialed
                 commands, e.g. ``["croupier-web"]`` (docs/security.md, "Observers")
``[limits]``     ``stake_max``: the largest stake of one wager in minor units (default
                 100000000, at most 1000000000); the socket refuses larger ones. And the
                 table limits of its wagers, ``WAGER = { min = N, max = N }`` in minor
                 units (controller.engine.wagers: over the maximum a stake is capped and the
                 excess returned, or refused under the profile's ``over_maximum =
                 "refuse"``, BJ-1); default: the profile's own (blackjack ``bet_min``..)
``[timing]``     ``settled_display`` seconds
``[report]``     ``gaming_day_start`` (``"HH:MM"`` local, default ``"06:00"``), ``timezone``
                 (IANA name, default ``"UTC"``), ``key`` (the report signing key, default
                 ``/etc/croupier/report-key.pem``; relative: under the state directory);
                 docs/regulatory.md
``[host]``       ``require_clock_sync``, ``allow_volatile_ledger``: conditions of the machine
                 that keep the table closed (controller.table.host_checks)

Numbers are bounded where they are read: seconds finite and at most :data:`MAX_SECONDS`,
money within ``controller.validation.MONEY_MAX``, GPIO seats within the profile's seats.
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
from controller.engine.wagers import GAME_WAGER_RULE, Limit, parse_limits
from controller.table.credentials import check_stored
from controller.table.host_settings import HostSettings, read_host_settings
from controller.table.machine_settings import PENETRATION_RANGE, MachineSettings
from controller.validation import (
    ConfigError,
    DocumentLimitsError,
    Problems,
    Section,
    money,
    positive_int,
    read_toml,
)
from display.money import CURRENCY_CODES
from drivers.errors import HardwareConfigError
from drivers.gpio.buses import BOOT_CONFIG, bus_pins, read_boot_config
from drivers.tableio import TableIO, validate_table_io
from drivers.transport import port_problem

TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}\Z")
SHA256 = re.compile(r"^[0-9a-f]{64}\Z")
PLACEHOLDER_DIGEST = "0" * 64  # what the shipped examples say until a technician fills it in
MAX_SECONDS = 3600.0  # a timeout or display time beyond an hour is a typo, not a setting
STAKE_MAX_DEFAULT = 100_000_000  # EUR 1,000,000.00 a wager
STAKE_MAX_CEILING = 1_000_000_000  # paid at 1000:1 it stays within MONEY_MAX
MAX_CONNECTIONS_DEFAULT, MAX_CONNECTIONS_CEILING = 32, 256
IDLE_TIMEOUT_DEFAULT, IDLE_TIMEOUT_CEILING = 300.0, 86400.0


# Every default below is written once, on its dataclass field; the parser reads it from there.


@dataclass(frozen=True, kw_only=True)
class EmulatorSettings:
    decks: int = 1
    seed: int | None = None
    baud: int | None = None  # pace the emulator's output like a real line; None = memory speed
    trusted: bool = True  # add the started emulator's own firmware build to the allow-list


@dataclass(frozen=True, kw_only=True)
class ShufflerSettings:
    port: str | None  # None: emulate
    baud: int = 115200
    firmware_allow: tuple[str, ...] = ()
    packet_timeout: float = MachineSettings.packet_timeout
    shoe_penetration: int = MachineSettings.shoe_penetration
    emulator: EmulatorSettings | None = None


@dataclass(frozen=True)
class ReportSettings:
    gaming_day_start: str = "06:00"
    timezone: str = "UTC"
    key: str = "/etc/croupier/report-key.pem"


@dataclass(frozen=True, kw_only=True)
class TableConfig:
    source: str
    table_id: str
    profile: Profile
    seats: tuple[int, ...]
    shuffler: ShufflerSettings
    io: TableIO | None = None  # None: no [gpio] (a table without sensors, e.g. blackjack)
    pools: dict[str, PoolConfig] = field(default_factory=dict)  # local pools (SQLite ledger)
    linked: dict[str, LinkedSettings] = field(default_factory=dict)  # in a PostgreSQL store
    ledger_path: str = "ledger.sqlite3"
    credential: str | None = None
    control_socket: str = "control.sock"
    control_group: str | None = None
    observers: tuple[str, ...] = ()  # users who may only read (and send credentialed commands)
    settled_display: float = MachineSettings.settled_display
    raw: dict[str, Any] = field(repr=False, default_factory=dict)
    limits: dict[str, Limit] = field(default_factory=dict)  # wager -> table limits
    host: HostSettings = field(default_factory=HostSettings)
    stake_max: int = STAKE_MAX_DEFAULT
    max_connections: int = MAX_CONNECTIONS_DEFAULT
    idle_timeout: float = IDLE_TIMEOUT_DEFAULT
    ledger_key: str | None = None  # the keyring's path; None: the default (docs/ledger.md)
    witness_url: str | None = None
    report: ReportSettings = field(default_factory=lambda: ReportSettings())

    def pool_wagers(self) -> dict[str, str]:
        """Each pool's name (``[pools.NAME]``: the ledger's or the linked store's, what
        ``croupier meters`` and ``--pool`` take) -> the wager that feeds it (the profile's
        progressive bet: ``progressive``, ``jumbo7``). The table keeps its pools' amounts by
        wager (the round records name the wager); people read the pool's name."""
        prog = self.profile.progressive
        if prog is None:
            return {}
        return {name: prog.bet for name in (*self.pools, *self.linked)}

    def resolve_state(self, state_dir: Path) -> Path:
        return _under(state_dir, self.ledger_path)

    def resolve_socket(self, runtime_dir: Path) -> Path:
        return _under(runtime_dir, self.control_socket)

    def resolve_report_key(self, state_dir: Path) -> Path:
        return _under(state_dir, self.report.key)


def _under(base: Path, value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else base / path


def _seconds(value: Any, ceiling: float = MAX_SECONDS) -> str | None:
    if value != value or not 0 < value <= ceiling:  # NaN compares unequal to itself
        return f"must be above zero and at most {ceiling:g} seconds, got {value}"
    return None


def _non_empty(value: str) -> str | None:
    return None if value.strip() else "must not be empty"


RUNTIME_DIR = "/run/croupier"  # croupierd's default --runtime-dir (systemd's RuntimeDirectory)


def _control_socket(value: str) -> str | None:
    """Not empty, and short enough to bind under the default runtime directory (croupierd
    checks the path it binds again, under the --runtime-dir it is given)."""
    from controller.files import FileRefused, check_socket_length

    try:
        check_socket_length(_under(Path(RUNTIME_DIR), value))
    except FileRefused as exc:
        return str(exc)
    return _non_empty(value)


USER_NAME = re.compile(r"^[a-z_][a-z0-9_-]{0,31}\$?\Z")  # a POSIX login name (useradd's rule)
MAX_OBSERVERS = 16


def _observers(value: list[Any]) -> str | None:
    if len(value) > MAX_OBSERVERS:
        return f"at most {MAX_OBSERVERS} user names"
    bad = [v for v in value if not isinstance(v, str) or not USER_NAME.match(v)]
    if bad:
        return f"{str(bad[0])[:40]!r} is not a login name (lower-case letters, digits, _ and -)"
    return None


def _absolute_path(value: str) -> str | None:
    return None if value.startswith("/") and len(value) < 4096 else "an absolute file path"


def _witness_url(value: str) -> str | None:
    ok = re.match(r"^https?://[A-Za-z0-9.\-\[\]:]+(/[\x21-\x7e]*)?\Z", value)
    return None if ok and len(value) <= 2048 else "an http:// or https:// URL (host[:port][/path])"


def _read_shuffler(sec: Section | None) -> ShufflerSettings | None:
    if sec is None:
        return None
    emulate = sec.get("emulate", bool, default=False)
    port = sec.get("port", str, default=None, check=port_problem)
    if emulate and port:
        sec.problems.add(sec.key("port"), "give either a port or emulate = true, not both")
    if not emulate and not port and "port" not in sec.data:  # (a bad one is named above)
        sec.problems.add(
            sec.key("port"),
            "required: a device path, a pyserial URL or usb:VID:PID"
            " (or emulate = true for a simulated table)",
        )
    baud = sec.get("baud", int, default=ShufflerSettings.baud, check=positive_int)
    allow_raw = sec.get("firmware_allow", list, default=[])
    allow = []
    for i, item in enumerate(allow_raw or []):
        if not isinstance(item, str) or not SHA256.match(item.lower()):
            sec.problems.add(
                f"{sec.key('firmware_allow')}[{i}]", "a firmware SHA-256 is 64 hex digits"
            )
        elif item == PLACEHOLDER_DIGEST and not emulate:
            sec.problems.add(
                f"{sec.key('firmware_allow')}[{i}]",
                "the example's all-zero placeholder: replace it with the SHA-256 of the"
                " shuffler's firmware (`croupier shuffler info`)",
            )
        else:
            allow.append(item.lower())
    if not allow_raw and not emulate:
        sec.problems.add(
            sec.key("firmware_allow"),
            "list the SHA-256 of every shuffler firmware build this table trusts"
            " (shown by `croupier shuffler info`)",
        )
    timeout = sec.get(
        "packet_timeout",
        (int, float),
        default=ShufflerSettings.packet_timeout,
        check=_seconds,
    )
    low, high = PENETRATION_RANGE
    penetration = sec.get(
        "shoe_penetration",
        int,
        default=ShufflerSettings.shoe_penetration,
        check=lambda v: None if low <= v <= high else f"must be {low}..{high} (percent)",
    )
    emulator = None
    emu = sec.section("emulator", required=False)
    if emu is not None:
        if not emulate:
            sec.problems.add(emu.path, "only with emulate = true")
        defaults = EmulatorSettings()
        decks = emu.get(
            "decks",
            int,
            default=defaults.decks,
            check=lambda v: None if 1 <= v <= 8 else "must be 1..8",
        )
        seed = emu.get("seed", int, default=defaults.seed)
        emu_baud = emu.get("baud", int, default=defaults.baud, check=positive_int)
        trusted = emu.get("trusted", bool, default=defaults.trusted)
        emulator = EmulatorSettings(
            decks=decks or defaults.decks,
            seed=seed,
            baud=emu_baud,
            trusted=defaults.trusted if trusted is None else trusted,
        )
        emu.finish()
    elif emulate:
        emulator = EmulatorSettings()
    sec.finish()
    return ShufflerSettings(
        port=None if emulate else port,
        baud=baud or ShufflerSettings.baud,
        firmware_allow=tuple(allow),
        packet_timeout=float(timeout or ShufflerSettings.packet_timeout),
        shoe_penetration=penetration or ShufflerSettings.shoe_penetration,
        emulator=emulator,
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
                " configure its pool, e.g. [pools.main] seed = 500000"
                f" ({GAME_WAGER_RULE[profile.game]}, PRG-1)",
            )
        return pools, linked
    entries = list(sec.items())
    if prog is None and entries:
        rule = GAME_WAGER_RULE[profile.game]
        problems.add(
            "pools",
            f"profile {profile.name} offers no progressive bet, so no pool can be fed:"
            f" a progressive stake at this table would be refused ({rule})",
        )
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
        seed = entry.get("seed", int, check=money)
        rate = entry.get("contribution_rate", str, default=None)
        reserve = entry.get("reserve_rate", str, default="0")
        cap = entry.get("cap", int, default=None, check=money)
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


def parse_table_config(
    data: dict[str, Any], source: str, *, boot_config: str | None = None
) -> TableConfig:
    """``boot_config``: the text of the Pi's config.txt, whose enabled buses own their pins."""
    problems = Problems(source)
    top = Section(data, "", problems)
    table = top.section("table")
    table_id, profile = None, None
    seats: tuple[int, ...] = ()
    if table:
        table_id = table.get(
            "id",
            str,
            check=lambda v: None if TABLE_ID.match(v) else "1-32 letters, digits, '-' or '_'",
        )
        profile_name = table.get("profile", str, check=_non_empty)
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
            port = shuffler.port if shuffler is not None else None
            buses = bus_pins(boot_config, port)
            io = validate_table_io(gpio_raw or {}, sign_raw, CURRENCY_CODES, buses)
        except HardwareConfigError as exc:
            for p in exc.problems:
                problems.add(p.key, p.reason)
    if io is not None and io.sign is not None and profile is not None:
        table_currency = profile.money.currency
        if io.sign.currency != table_currency:  # a code the sign knows, not the table's
            problems.add(
                "sign.currency",
                f"{io.sign.currency!r}: the table plays in {table_currency} (profile"
                f' {profile.name}); the sign shows that: currency = "{table_currency}"',
            )
    if io is not None and profile is not None:
        for seat in io.gpio.seats:
            if not 1 <= seat <= profile.seats:
                problems.add(
                    f"gpio.seats.{seat}",
                    f"profile {profile.name} has seats 1..{profile.seats}",
                )
    pools, linked = _read_pools(top.section("pools", required=False), profile, problems)
    if linked and table_id and (problem := table_id_problem(table_id)):
        problems.add("table.id", f"a linked pool names this table in its store: {problem}")
    ledger = top.section("ledger", required=False)
    ledger_path = TableConfig.ledger_path
    ledger_key, witness_url = TableConfig.ledger_key, TableConfig.witness_url
    if ledger:
        ledger_path = ledger.get("path", str, default=ledger_path, check=_non_empty)
        ledger_key = ledger.get("key", str, default=None, check=_absolute_path)
        witness_url = ledger.get("witness", str, default=None, check=_witness_url)
        ledger.finish()
    tech = top.section("technician", required=False)
    credential = None
    if tech:
        credential = tech.get("credential", str, default=None, check=check_stored)
        tech.finish()
    control = top.section("control", required=False)
    socket_path, group = TableConfig.control_socket, TableConfig.control_group
    max_connections, idle_timeout = TableConfig.max_connections, TableConfig.idle_timeout
    observers: tuple[str, ...] = ()
    if control:
        socket_path = control.get("socket", str, default=socket_path, check=_control_socket)
        group = control.get("group", str, default=None, check=_non_empty)
        max_connections = control.get(
            "max_connections",
            int,
            default=max_connections,
            check=lambda v: (
                None
                if 1 <= v <= MAX_CONNECTIONS_CEILING
                else f"must be 1..{MAX_CONNECTIONS_CEILING}"
            ),
        )
        idle_timeout = control.get(
            "idle_timeout",
            (int, float),
            default=idle_timeout,
            check=lambda v: _seconds(v, IDLE_TIMEOUT_CEILING),
        )
        observers = tuple(control.get("observers", list, default=[], check=_observers) or ())
        control.finish()
    limits_sec = top.section("limits", required=False)
    stake_max = TableConfig.stake_max
    if limits_sec:
        stake_max = limits_sec.get(
            "stake_max",
            int,
            default=stake_max,
            check=lambda v: (
                None
                if 1 <= v <= STAKE_MAX_CEILING
                else f"must be 1..{STAKE_MAX_CEILING} minor units"
            ),
        )
    limits: dict[str, Limit] = {}
    if profile is not None:
        raw_limits = top.data.get("limits", {})
        if isinstance(raw_limits, dict):  # the wagers' tables; stake_max was read above
            raw_limits = {k: v for k, v in raw_limits.items() if k != "stake_max"}
        limits, limit_problems = parse_limits(profile, raw_limits)
        for key, reason in limit_problems:
            problems.add(key, reason)
        for wager, limit in limits.items():
            if stake_max and limit.high > stake_max:
                problems.add(
                    f"limits.{wager}", f"max {limit.high} is above limits.stake_max {stake_max}"
                )
    timing = top.section("timing", required=False)
    settled_display = TableConfig.settled_display
    if timing:
        settled_display = float(
            timing.get("settled_display", (int, float), default=settled_display, check=_seconds)
            or settled_display
        )
        timing.finish()
    simulated = shuffler is not None and shuffler.emulator is not None
    host = read_host_settings(top.section("host", required=False), simulated)
    report = _read_report(top.section("report", required=False))
    top.finish()
    problems.raise_if_any()
    if not (table_id and profile and shuffler):  # each has recorded a problem when missing
        problems.add("table", "incomplete")
        problems.raise_if_any()
    assert table_id and profile and shuffler  # for the type checker: raised above otherwise
    return TableConfig(
        source=source,
        table_id=table_id,
        profile=profile,
        seats=seats,
        shuffler=shuffler,
        io=io,
        pools=pools,
        linked=linked,
        ledger_path=ledger_path,
        credential=credential,
        control_socket=socket_path,
        control_group=group,
        observers=observers,
        settled_display=settled_display,
        raw=data,
        limits=limits,
        host=host,
        stake_max=stake_max,
        max_connections=max_connections,
        idle_timeout=float(idle_timeout),
        ledger_key=ledger_key,
        witness_url=witness_url,
        report=report,
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

    start = sec.get(
        "gaming_day_start",
        str,
        default=default.gaming_day_start,
        check=lambda v: rule_problem(v, "UTC"),
    )
    zone = sec.get(
        "timezone", str, default=default.timezone, check=lambda v: rule_problem("00:00", v)
    )
    key = sec.get("key", str, default=default.key, check=lambda v: None if v else "a path")
    sec.finish()
    return ReportSettings(start, zone, key)


def load_table_config(path: str | Path, *, boot_config: Path | None = BOOT_CONFIG) -> TableConfig:
    """Read and check ``path``; ``boot_config`` (None: not read) is the Pi's config.txt."""
    boot = read_boot_config(boot_config) if boot_config is not None else None
    try:
        data = read_toml(path)
    except DocumentLimitsError as exc:  # the file's other problems too, in the same report
        raise exc.with_others(
            lambda rest: parse_table_config(rest, str(path), boot_config=boot)
        ) from None
    return parse_table_config(data, str(path), boot_config=boot)
