"""Files a person names: what may be read, and how an output file is written.

A path typed on the command line (or written in a configuration) may be anything: empty, a
directory, a fifo that blocks a reader for ever, a terminal, ``/dev/null``. The rules here are
the whole policy, so that every command refuses the same things with the same words:

- an **input file** must be a regular file; it is opened without blocking (a fifo or a
  terminal cannot hang the reader) and checked on the open descriptor (:func:`open_regular`);
- an **output file** may be new or a regular file, never a device, a directory or a fifo
  (:func:`check_output`); it is written atomically (:func:`write_atomic`): a temporary file
  in the same folder, flushed to disk, renamed over the target; the temporary file is removed
  on any failure, so a failed write leaves the old file and nothing else.

Every refusal is a :class:`FileRefused` (a :class:`CroupierError` and a ``ValueError``) whose
message names the path and what is wrong; the CLI's argument types (controller.cli.argtypes)
check the paths typed before any work starts, and argparse adds the option's name.
"""

from __future__ import annotations

import os
import stat

from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: the CLI's quick commands import this module
    from collections.abc import Callable
    from typing import IO, Any


class FileRefused(CroupierError, ValueError):
    """A path that cannot be used as the file asked for (empty, a directory, a device...)."""


def kind(mode: int) -> str:
    """What a file of ``st_mode`` is, for a message: ``a directory``, ``a fifo``..."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a fifo"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISLNK, "a symlink"),
        (stat.S_ISREG, "a regular file"),
    ):
        if test(mode):
            return name
    return "an unknown kind of file"


def _not_regular(path: str | os.PathLike[str], mode: int) -> FileRefused:
    return FileRefused(f"{os.fspath(path)} is {kind(mode)}, not a regular file")


def check_named(path: str | os.PathLike[str]) -> None:
    """Refuse an empty path (``Path('')`` would silently be the current folder)."""
    if not os.fspath(path):
        raise FileRefused("an empty path: name a file")


def check_existing(path: str | os.PathLike[str]) -> None:
    """A file to read or to replace: empty is refused, and so is anything that exists and is
    not a regular file (a missing one is left to the command: it may be made, or the reader
    says what it is and how to make it). FileRefused."""
    check_named(path)
    try:
        info = os.stat(path)
    except OSError:  # missing, or not reachable: the open that follows says which
        return
    if not stat.S_ISREG(info.st_mode):
        raise _not_regular(path, info.st_mode)


def check_input(path: str | os.PathLike[str]) -> None:
    """An input file that must exist and be a regular file (FileRefused otherwise)."""
    check_existing(path)
    if not os.path.lexists(path):
        raise FileRefused(f"{os.fspath(path)}: no such file")


def open_regular(path: str | os.PathLike[str]) -> IO[bytes]:
    """``path`` opened for reading in binary, refused unless it is a regular file. The open
    does not block (``O_NONBLOCK``: a fifo without a writer, a terminal) and the check is
    made on the descriptor opened, so nothing can be swapped in between. Raises
    FileRefused (empty path, not a regular file) or OSError (missing, no permission)."""
    check_named(path)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise _not_regular(path, info.st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike[str], limit: int = -1) -> bytes:
    """The bytes of a regular file (at most ``limit``); see :func:`open_regular`."""
    with open_regular(path) as f:
        return f.read(limit)


def check_output(path: str | os.PathLike[str]) -> None:
    """An output file: new, or a regular file to replace; its folder must exist. FileRefused
    for an empty path, a directory, a device, a fifo, a socket, or a missing folder."""
    check_existing(path)
    if not os.path.exists(path):
        _check_folder(path)


def _check_folder(path: str | os.PathLike[str]) -> None:
    """The folder the file will be written in exists: the link's target's, for a symlink to
    a file not there yet (written through the link, as write_atomic does)."""
    target = os.path.realpath(path) if os.path.islink(path) else os.fspath(path)
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise FileRefused(f"{os.fspath(path)}: no folder {folder}")


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, mode: int = 0o666, sync: bool = True
) -> None:
    """Write ``data`` to ``path`` atomically (readers see the old file or the whole new one):
    a temporary file in the same folder (created exclusively with ``mode``; an existing file
    keeps its own permission bits, never looser than ``mode``), flushed to disk when ``sync``,
    renamed over ``path``. The temporary file never outlives a failure. Through a symlink the
    file it names is written and the link stays. A regular file this user may write in a
    folder it may not (no temporary file can be made there) is written in place, as the
    shell's ``>`` would. ``path`` is checked first (:func:`check_output`); errors name
    ``path``, not the temporary file."""
    import contextlib

    check_output(path)
    target = os.path.realpath(path)  # a symlink's file, not the link
    check_output(target)
    folder, name = os.path.split(target)
    tmp = os.path.join(folder, f".{name[:200]}.{os.urandom(4).hex()}.tmp")
    try:
        existing: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        existing = None
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    except PermissionError as exc:
        if existing is None or not os.access(target, os.W_OK):
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
        _write_in_place(target, data, sync)
        return
    except OSError as exc:  # a folder that takes no new file (/proc): named as the user did
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
    try:
        try:
            if existing is not None:  # the file's own bits, never looser than ``mode``
                os.fchmod(fd, stat.S_IMODE(existing.st_mode) & mode)
            _write_all(fd, data, sync)
        finally:
            os.close(fd)
        check_output(target)  # made a directory or a device meanwhile: not replaced
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
        raise


def write_new(
    path: str | os.PathLike[str], data: bytes, *, mode: int = 0o600, sync: bool = True
) -> None:
    """Create ``path`` holding ``data``, never replacing anything: readers see no file or the
    whole one, and of processes creating it at once exactly one succeeds, the others get
    FileExistsError (a key is created once). The data goes to a temporary file in the same
    folder, then is linked to ``path`` (link(2) fails where ``path`` exists); errors name
    ``path``."""
    import contextlib

    check_output(path)
    folder, name = os.path.split(os.path.abspath(path))
    tmp = os.path.join(folder, f".{name[:200]}.{os.urandom(4).hex()}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        try:
            _write_all(fd, data, sync)
        finally:
            os.close(fd)
        os.link(tmp, path)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, os.fspath(path)) from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _write_all(fd: int, data: bytes, sync: bool) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    if sync:
        os.fsync(fd)


def _write_in_place(target: str, data: bytes, sync: bool) -> None:
    """``data`` over the regular file ``target`` itself (not atomic: the folder takes no new
    file)."""
    with open(target, "r+b") as f:
        f.truncate(0)
        f.write(data)
        if sync:
            f.flush()
            os.fsync(f.fileno())


def check_replaceable(path: str | os.PathLike[str], is_kind: Callable[[int], bool]) -> None:
    """A path this program makes a symlink or a socket at: new, or one of that kind
    (``stat.S_ISLNK``, ``stat.S_ISSOCK``; a stale one of an earlier run is replaced), never a
    file, a directory or a device it would destroy. FileRefused otherwise."""
    check_named(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        _check_folder(path)
        return
    if not is_kind(info.st_mode):
        raise FileRefused(
            f"{os.fspath(path)} exists and is {kind(info.st_mode)}: name a new path (only a"
            " stale link or socket is replaced)"
        )


def remove_stale(path: str | os.PathLike[str], is_kind: Callable[[int], bool]) -> None:
    """Remove what an earlier run left at ``path`` (a socket, a symlink) when it is of that
    kind (``stat.S_ISSOCK``, ``stat.S_ISLNK``); anything else is left alone, for the bind or
    the link that follows to refuse: a regular file that happens to be there is never lost."""
    try:
        if is_kind(os.lstat(path).st_mode):
            os.unlink(path)
    except FileNotFoundError:
        pass


# The longest path a Unix socket is bound at on Linux (sun_path: 108 bytes with its NUL)
SOCKET_PATH_MAX = 107


def check_socket_length(path: str | os.PathLike[str]) -> None:
    """A Unix socket can be bound at ``path``: at most SOCKET_PATH_MAX bytes. FileRefused
    naming the path and its length otherwise (bind(2) says only "AF_UNIX path too long")."""
    size = len(os.fsencode(path))
    if size > SOCKET_PATH_MAX:
        raise FileRefused(
            f"{os.fspath(path)}: {size} bytes, longer than the {SOCKET_PATH_MAX} a Unix"
            " socket's path may have"
        )


def check_socket_to_connect(path: str | os.PathLike[str]) -> None:
    """A daemon's socket this program connects to: missing is left to the connection (the
    daemon may not be running: a failure, not a mistake), but anything there that is not a
    socket (a directory, a regular file) is FileRefused naming what it is (connect(2) says
    only "Connection refused")."""
    check_named(path)
    check_socket_length(path)
    try:
        info = os.stat(path)
    except OSError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise FileRefused(f"{os.fspath(path)} is {kind(info.st_mode)}, not a socket")


def clear_socket_path(path: str | os.PathLike[str]) -> None:
    """Make way for a Unix socket this process will bind at ``path``: nothing there, or a
    socket no process listens on (an earlier run's, removed). FileRefused for a path too long
    for a socket, for a socket a live process serves (binding would take it over: a second
    daemon or emulator on one path) and for anything that is not a socket (a file named by
    mistake is never deleted)."""
    import socket

    check_socket_length(path)
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise FileRefused(f"{os.fspath(path)} exists and is {kind(info.st_mode)}: not replaced")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.settimeout(1.0)
        probe.connect(os.fspath(path))
    except (ConnectionRefusedError, FileNotFoundError):  # nobody listens: stale
        _unlink(path)
        return
    except OSError as exc:
        raise FileRefused(
            f"{os.fspath(path)}: cannot tell whether another process serves this socket"
            f" ({exc.strerror or exc}); not replaced"
        ) from None
    finally:
        probe.close()
    raise FileRefused(
        f"{os.fspath(path)}: another process is serving this socket (a second daemon or"
        " emulator on the same path?); not replaced"
    )


def file_identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """What :func:`remove_if_same` compares: the file at ``path`` (device, inode), or None."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    return info.st_dev, info.st_ino


def remove_if_same(path: str | os.PathLike[str], identity: tuple[int, int] | None) -> None:
    """Remove ``path`` when it is still the file ``identity`` names (the socket this process
    bound): another process's socket made there since is left alone."""
    if identity is not None and file_identity(path) == identity:
        _unlink(path)


def _unlink(path: str | os.PathLike[str]) -> None:
    """``path`` removed, if it is still there (contextlib is not loaded for a quick command)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        return


def check_directory(path: str | os.PathLike[str]) -> None:
    """A directory the program keeps its files in, made (with the folders above it) when
    missing: empty is refused, and so is anything there that is not a directory, a file in
    the place of a folder above it, and a directory this process may not write in (or make
    the missing one in). FileRefused naming the path and what is wrong. A directory that
    cannot be made for another reason (``/proc/x``) is found by the ``mkdir`` itself."""
    name = os.fspath(path)
    if not name:
        raise FileRefused("an empty path: name a directory")
    existing = name
    while not os.path.lexists(existing):  # the nearest part of the path that exists
        parent = os.path.dirname(os.path.normpath(existing)) or "."
        if parent == existing:
            break
        existing = parent
    try:
        info = os.stat(existing)
    except OSError as exc:  # a dangling symlink, a folder above that cannot be searched
        raise FileRefused(f"{name}: {exc.strerror}") from None
    if not stat.S_ISDIR(info.st_mode):
        what = name if existing == name else f"{name}: {existing}"
        raise FileRefused(f"{what} is {kind(info.st_mode)}, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        doing = "write in it" if existing == name else f"make it in {existing}"
        raise FileRefused(
            f"{name}: permission denied (this user, uid {os.geteuid()}, cannot {doing})"
        )


# --- argument types: a path typed on a command line, checked before any work -----------


def path_argument(check: Callable[[str], None], *, as_path: bool = True) -> Callable[[str], Any]:
    """An argument type: the text as a Path (``as_path``, else the text itself) once ``check``
    (controller.files) accepts it; argparse then names the option in its one-line usage error
    (exit status 2)."""

    def convert(text: str) -> Any:
        try:
            check(text)
        except FileRefused as exc:
            import argparse  # loaded already: argparse is reading the value

            raise argparse.ArgumentTypeError(str(exc)) from None
        if not as_path:
            return text
        from pathlib import Path

        return Path(text)

    convert.__name__ = check.__name__.lstrip("_")  # argparse names the type
    return convert


def _directory(text: str) -> None:
    check_directory(text)


# a directory the program keeps its files in (--state-dir, --runtime-dir), made when missing:
# a file in its place, or in the place of a folder above it, is refused before any work
directory = path_argument(_directory)
