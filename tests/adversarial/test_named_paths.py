"""Paths a person names (the review of the CLI's files): an output never replaces a device, a
directory or a fifo and never leaves its temporary file behind; a symlink or socket made at a
path never deletes a file that was there; a ledger path is checked before its lock file is
made; a reader never blocks on a fifo or a terminal. The CLI's parse-time checks of every
option are in tests/unit/cli/test_cli_every_command.py; these are the layers under them, which
the daemon and the rig use too."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.books.ledger.errors import LedgerError, LedgerIOError
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.cli.main import main
from firmware_bridge.emulator.control import EmulatorControlServer
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import ShufflerMachine
from firmware_bridge.emulator.pty_runner import PtyEmulator

ROOT = Path(__file__).resolve().parents[2]
HANG = 20  # seconds: a reader blocked on a fifo is a failure, not a slow pass


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def test_a_failed_manifest_write_leaves_the_old_file_and_no_temporary_file(
    tmp_path, monkeypatch, capsys
):
    target = tmp_path / "manifest.json"
    target.write_text("old")

    def disk_full(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    assert main(["selfcheck", "manifest", "--output", str(target)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
    assert target.read_text() == "old"


def test_a_manifest_is_never_renamed_over_a_fifo(fifo, capsys):
    with pytest.raises(SystemExit) as refused:  # argparse: a usage error
        main(["selfcheck", "manifest", "--output", str(fifo)])
    assert refused.value.code == 2
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in fifo.parent.iterdir()) == ["fifo"]


def test_write_atomic_refuses_a_directory_made_meanwhile(tmp_path, monkeypatch):
    """Checked again just before the rename: the temporary file is removed."""
    from controller.files import FileRefused, write_atomic

    target = tmp_path / "out"
    real_fsync = os.fsync

    def make_a_directory_there(fd: int) -> None:
        real_fsync(fd)
        target.mkdir()

    monkeypatch.setattr(os, "fsync", make_a_directory_there)
    with pytest.raises(FileRefused, match="is a directory"):
        write_atomic(target, b"data")
    assert [p.name for p in tmp_path.iterdir()] == ["out"] and target.is_dir()


def test_the_emulator_refuses_a_link_over_a_regular_file_and_keeps_it(tmp_path):
    precious = tmp_path / "existing.txt"
    precious.write_text("keep me")
    done = subprocess.run(
        [sys.executable, "-m", "controller.cli.main", "emulator", "--link", str(precious)],
        capture_output=True,
        text=True,
        timeout=HANG,  # it once served on, having replaced the file with its link
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "--link" in done.stderr and "is a regular file" in done.stderr
    assert precious.read_text() == "keep me"


def _firmware() -> DeviceFirmware:
    return DeviceFirmware(ShufflerMachine(1))


def test_the_pty_emulator_never_replaces_a_file_with_its_link(tmp_path):
    precious = tmp_path / "existing.txt"
    precious.write_text("keep me")
    emulator = PtyEmulator(_firmware(), str(precious))
    with pytest.raises(FileExistsError, match="not a symlink"):
        emulator.start()
    emulator.stop()
    assert precious.read_text() == "keep me"


def test_the_pty_emulator_removes_only_its_own_link(tmp_path):
    link = tmp_path / "shuffler"
    os.symlink("/nonexistent/stale-pty", link)  # a stale link of an earlier run: replaced
    emulator = PtyEmulator(_firmware(), str(link)).start()
    try:
        assert os.readlink(link) == emulator.slave_path
        link.unlink()
        link.write_text("made by someone else meanwhile")
    finally:
        emulator.stop()
    assert link.read_text() == "made by someone else meanwhile"


def test_the_emulator_control_socket_never_deletes_a_file(tmp_path):
    precious = tmp_path / "control.sock"
    precious.write_text("keep me")
    with pytest.raises(FileExistsError, match="not a socket"):
        EmulatorControlServer(PtyEmulator(_firmware()), str(precious))
    assert precious.read_text() == "keep me"


def test_remove_stale_removes_only_its_kind(tmp_path):
    from controller.files import remove_stale

    regular = tmp_path / "shuffler.pty"
    regular.write_text("keep me")
    remove_stale(regular, stat.S_ISLNK)  # croupierd's emulator link: not a symlink, kept
    assert regular.read_text() == "keep me"
    link = tmp_path / "link"
    os.symlink("/nonexistent", link)
    remove_stale(link, stat.S_ISLNK)
    remove_stale(tmp_path / "absent", stat.S_ISLNK)
    assert not os.path.lexists(link)


@pytest.mark.parametrize("what", ["directory", "fifo"])
def test_a_ledger_path_is_checked_before_its_lock_file_is_made(tmp_path, what):
    path = tmp_path / "ledger"
    path.mkdir() if what == "directory" else os.mkfifo(path)
    with pytest.raises(LedgerIOError, match=f"is a {what}, not a regular file"):
        Ledger.open(path, now=time.monotonic(), create=False)
    with pytest.raises(LedgerIOError, match=f"is a {what}"):
        Ledger.open(path, now=time.monotonic())
    with pytest.raises(LedgerIOError, match=f"is a {what}"):  # once "no ledger at"
        LedgerReader.open(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger"]


def test_a_missing_ledger_is_still_named_as_missing(tmp_path):
    with pytest.raises(LedgerError, match="no ledger at"):
        Ledger.open(tmp_path / "none.sqlite3", now=time.monotonic(), create=False)
    assert list(tmp_path.iterdir()) == []


# Each reader of a file from outside, on a fifo that has no writer: it once blocked for ever
# in open(). Run in a child, so that a regression fails on the timeout instead of hanging.
READERS = {
    "table configuration": (
        "from controller.table.tableconfig import load_table_config as read",
        "is a fifo",
    ),
    "round file": ("from controller.cli.settle_cmd import read_round as read", "is a fifo"),
    "ledger keyring": ("from controller.books.ledger.keys import load_keyring as read", "fifo"),
    "report public key": (
        "from controller.books.reports.signing import load_public as read",
        "fifo",
    ),
    "profile": ("from controller.engine.profiles import load_profile as read", "is a fifo"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_no_reader_blocks_on_a_fifo(reader, tmp_path):
    fifo = tmp_path / "named.toml"
    os.mkfifo(fifo)
    imported, says = READERS[reader]
    code = f"""
{imported}
from controller.errors import CroupierError
try:
    read({str(fifo)!r})
except CroupierError as exc:
    print(exc)
"""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert says in done.stdout and str(fifo) in done.stdout


# --- write_atomic through links, modes and folders (the second review) ---------------------


def test_an_output_through_a_symlink_writes_the_file_it_names(tmp_path):
    """The link stays a link (the old write_text wrote through it; a rename over the link
    replaced it and left the real file stale); a dangling link's file is created."""
    from controller.files import write_atomic

    real = tmp_path / "real.txt"
    real.write_text("old\n")
    (tmp_path / "link.txt").symlink_to(real)
    write_atomic(tmp_path / "link.txt", b"new\n")
    assert (tmp_path / "link.txt").is_symlink() and real.read_text() == "new\n"
    (tmp_path / "dangling").symlink_to(tmp_path / "made.txt")
    write_atomic(tmp_path / "dangling", b"x\n")
    assert (tmp_path / "dangling").is_symlink() and (tmp_path / "made.txt").read_bytes() == b"x\n"


def test_a_dangling_link_into_a_missing_folder_is_refused_before_any_work(tmp_path, capsys):
    """The output is written through the link: its target's folder must exist, as for a
    path named directly (a usage error, exit 2); it was exit 1 after the work was done."""
    from controller.cli.main import main

    (tmp_path / "dangling.json").symlink_to(tmp_path / "gone" / "report.json")
    with pytest.raises(SystemExit) as stopped:
        main(["report", "day", "--output", str(tmp_path / "dangling.json"), "--socket", "/x"])
    assert stopped.value.code == 2
    assert f"no folder {tmp_path / 'gone'}" in capsys.readouterr().err


def test_an_output_keeps_its_files_permissions_never_looser(tmp_path):
    from controller.files import write_atomic

    kept = tmp_path / "kept"
    kept.write_text("a")
    kept.chmod(0o600)
    write_atomic(kept, b"b")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    loose = tmp_path / "key.pem"
    loose.write_text("a")
    loose.chmod(0o644)
    write_atomic(loose, b"b", mode=0o600)
    assert stat.S_IMODE(loose.stat().st_mode) == 0o600


def test_a_writable_file_in_a_folder_that_takes_no_new_file_is_written_in_place(
    tmp_path, monkeypatch
):
    """As the shell's ``>``: no temporary file can be made, the file itself is writable."""
    from controller import files

    out = tmp_path / "out.txt"
    out.write_text("old")
    real_open = os.open

    def no_new_files(path, flags, *args):
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", path)
        return real_open(path, flags, *args)

    monkeypatch.setattr(files.os, "open", no_new_files)
    files.write_atomic(out, b"new")
    assert out.read_bytes() == b"new"
    with pytest.raises(OSError) as refused:  # a new file there cannot be made at all
        files.write_atomic(tmp_path / "new.txt", b"x")
    assert refused.value.filename == str(tmp_path / "new.txt")  # the path named, not a temp


def test_a_failed_write_names_the_output_not_its_temporary_file(tmp_path, monkeypatch):
    from controller import files

    def full(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "write", full)
    with pytest.raises(OSError) as failed:
        files.write_atomic(tmp_path / "out.txt", b"x")
    assert failed.value.filename == str(tmp_path / "out.txt")
    assert os.listdir(tmp_path) == []


def test_a_folder_that_refuses_new_files_otherwise_is_named_as_the_user_did(tmp_path, capsys):
    """/proc takes no new file (ENOENT, not EACCES): the error named the temporary file
    (``croupier sign: /proc/.x.png.eb4c6d62.tmp: No such file or directory``)."""
    from controller import files

    with pytest.raises(OSError) as refused:
        files.write_atomic("/proc/croupier-test.png", b"x")
    assert refused.value.filename == "/proc/croupier-test.png"
    status = main(["sign", "show", "1", "--png", "/proc/croupier-test.png", "--backend", "dummy"])
    assert status == 1
    assert capsys.readouterr().err == (
        "croupier sign: /proc/croupier-test.png: No such file or directory\n"
    )


# --- a live socket is never taken over (the second review) ---------------------------------


def test_a_second_control_server_on_a_live_socket_is_refused_and_takes_nothing(tmp_path):
    """Two daemons given one absolute [control] socket: the second bound over the first's and
    either one's stop deleted the other's socket. Now the second is refused; the first keeps
    serving; a stale socket (nobody listening) is still replaced."""
    import asyncio
    import socket

    from controller.files import FileRefused
    from controller.table.control.server import ControlServer

    path = tmp_path / "control.sock"

    async def scene() -> None:
        first, second = ControlServer(path), ControlServer(path)
        await first.start()
        with pytest.raises(FileRefused, match="another process is serving"):
            await second.start()
        await second.close()  # never bound: removes nothing
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        probe.connect(str(path))  # the first still serves
        probe.close()
        await first.close()
        assert not path.exists()
        stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stale.bind(str(path))  # bound, never listening, closed: an earlier run's leftover
        stale.close()
        third = ControlServer(path)
        await third.start()
        await third.close()

    asyncio.run(scene())


def test_a_second_emulator_on_a_live_control_socket_is_refused(tmp_path, capsys):
    path = tmp_path / "emulator.sock"
    live = EmulatorControlServer(PtyEmulator(_firmware()), str(path)).start()
    try:
        before = os.stat(path).st_ino
        status = main(["emulator", "--link", str(tmp_path / "b"), "--control", str(path)])
        err = capsys.readouterr().err
        assert status == 1 and "another process is serving" in err, err
        assert os.stat(path).st_ino == before  # the live one's socket, untouched
    finally:
        live.stop()
    assert not path.exists()


# --- a file created once (controller.files.write_new): a keyring, by any number at once ----
def test_write_new_creates_the_whole_file_once_and_never_replaces(tmp_path):
    from controller.files import write_new

    target = tmp_path / "new.key"
    write_new(target, b"first\n", mode=0o400)
    assert target.read_bytes() == b"first\n" and stat.S_IMODE(target.stat().st_mode) == 0o400
    with pytest.raises(FileExistsError) as refused:
        write_new(target, b"second\n")
    assert refused.value.filename == str(target)
    assert target.read_bytes() == b"first\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.key"]  # no temporary file left


def test_of_keyrings_created_at_once_exactly_one_is_made(tmp_path):
    """Eight creators of one keyring path at the same moment: one keyring, the others told it
    exists (`ledger-key create` run twice at once reported three different keys, of which the
    file kept one)."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from controller.books.ledger.keys import LedgerKeyError, create_keyring, load_keyring

    path = tmp_path / "ledger.key"
    start = threading.Barrier(8)

    def create(_: int) -> str:
        start.wait()
        try:
            return create_keyring(path).current.key_id
        except LedgerKeyError as exc:
            assert "exists already" in str(exc)
            return ""

    with ThreadPoolExecutor(8) as pool:
        made = [key for key in pool.map(create, range(8)) if key]
    assert made == [load_keyring(path).current.key_id]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.key"]


def test_a_socket_path_too_long_to_bind_is_refused_before_anything_is_touched(tmp_path, capsys):
    from controller.files import FileRefused, clear_socket_path

    long = tmp_path / ("s" * (108 - len(str(tmp_path)) - 1))  # 108 bytes
    with pytest.raises(FileRefused, match="108 bytes, longer than the 107"):
        clear_socket_path(long)
    with pytest.raises(SystemExit) as usage:
        main(["emulator", "--control", str(long)])
    assert usage.value.code == 2
    err = capsys.readouterr().err
    assert "argument --control" in err and "longer than the 107" in err
