"""Run-time control of the emulator: faults, physical events, inspection.

The same commands work in-process (``handle_command(target, {...})``, for tests) and from
another process over a Unix socket speaking JSON lines (``EmulatorControlServer`` /
:class:`EmulatorControl`, for the hardware-in-the-loop rig). One request object per line,
one reply per line: ``{"ok": true, ...}`` or ``{"ok": false, "error": "..."}``.

Commands (``"cmd"`` key):

- ``faults``: ``{"rx": {...}, "tx": {...}, "machine": {...}}`` update fault settings
  (keys of ``FrameFaults`` / ``MachineFaults``); returns them all;
- ``clear``: every fault setting back to off;
- ``fault``: ``{"code": "JAM", "detail": "..."}`` raise an asynchronous fault (JAM, MISFEED,
  DECK_ERROR, SENSOR_FAILURE);
- ``door``: ``{"open": true}``;
- ``draw``: ``{"count": 1}`` the dealer draws cards from the shoe (CARD events);
- ``deck``: ``{"remove": [codes], "duplicate": [codes], "foreign": n}`` tamper with the deck;
- ``arrange``: ``{"cards": [codes, top first], "now": false}`` these cards come out first
  from the next shuffle (``now``: from the shoe in play); tests and the rig only;
- ``disconnect``: ``{"seconds": 1.0}`` pull the cable;
- ``reboot``: the device restarts (new ``boot_id``, no session, shuffled stack lost);
- ``state``: the machine's hidden truth (stack top first, delivered cards, counters).
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import socketserver
import stat
import threading
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from firmware_bridge.codes import ErrorCode
from firmware_bridge.emulator.faults import FrameFaults, MachineFaults
from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import MachineError
from firmware_bridge.errors import LinkError, LocalProtocolError

log = logging.getLogger(__name__)

ASYNC_FAULTS = ("JAM", "MISFEED", "DECK_ERROR", "SENSOR_FAILURE")


T = TypeVar("T")


class EmulatorHost(Protocol):
    """What runs a firmware: the pty runner or the USB backend."""

    def call(self, fn: Callable[[DeviceFirmware, float], T]) -> T: ...

    def disconnect(self, seconds: float) -> None: ...


def _settings(fw: DeviceFirmware) -> dict[str, Any]:
    return {
        "rx": fw.rx.faults.to_dict(),
        "tx": fw.tx.faults.to_dict(),
        "machine": fw.machine.faults.to_dict(),
    }


def _set_faults(fw: DeviceFirmware, req: dict[str, Any]) -> dict[str, Any]:
    rx = fw.rx.faults.updated(req.get("rx", {}))  # validate everything before changing anything
    tx = fw.tx.faults.updated(req.get("tx", {}))
    machine = fw.machine.faults.updated(req.get("machine", {}))
    fw.rx.faults, fw.tx.faults, fw.machine.faults = rx, tx, machine
    return _settings(fw)


def _clear(fw: DeviceFirmware) -> dict[str, Any]:
    fw.rx.faults, fw.tx.faults, fw.machine.faults = FrameFaults(), FrameFaults(), MachineFaults()
    return _settings(fw)


def _state(fw: DeviceFirmware) -> dict[str, Any]:
    m = fw.machine
    return {
        "state": m.state.name,
        "fault": m.fault.name,
        "door_open": m.door_open,
        "decks": m.decks,
        "stack_top_first": m.stack[::-1],
        "delivered": m.out,
        "packets": m.packets,
        "cards": len(m.cards),
        "boot_id": fw.boot_id,
        "stats": dict(fw.stats),
        "rx": dict(fw.rx.stats),
        "tx": dict(fw.tx.stats),
    }


def _codes(req: dict[str, Any], key: str) -> tuple[int, ...]:
    value = req.get(key, [])
    if not isinstance(value, list) or not all(isinstance(c, int) for c in value):
        raise LocalProtocolError(f"{key} must be a list of card codes 0..51")
    return tuple(value)


def handle_command(host: EmulatorHost, req: dict[str, Any]) -> dict[str, Any]:
    """Carry out one control command; never raises (errors become ``{"ok": false}``)."""
    try:
        return {"ok": True, **_dispatch(host, req)}
    except (LinkError, MachineError, ValueError, TypeError, KeyError) as exc:
        return {"ok": False, "error": str(exc)}


def _dispatch(host: EmulatorHost, req: dict[str, Any]) -> dict[str, Any]:
    cmd = req.get("cmd")
    if cmd == "faults":
        return host.call(lambda fw, now: _set_faults(fw, req))
    if cmd == "clear":
        return host.call(lambda fw, now: _clear(fw))
    if cmd == "state":
        return host.call(lambda fw, now: _state(fw))
    if cmd == "fault":
        code = req.get("code")
        if code not in ASYNC_FAULTS:
            raise LocalProtocolError(f"fault code {code!r}: one of {', '.join(ASYNC_FAULTS)}")
        detail = str(req.get("detail", f"{code} injected"))[:64]
        host.call(lambda fw, now: fw.raise_fault(ErrorCode[code], detail, now))
        return {}
    if cmd == "door":
        host.call(lambda fw, now: fw.set_door(bool(req.get("open", True)), now))
        return {}
    if cmd == "draw":
        count = int(req.get("count", 1))

        def draw(fw: DeviceFirmware, now: float) -> list[int | None]:
            for _ in range(count):
                fw.draw_card(now)
            return fw.machine.out[-count:]

        return {"cards": host.call(draw)}
    if cmd == "deck":
        remove, duplicate = _codes(req, "remove"), _codes(req, "duplicate")
        foreign = int(req.get("foreign", 0))
        host.call(lambda fw, now: fw.machine.tamper_deck(remove, duplicate, foreign))
        return {}
    if cmd == "arrange":
        cards, now = list(_codes(req, "cards")), bool(req.get("now", False))
        host.call(lambda fw, t: fw.machine.arrange(cards, now=now))
        return {}
    if cmd == "reboot":
        host.call(lambda fw, now: fw.power_cycle())
        return {}
    if cmd == "disconnect":
        host.disconnect(float(req.get("seconds", 1.0)))
        return {}
    raise LocalProtocolError(f"unknown command {cmd!r}")


class EmulatorControlServer:
    """JSON-lines control socket for one emulator host; serves in a background thread."""

    def __init__(self, host: EmulatorHost, path: str) -> None:
        self.path = path
        _remove_stale_socket(path)
        emulator = host

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                for line in self.rfile:
                    try:
                        req = json.loads(line)
                        if not isinstance(req, dict):
                            raise ValueError("a command is a JSON object")
                        reply = handle_command(emulator, req)
                    except ValueError as exc:
                        reply = {"ok": False, "error": f"bad JSON: {exc}"}
                    self.wfile.write(json.dumps(reply).encode() + b"\n")

        self._server = socketserver.ThreadingUnixStreamServer(path, Handler)
        self._bound = os.stat(path).st_ino  # stop removes this socket, not one made there since
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="emulator-control", daemon=True
        )

    def start(self) -> EmulatorControlServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        try:
            if os.lstat(self.path).st_ino == self._bound:
                os.unlink(self.path)
        except FileNotFoundError:
            pass


def _remove_stale_socket(path: str) -> None:
    """Remove the socket an earlier run left at ``path``; anything else that is there (a file
    named by mistake) is refused with FileExistsError, never deleted. (``croupier emulator``
    first refuses a socket a live emulator serves: controller.files.clear_socket_path.)"""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        raise FileExistsError(errno.EEXIST, "exists and is not a socket: not replaced", path)
    os.unlink(path)


class EmulatorControl:
    """Client of :class:`EmulatorControlServer` (the rig's side). Raises LinkError on refusal."""

    def __init__(self, path: str, timeout: float = 5.0) -> None:
        self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._sock.settimeout(timeout)
        self._sock.connect(path)
        self._file = self._sock.makefile("rwb")

    def call(self, cmd: str, **args: Any) -> dict[str, Any]:
        self._file.write(json.dumps({"cmd": cmd, **args}).encode() + b"\n")
        self._file.flush()
        reply: dict[str, Any] = json.loads(self._file.readline())
        if not reply.get("ok"):
            raise LocalProtocolError(f"emulator refused {cmd}: {reply.get('error')}")
        return reply

    def set_faults(self, **settings: dict[str, Any]) -> dict[str, Any]:
        return self.call("faults", **settings)

    def clear(self) -> None:
        self.call("clear")

    def state(self) -> dict[str, Any]:
        return self.call("state")

    def arrange(self, cards: list[int], *, now: bool = False) -> None:
        """These cards (top first) come out first: from the next shuffle, or ``now`` from the
        shoe in play."""
        self.call("arrange", cards=cards, now=now)

    def close(self) -> None:
        self._file.close()
        self._sock.close()

    def __enter__(self) -> EmulatorControl:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
