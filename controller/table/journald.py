"""The daemon's log in systemd's journal: priorities (``journalctl -p err``) and fields.

Under systemd the daemon's stderr is a stream into journald (``$JOURNAL_STREAM`` names it).
There, each record is sent as a native journal entry over the journal's datagram socket
(:data:`JOURNAL_SOCKET`; the protocol of systemd's ``sd_journal_send``, a few lines, no
library): ``PRIORITY`` from the level, ``SYSLOG_IDENTIFIER=croupierd``, ``TABLE=`` the table's
ID and, for a record about a round, ``ROUND=`` its ID::

    journalctl -u croupierd -p err                  # what needs a technician
    journalctl -u croupierd TABLE=T-UTH-GR ROUND=T-UTH-GR-1207

When the socket cannot take an entry (too large, no journald), the line goes to stderr with
the ``<N>`` priority prefix that journald's stream reads (``SyslogLevelPrefix=yes``, systemd's
default), so the priority survives. Off systemd the log is plain text, as before.

:func:`log_effect` is what the table says about its rounds and conditions as it goes: a round
opened, voided (with its rule) or settled, a condition as what it does: ``table closed:
clock: ...``, ``progressive closed (no progressive stakes): progressive-link: ...``, ``the
table plays on: lamps: ...`` (``controller.table.machine.condition_effect``).
"""

from __future__ import annotations

import logging
import os
import socket
import struct
import sys
from typing import Any, TextIO

from controller.table.events import AppendJournal, Condition, OpenRound, SettleRound, VoidRound
from controller.table.machine import condition_effect

JOURNAL_SOCKET = "/run/systemd/journal/socket"
IDENTIFIER = "croupierd"
# syslog's notice (5): normal but worth a look, such as why the daemon stopped
# (``journalctl -p notice`` shows it without the INFO lines of every round)
NOTICE = 25
logging.addLevelName(NOTICE, "NOTICE")
PRIORITY = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    NOTICE: 5,
    logging.INFO: 6,
    logging.DEBUG: 7,
}
log = logging.getLogger("croupierd.table")


def priority(levelno: int) -> int:
    """syslog priority of a logging level (between two levels: the more urgent)."""
    return next((p for level, p in sorted(PRIORITY.items(), reverse=True) if levelno >= level), 7)


def stderr_is_journal(stream: TextIO = sys.stderr) -> bool:
    """True when ``stream`` is the journal stream systemd gave this process."""
    named = os.environ.get("JOURNAL_STREAM", "")
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError):
        return False
    return named == f"{st.st_dev}:{st.st_ino}"


def with_prefix(text: str, levelno: int = logging.ERROR) -> str:
    """``text`` with journald's ``<N>`` priority prefix on every line."""
    return "\n".join(f"<{priority(levelno)}>{line}" for line in text.splitlines() or [""])


def encode_entry(fields: dict[str, str]) -> bytes:
    """One journal entry in the native protocol: ``KEY=value`` lines; a value with a newline
    as ``KEY``, newline, its length as 64-bit little-endian, the value, newline."""
    out = bytearray()
    for key, value in fields.items():
        data = value.encode("utf-8", "replace")
        if b"\n" in data:
            out += key.encode() + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"
        else:
            out += key.encode() + b"=" + data + b"\n"
    return bytes(out)


def record_fields(
    record: logging.LogRecord, message: str, static: dict[str, str]
) -> dict[str, str]:
    fields = {
        "MESSAGE": message,
        "PRIORITY": str(priority(record.levelno)),
        "SYSLOG_IDENTIFIER": IDENTIFIER,
        "LOGGER": record.name,
        "CODE_FILE": record.pathname,
        "CODE_LINE": str(record.lineno),
        "CODE_FUNC": record.funcName or "",
        **static,
    }
    round_id = getattr(record, "round_id", None)
    if round_id:
        fields["ROUND"] = str(round_id)
    return fields


class JournaldHandler(logging.Handler):
    """Sends records to journald; ``fields`` (e.g. ``TABLE``) go with every entry."""

    def __init__(self, path: str = JOURNAL_SOCKET, fallback: TextIO = sys.stderr) -> None:
        super().__init__()
        self.path = path
        self.fallback = fallback
        self.fields: dict[str, str] = {}
        self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = self.format(record)
            entry = encode_entry(record_fields(record, message, self.fields))
            try:
                self._socket.sendto(entry, self.path)
            except OSError:  # too large for a datagram, journald restarting: keep the line
                self.fallback.write(with_prefix(message, record.levelno) + "\n")
                self.fallback.flush()
        except Exception:
            self.handleError(record)

    def close(self) -> None:
        self._socket.close()
        super().close()


class PrefixFormatter(logging.Formatter):
    """Lines for journald's stream: the ``<N>`` priority prefix on each."""

    def format(self, record: logging.LogRecord) -> str:
        return with_prefix(super().format(record), record.levelno)


def configure_logging(verbose: bool) -> dict[str, str]:
    """Set up the root logger for the daemon; returns the fields every journal entry carries
    (the daemon adds ``TABLE`` once its configuration is read)."""
    level = logging.DEBUG if verbose else logging.INFO
    if stderr_is_journal():
        if os.path.exists(JOURNAL_SOCKET):
            handler: logging.Handler = JournaldHandler()
            handler.setFormatter(logging.Formatter("%(name)s: %(message)s"))
        else:
            handler = logging.StreamHandler()
            handler.setFormatter(PrefixFormatter("%(name)s: %(message)s"))
        logging.basicConfig(level=level, handlers=[handler], force=True)
        return getattr(handler, "fields", {})
    logging.basicConfig(
        level=level,
        format="%(levelname)s %(name)s: %(message)s"
        if os.environ.get("INVOCATION_ID")
        else "%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return {}


def log_effect(effect: Any) -> None:
    """One line in the daemon's log for what the table does with a round or a condition."""
    if isinstance(effect, OpenRound):
        log.info("round %s opened", effect.round_id, extra={"round_id": effect.round_id})
    elif isinstance(effect, VoidRound):
        log.warning(
            "round %s void (%s): %s",
            effect.round_id,
            effect.rule,
            effect.reason,
            extra={"round_id": effect.round_id},
        )
    elif isinstance(effect, SettleRound):
        log.info("round %s settled", effect.round_id, extra={"round_id": effect.round_id})
    elif isinstance(effect, AppendJournal) and effect.kind == "condition":
        name, detail = effect.data.get("name"), effect.data.get("detail", "")
        if effect.data.get("blocking"):
            log.warning("%s: %s: %s", condition_effect(Condition(name)), name, detail)
        else:
            log.info("condition cleared: %s", name)
