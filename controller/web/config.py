"""The web service's configuration (``/etc/croupier/web.toml``), checked once at start.

Every key, its type and its limits::

    [web]
    listen = "127.0.0.1:8080"   # HOST:PORT; binding beyond localhost must be asked for
    currency = "EUR"            # how amounts are shown (display.money's ISO codes)
    cookie_secure = true        # session cookie only over HTTPS (and http://localhost)
    view_needs_login = false    # true: the pages too need a login (default: read-only view)
    session_idle = 900          # seconds, 60..86400: an idle session ends
    login_attempts = 5          # failed logins per window: per known browser, or per name
                                # and per address for others (login_guard.py), 1..100
    login_window = 300          # seconds, 10..86400
    poll = 0.1                  # seconds between status reads while a page watches, 0.02..5
    idle_poll = 1.0             # seconds between reads while nobody watches, 0.1..30
    offline_after = 3.0         # seconds without an answer before a table shows offline, 0.5..60
    max_connections = 256       # connections at once, 8..1000 (a service's file descriptors
                                # are 1024 by default); beyond: the oldest idle one closes,
                                # or 503 when all are busy (limits.py)
    max_streams = 64            # live pages open without a login, 1..max_connections - 1
                                # (a logged-in session's are counted apart, 8 each)
    max_streams_per_client = 16 # of those, from one address (IPv6: its /64), 1..max_streams

    [[tables]]                  # one per table on the floor page, 1..64; the first is "/"
    name = "SIM-1"              # 1..32 letters, digits, '-', '_', '.'
    socket = "/run/croupier/control.sock"
    ledger = "/var/lib/croupier/ledger.sqlite3"   # optional: read-only, for the metrics

    [users]                     # who may acknowledge: name = stored credential
    alice = "scrypt$16384$8$1$SALT$HASH"          # `croupier config hash-credential`

A user's secret must be the table's technician credential: the daemon checks it again on
every acknowledgement it is forwarded, and journals the user's name.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.table.credentials import check_stored
from controller.validation import ConfigError, Problems, Section, read_toml
from display.money import CURRENCY_CODES

NAME = re.compile(r"^[A-Za-z0-9_.-]{1,32}\Z")
USER = re.compile(r"^[A-Za-z0-9_.@-]{1,64}\Z")
MAX_TABLES = 64
DEFAULT_LISTEN = "127.0.0.1:8080"


@dataclass(frozen=True)
class TableSource:
    name: str
    socket: Path
    ledger: Path | None = None


@dataclass(frozen=True)
class WebConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    tables: tuple[TableSource, ...] = ()
    users: dict[str, str] = field(default_factory=dict)
    currency: str = "EUR"
    cookie_secure: bool = True
    view_needs_login: bool = False
    session_idle: float = 900.0
    login_attempts: int = 5
    login_window: float = 300.0
    poll: float = 0.1
    idle_poll: float = 1.0
    offline_after: float = 3.0
    max_connections: int = 256
    max_streams: int = 64
    max_streams_per_client: int = 16

    def table(self, name: str) -> TableSource | None:
        return next((t for t in self.tables if t.name == name), None)


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:8080`` for IPv6); ValueError with the reason."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"expected HOST:PORT with a port 1..65535, got {text!r}")
    host = host.strip("[]")
    if host != "localhost":
        try:
            ipaddress.ip_address(host)
        except ValueError:
            raise ValueError(f"expected an IP address or localhost, got {host!r}") from None
    return host, int(port)


def _in(low: float, high: float, why: str = "") -> Any:
    """A check of ``low..high``; ``why`` says where ``high`` comes from."""
    limits = f"{low:g}..{high:g}" + (f" ({why})" if why else "")
    return lambda v: None if low <= v <= high else f"must be {limits}, got {v}"


def load_web_config(
    path: str | Path | None = None,
    *,
    socket: str | None = None,
    ledger: str | None = None,
    listen: str | None = None,
) -> WebConfig:
    """The configuration file (if any) with the command line's ``--socket`` (one table,
    replacing the file's tables), ``--ledger`` and ``--listen`` on top. ConfigError lists
    every problem."""
    source = str(path) if path else "command line"
    data = read_toml(path) if path else {}
    problems = Problems(source)
    top = Section(data, "", problems)
    web = top.section("web", required=False) or Section({}, "web", problems)
    values: dict[str, Any] = {}
    in_file = web.get("listen", str, DEFAULT_LISTEN)  # read either way: a known key
    listen_text = listen or in_file
    try:
        values["host"], values["port"] = parse_listen(listen_text or DEFAULT_LISTEN)
    except ValueError as exc:
        problems.add("--listen" if listen else "web.listen", str(exc))
    values["currency"] = web.choice("currency", CURRENCY_CODES, "EUR")
    values["cookie_secure"] = web.get("cookie_secure", bool, True)
    values["view_needs_login"] = web.get("view_needs_login", bool, False)
    for key, low, high, default in (
        ("session_idle", 60, 86400, 900.0),
        ("login_window", 10, 86400, 300.0),
        ("poll", 0.02, 5, 0.1),
        ("idle_poll", 0.1, 30, 1.0),
        ("offline_after", 0.5, 60, 3.0),
    ):
        values[key] = float(web.get(key, (int, float), default, _in(low, high)))
    values["login_attempts"] = web.get("login_attempts", int, 5, _in(1, 100))
    connections = web.get("max_connections", int, 256, _in(8, 1000))
    streams = web.get(
        "max_streams",
        int,
        min(64, connections - 1),
        _in(1, connections - 1, "below max_connections"),
    )
    per_client = web.get(
        "max_streams_per_client", int, min(16, streams), _in(1, streams, "at most max_streams")
    )
    values["max_connections"], values["max_streams"] = connections, streams
    values["max_streams_per_client"] = per_client
    web.finish()

    tables: list[TableSource] = []
    if socket:
        tables.append(TableSource("table", Path(socket), Path(ledger) if ledger else None))
        top.get("tables", list, [])  # the command line's table replaces the file's
    else:
        raw = top.get("tables", list, [])
        if len(raw) > MAX_TABLES:
            problems.add("tables", f"at most {MAX_TABLES} tables, got {len(raw)}")
        for i, item in enumerate(raw[:MAX_TABLES]):
            t = Section(item, f"tables[{i}]", problems)
            name = t.get(
                "name",
                str,
                None,
                lambda v: None if NAME.match(v) else "1..32 letters, digits, '-', '_' or '.'",
            )
            sock = t.get("socket", str, None, lambda v: None if v else "must not be empty")
            led = t.get("ledger", str, None)
            t.finish()
            if name and sock:
                if any(x.name == name for x in tables):
                    problems.add(f"tables[{i}].name", f"{name!r} is named twice")
                tables.append(TableSource(name, Path(sock), Path(led) if led else None))
        if not tables and not raw:
            problems.add("tables", "no table: give --socket PATH or [[tables]] in the file")
    users: dict[str, str] = {}
    section = top.section("users", required=False)
    if section is not None:
        for user, stored in section.items():
            key = f"users.{user}"
            if not USER.match(user):
                problems.add(key, "a user name is 1..64 letters, digits, '_', '.', '@', '-'")
            elif not isinstance(stored, str) or (reason := check_stored(stored)):
                problems.add(key, reason if isinstance(stored, str) else "expected a string")
            else:
                users[user] = stored
    top.finish()
    problems.raise_if_any()
    return WebConfig(tables=tuple(tables), users=users, **values)


__all__ = ["ConfigError", "TableSource", "WebConfig", "load_web_config", "parse_listen"]
