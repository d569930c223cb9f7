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
from controller.validation import ConfigError, DocumentLimits, DocumentLimitsError, loads_json

MAX_ID = 64  # characters of a string request ID
REQUEST_LIMITS = DocumentLimits(max_bytes=MAX_LINE, max_depth=8)


@dataclass(frozen=True)
class Request:
    cmd: str
    args: dict[str, Any] = field(default_factory=dict)
    id: int | str | None = None
    credential: str | None = None
    peer: Any = field(default=None, compare=False)  # controller.table.control.guard.Peer


class BadRequest(ControlError):
    """A malformed request (``bad-request``); ``request_id``: its ``id`` when that was valid,
    so that the error reply names the request it answers (a client may send several on one
    connection)."""

    def __init__(self, message: str, request_id: int | str | None = None) -> None:
        super().__init__(message, "bad-request")
        self.request_id = request_id


def _id_problem(rid: Any) -> str | None:
    """What is wrong with a request's ``id`` (absent is fine), or None."""
    if rid is not None and (isinstance(rid, bool) or not isinstance(rid, int | str)):
        return "'id' must be a number or a string"
    if isinstance(rid, str) and len(rid) > MAX_ID:
        return f"'id' longer than {MAX_ID} characters"
    return None


def _valid_id(data: Any) -> int | str | None:
    """The request's ``id`` when the object holds a valid one, else None."""
    rid = data.get("id") if isinstance(data, dict) else None
    return None if _id_problem(rid) else rid


def decode_request(line: bytes) -> Request:
    """Parse one request line; :class:`BadRequest` for anything malformed."""
    if len(line) > MAX_LINE:
        raise BadRequest(f"request longer than {MAX_LINE} bytes")
    try:
        data = loads_json(line, "request", REQUEST_LIMITS)
    except DocumentLimitsError as exc:  # read, but a value past the limits: the id may stand
        key, reason = exc.problems[0]
        raise BadRequest(f"request: {key}: {reason}", _valid_id(exc.document)) from None
    except ConfigError as exc:
        key, reason = exc.problems[0]
        raise BadRequest(f"request: {key}: {reason}") from None
    if not isinstance(data, dict):
        raise BadRequest("request must be a JSON object")
    rid = data.get("id")
    if (problem := _id_problem(rid)) is not None:
        raise BadRequest(problem)
    unknown = sorted(set(data) - {"id", "cmd", "args", "credential"})
    if unknown:
        raise BadRequest(f"unknown request field(s): {', '.join(unknown)[:200]}", rid)
    cmd, args, credential = data.get("cmd"), data.get("args", {}), data.get("credential")
    if not isinstance(cmd, str) or not cmd:
        raise BadRequest("request needs a 'cmd' string", rid)
    if len(cmd) > MAX_ID:
        raise BadRequest(f"'cmd' longer than {MAX_ID} characters", rid)
    if not isinstance(args, dict):
        raise BadRequest("'args' must be an object", rid)
    if credential is not None and not isinstance(credential, str):
        raise BadRequest("'credential' must be a string", rid)
    return Request(cmd, args, rid, credential)


def encode_reply(
    request_id: Any, *, result: Any = None, error: ControlError | None = None
) -> bytes:
    if error is None:
        data = {"id": request_id, "ok": True, "result": result}
    else:
        data = {"id": request_id, "ok": False, "error": str(error), "code": error.code}
    return json.dumps(data, separators=(",", ":"), default=str).encode() + b"\n"
