"""The link between a daemon's rig pin factory and the hardware-in-the-loop rig.

Theory of operation. In the rig the table's sensors, buttons and lamps are simulated by a
separate process, the **rig**, which owns the pin levels. The daemon runs unmodified with the
``rig`` pin factory (:mod:`drivers.gpio.rig_factory`): its input pins read the levels the rig
drives, its output pins report their levels to the rig. One Unix stream socket connects them.

**Who listens: the rig.** The rig is the fixture that outlives the daemon under test (rig
scenarios restart and ``kill -9`` daemons), so it binds the socket (``gpio.rig_socket``, or
:func:`default_socket_path`) and the daemon connects. Either may start first:

- rig first: it listens and waits for a daemon (``RigServer.wait_for_daemon``);
- daemon first: its factory retries the connection in the background (50 ms, doubling to 1 s)
  and meanwhile behaves like a board with the cable unplugged: inputs read their pull level,
  outputs are remembered;
- on every (re)connection the daemon sends a snapshot of all its pins (``hello``) and the rig
  answers with the levels it drives (``levels``); a rig or daemon restart is just a new
  connection. When the link drops, the daemon's inputs fall back to their pull levels.

Messages are JSON objects, one per line, with an ``op``:

=========  ==============  ==========================================================
direction  op              fields
=========  ==============  ==========================================================
daemon     ``hello``       ``pid``, ``pins``: {"17": {"function", "pull", "state"}}
daemon     ``setup``       ``pin``, ``function`` (input/output), ``pull``, ``state``
daemon     ``output``      ``pin``, ``state`` (0/1)
daemon     ``close``       ``pin``
rig        ``levels``      ``levels``: {"17": 0, ...} (every pin the rig drives)
rig        ``drive``       ``pin``, ``level`` (0/1), ``t``
rig        ``release``     ``pin`` (back to its pull level), ``t``
=========  ==============  ==========================================================

An input the rig does not drive reads its pull: ``up`` 1, ``down`` and ``floating`` 0.

``t`` is when the rig changed the level, on ``time.monotonic()`` (the rig and the daemon share
one host and its monotonic clock): the daemon times the edge by it, as a GPIO backend with edge
timestamps would, so a busy daemon that reads two edges late still sees how far apart they
were (a button released and pressed again is not taken for a bounce).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from drivers.errors import RigError

SOCKET_ENV = "CROUPIER_RIG_SOCKET"
POLL_SECONDS = 0.1  # how often a blocked reader checks whether it must stop
MAX_LINE = 64 * 1024

_FIELDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "hello": {"pid": int, "pins": dict},
    "setup": {"pin": int, "function": str, "pull": str, "state": int},
    "output": {"pin": int, "state": int},
    "close": {"pin": int},
    "levels": {"levels": dict},
    "drive": {"pin": int, "level": int, "t": float},
    "release": {"pin": int, "t": float},
}


def default_socket_path() -> str:
    """``$CROUPIER_RIG_SOCKET``, else ``$XDG_RUNTIME_DIR/croupier-rig.sock``, else a per-user
    path in the temporary directory."""
    if path := os.environ.get(SOCKET_ENV):
        return path
    if runtime := os.environ.get("XDG_RUNTIME_DIR"):
        return str(Path(runtime) / "croupier-rig.sock")
    return str(Path(tempfile.gettempdir()) / f"croupier-rig-{os.getuid()}.sock")


def pull_level(pull: str) -> int:
    return 1 if pull == "up" else 0


def encode(op: str, **fields: Any) -> bytes:
    return json.dumps({"op": op, **fields}, separators=(",", ":")).encode() + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    """One message, checked: raises :class:`RigError` naming what is wrong."""
    try:
        message = json.loads(line)
    except ValueError as exc:
        raise RigError(f"rig link: not JSON: {line[:80]!r}") from exc
    if not isinstance(message, dict) or message.get("op") not in _FIELDS:
        raise RigError(f"rig link: unknown message {line[:80]!r}")
    for name, kind in _FIELDS[message["op"]].items():
        value = message.get(name)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise RigError(f"rig link: {message['op']} needs {name} ({kind}), got {value!r}")
    for name in ("state", "level"):
        if name in message and message[name] not in (0, 1):
            raise RigError(f"rig link: {name} must be 0 or 1, got {message[name]!r}")
    return message


class LineLink:
    """A connected socket that sends and receives messages; :meth:`messages` returns when the
    peer closes or ``stop`` is set, and raises :class:`RigError` on a malformed message."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.sock.settimeout(POLL_SECONDS)
        self._send_lock = threading.Lock()

    def send(self, data: bytes) -> bool:
        """Send ``data`` (an :func:`encode` result); False if the link is gone."""
        with self._send_lock:
            try:
                self.sock.sendall(data)
                return True
            except OSError:
                return False

    def messages(self, stop: threading.Event) -> Iterator[dict[str, Any]]:
        buffer = b""
        while not stop.is_set():
            try:
                chunk = self.sock.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                return
            if not chunk:
                return
            buffer += chunk
            *lines, buffer = buffer.split(b"\n")
            if len(buffer) > MAX_LINE:
                raise RigError("rig link: message longer than 64 KiB")
            for line in lines:
                if line.strip():
                    yield decode(line)

    def close(self) -> None:
        with contextlib.suppress(OSError):  # already shut down by the peer
            self.sock.shutdown(socket.SHUT_RDWR)
        self.sock.close()
