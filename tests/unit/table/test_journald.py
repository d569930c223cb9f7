"""The daemon's log for journald: native entries with PRIORITY, TABLE, ROUND; <N> prefixes on
stderr when the socket cannot take an entry. journald itself answers in tests/system/."""

import io
import logging
import os
import socket
import struct
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.table.events import AppendJournal, OpenRound, VoidRound
from controller.table.journald import (
    JournaldHandler,
    configure_logging,
    encode_entry,
    log_effect,
    priority,
    stderr_is_journal,
    with_prefix,
)


def decode_entry(data: bytes) -> dict[str, str]:
    """The reading side of the native protocol, as journald parses it."""
    fields, i = {}, 0
    while i < len(data):
        end = data.index(b"\n", i)
        line = data[i:end]
        if b"=" in line:
            key, _, value = line.partition(b"=")
            i = end + 1
        else:
            key = line
            (size,) = struct.unpack("<Q", data[end + 1 : end + 9])
            value = data[end + 9 : end + 9 + size]
            assert data[end + 9 + size : end + 10 + size] == b"\n"
            i = end + 10 + size
        fields[key.decode()] = value.decode()
    return fields


keys = st.from_regex(r"[A-Z][A-Z0-9_]{0,20}", fullmatch=True)
values = st.text(st.characters(exclude_categories=("Cs",)), max_size=200)


@given(st.dictionaries(keys, values, max_size=8))
def test_entries_decode_to_what_was_sent(fields):
    assert decode_entry(encode_entry(fields)) == fields


def test_priorities_of_the_levels():
    assert [priority(lv) for lv in (50, 40, 30, 20, 10)] == [2, 3, 4, 6, 7]
    assert priority(35) == 4 and priority(5) == 7
    assert with_prefix("a\nb", logging.ERROR) == "<3>a\n<3>b"


@pytest.fixture
def journal(tmp_path):
    path = str(tmp_path / "journal.sock")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)
    yield path, sock
    sock.close()


def test_a_record_becomes_an_entry_with_priority_table_and_round(journal):
    path, sock = journal
    handler = JournaldHandler(path)
    handler.fields["TABLE"] = "T-UTH-GR"
    logger = logging.getLogger("test.journald")
    logger.addHandler(handler)
    try:
        logger.error("ledger: disk full", extra={"round_id": "T-UTH-GR-7"})
        logger.warning("a line\nand another")
    finally:
        logger.removeHandler(handler)
        handler.close()
    first = decode_entry(sock.recv(65536))
    assert first["MESSAGE"] == "ledger: disk full"
    assert (first["PRIORITY"], first["TABLE"], first["ROUND"]) == ("3", "T-UTH-GR", "T-UTH-GR-7")
    assert first["SYSLOG_IDENTIFIER"] == "croupierd"
    second = decode_entry(sock.recv(65536))
    assert second["MESSAGE"] == "a line\nand another" and "ROUND" not in second


def test_without_the_socket_the_line_keeps_its_priority_on_stderr(tmp_path):
    out = io.StringIO()
    handler = JournaldHandler(str(tmp_path / "none.sock"), fallback=out)
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "ledger: %s", ("full",), None)
    handler.emit(record)
    handler.close()
    assert out.getvalue() == "<3>ledger: full\n"


def test_without_a_journal_socket_every_line_keeps_its_prefix(tmp_path, monkeypatch):
    monkeypatch.setattr("controller.table.journald.JOURNAL_SOCKET", str(tmp_path / "none"))
    monkeypatch.setattr("controller.table.journald.stderr_is_journal", lambda: True)
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        assert configure_logging(False) == {}
        handler = root.handlers[0]
        handler.stream = io.StringIO()
        logging.getLogger("croupierd").error("ledger: full")
        assert handler.stream.getvalue() == "<3>croupierd: ledger: full\n"
    finally:
        root.handlers[:], root.level = saved


def test_stderr_is_the_journal_only_when_systemd_says_so(tmp_path, monkeypatch):
    with (tmp_path / "stream").open("w") as stream:
        st_ = os.fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{st_.st_dev}:{st_.st_ino}")
        assert stderr_is_journal(stream)
        monkeypatch.setenv("JOURNAL_STREAM", f"{st_.st_dev}:{st_.st_ino + 1}")
        assert not stderr_is_journal(stream)
        monkeypatch.delenv("JOURNAL_STREAM")
        assert not stderr_is_journal(stream)


def test_round_and_condition_effects_are_logged_with_their_round(caplog):
    caplog.set_level(logging.INFO, logger="croupierd.table")
    log_effect(OpenRound("T-1", "main", {2: 500}))
    log_effect(VoidRound("T-1", "MD-S1", "wrong count"))
    log_effect(AppendJournal("condition", {"name": "clock", "blocking": True, "detail": "no NTP"}))
    log_effect(AppendJournal("round-ended", {"round": "T-1"}))
    got = [(r.levelname, r.getMessage(), getattr(r, "round_id", None)) for r in caplog.records]
    assert got == [
        ("INFO", "round T-1 opened", "T-1"),
        ("WARNING", "round T-1 void (MD-S1): wrong count", "T-1"),
        ("WARNING", "table closed: clock: no NTP", None),
    ]


def test_the_daemons_errors_on_a_journal_stream_carry_the_err_prefix(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[table]\nid = "T 1"\n')
    log = tmp_path / "stderr"
    with log.open("w") as stderr:
        st_ = os.fstat(stderr.fileno())
        env = {**os.environ, "JOURNAL_STREAM": f"{st_.st_dev}:{st_.st_ino}"}
        run = subprocess.run(
            [sys.executable, "-m", "controller.table.daemon", "--config", str(bad)],
            stderr=stderr,
            env=env,
            check=False,
        )
    assert run.returncode == 2
    lines = log.read_text().splitlines()
    assert lines[0] == "<3>croupierd: configuration problems:"
    assert len(lines) > 1 and all(line.startswith("<3>") for line in lines)
