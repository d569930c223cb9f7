"""The control socket protocol: newline-delimited JSON over a Unix stream socket.

Request (one line, at most :data:`MAX_LINE` bytes)::

    {"id": 7, "cmd": "status", "args": {...}, "credential": "optional secret"}

Reply (one line)::

    {"id": 7, "ok": true, "result": ...}
    {"id": 7, "ok": false, "error": "what went wrong", "code": "bad-request"}

``code`` is one of ``wire.ERROR_CODES``. A connection may carry any number of requests, answered
in order. Privileged commands (jackpot acknowledge, meter reset, config change) need the
technician ``credential``; the daemon checks it against the stored salted hash and journals
the action. A malformed or unauthorised request gets an error reply and the server keeps
serving. Pure encode/decode here: the server's half (requests in, replies out); the client's
half, with :class:`ControlError`, is :mod:`controller.table.control.wire`. The asyncio server
and the blocking client are separate.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from controller.table.control.wire import MAX_LINE, ControlError
from controller.validation import ConfigError, DocumentLimits, loads_json

MAX_ID = 64  # characters of a string request ID
REQUEST_LIMITS = DocumentLimits(max_bytes=MAX_LINE, max_depth=8)


@dataclass(frozen=True)
class Request:
    cmd: str
    args: dict[str, Any] = field(default_factory=dict)
    id: int | str | None = None
    credential: str | None = None
    peer: Any = field(default=None, compare=False)  # controller.table.control.guard.Peer


def decode_request(line: bytes) -> Request:
    """Parse one request line; ControlError('bad-request') for anything malformed."""
    if len(line) > MAX_LINE:
        raise ControlError(f"request longer than {MAX_LINE} bytes", "bad-request")
    try:
        data = loads_json(line, "request", REQUEST_LIMITS)
    except ConfigError as exc:
        key, reason = exc.problems[0]
        raise ControlError(f"request: {key}: {reason}", "bad-request") from None
    if not isinstance(data, dict):
        raise ControlError("request must be a JSON object", "bad-request")
    unknown = sorted(set(data) - {"id", "cmd", "args", "credential"})
    if unknown:
        raise ControlError(f"unknown request field(s): {', '.join(unknown)[:200]}", "bad-request")
    cmd, args = data.get("cmd"), data.get("args", {})
    rid, credential = data.get("id"), data.get("credential")
    if not isinstance(cmd, str) or not cmd:
        raise ControlError("request needs a 'cmd' string", "bad-request")
    if not isinstance(args, dict):
        raise ControlError("'args' must be an object", "bad-request")
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, int | str)):
        raise ControlError("'id' must be a number or a string", "bad-request")
    if isinstance(rid, str) and len(rid) > MAX_ID:
        raise ControlError(f"'id' longer than {MAX_ID} characters", "bad-request")
    if len(cmd) > MAX_ID:
        raise ControlError(f"'cmd' longer than {MAX_ID} characters", "bad-request")
    if credential is not None and not isinstance(credential, str):
        raise ControlError("'credential' must be a string", "bad-request")
    return Request(cmd, args, rid, credential)


def encode_reply(
    request_id: Any, *, result: Any = None, error: ControlError | None = None
) -> bytes:
    if error is None:
        data = {"id": request_id, "ok": True, "result": result}
    else:
        data = {"id": request_id, "ok": False, "error": str(error), "code": error.code}
    return json.dumps(data, separators=(",", ":"), default=str).encode() + b"\n"
