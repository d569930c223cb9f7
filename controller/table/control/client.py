"""The blocking control-socket client the CLI (and the rig) use: one connection, requests
answered in order. Kept apart from the asyncio server so that ``croupier status`` loads no
asyncio, and to json (controller.table.control.wire) for the same reason.

The connection is the C socket type itself (``_socket``, which the ``socket`` module wraps):
``socket`` imports selectors and builds an enum of every address family, socket type, flag
and error number, a sixth of what ``croupier status`` costs beyond a bare interpreter on a
Pi-class CPU (bench/pi_budget.py). Everything used here (connect, sendall, recv, timeouts,
the OSError subclasses) is the C type's own."""

from __future__ import annotations

import _socket

from controller.table.control.wire import ControlError, decode_reply, encode_request

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: importing them costs every command time
    from pathlib import Path
    from typing import Any


class ControlClient:
    """Blocking client for the CLI: one connection, requests answered in order."""

    def __init__(self, path: str | Path, *, timeout: float = 10.0) -> None:
        self.path = str(path)
        self.timeout = timeout
        self._sock: _socket.socket | None = None
        self._buffer = b""
        self._next_id = 1

    def __enter__(self) -> ControlClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def connect(self) -> None:
        sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        sock.settimeout(self.timeout)
        try:
            sock.connect(self.path)
        except FileNotFoundError:
            sock.close()
            raise ControlError(f"no daemon socket at {self.path} (is croupierd running?)") from None
        except PermissionError:
            sock.close()
            raise ControlError(
                f"permission denied on {self.path} (are you in the croupier group?)"
            ) from None
        except OSError as exc:
            sock.close()
            from controller.files import FileRefused, check_socket_to_connect

            try:  # $CROUPIER_SOCKET naming a directory: not "Connection refused"
                check_socket_to_connect(self.path)
            except FileRefused as wrong:
                raise ControlError(str(wrong)) from None
            raise ControlError(f"cannot connect to {self.path}: {exc.strerror}") from None
        self._sock = sock

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _peer_closed(self) -> bool:
        """Did the daemon close this idle connection (its idle timeout)? Then a request on it
        would be lost: reconnect first. Nothing was sent, so nothing is sent twice."""
        assert self._sock is not None
        try:
            self._sock.setblocking(False)
            try:
                data = self._sock.recv(1, _socket.MSG_PEEK)
            finally:
                self._sock.settimeout(self.timeout)
        except BlockingIOError:
            return False
        except OSError:
            return True
        return data == b""

    def call(self, cmd: str, credential: str | None = None, **args: Any) -> Any:
        if self._sock is not None and not self._buffer and self._peer_closed():
            self.close()
        if self._sock is None:
            self.connect()
        assert self._sock is not None
        request = encode_request(cmd, args, self._next_id, credential)
        self._next_id += 1
        try:
            self._sock.sendall(request)
            while b"\n" not in self._buffer:
                chunk = self._sock.recv(65536)
                if not chunk:
                    raise ControlError("the daemon closed the connection")
                self._buffer += chunk
        except TimeoutError:
            raise ControlError(f"no answer from the daemon within {self.timeout:g} s") from None
        except OSError as exc:
            raise ControlError(f"control socket error: {exc}") from None
        line, _, self._buffer = self._buffer.partition(b"\n")
        return decode_reply(line)
