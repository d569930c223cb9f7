"""The client's half of the control socket protocol (:mod:`controller.table.control.protocol`
describes the lines): encode a request, decode a reply, and the error both ends raise.

Kept to json's C codec alone (:mod:`controller.quick_json`), because every ``croupier``
command that talks to the daemon imports it: on a Pi-class CPU (bench/pi_budget.py) the json
package (with ``re``), dataclasses and typing would cost ``croupier status`` a third of its
time or more.
"""

from __future__ import annotations

from controller import quick_json
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # names for the type checker only: importing typing costs the CLI time
    from typing import Any

MAX_LINE = 64 * 1024  # bytes of a request line (the server refuses a longer one)
EVENTS_TAIL_MAX = 10_000  # journal entries one events.tail request returns at most
HITS_MAX = 10_000  # jackpot hits one meters.hits request returns at most
ERROR_CODES = ("bad-request", "unknown-command", "unauthorised", "refused", "internal")


class ControlError(CroupierError):
    """A control request failed; ``code`` says how (one of ERROR_CODES)."""

    def __init__(self, message: str, code: str = "refused") -> None:
        self.code = code
        super().__init__(message)


def encode_request(
    cmd: str, args: dict[str, Any], request_id: int | str | None, credential: str | None
) -> bytes:
    """One request line: ``{"id", "cmd", "args"}`` and the credential when there is one."""
    data: dict[str, Any] = {"id": request_id, "cmd": cmd, "args": args}
    if credential is not None:
        data["credential"] = credential
    return quick_json.dumps(data, separators=(",", ":")).encode() + b"\n"


def decode_reply(line: bytes) -> Any:
    """The result of a reply line, or raise ControlError with the server's message."""
    try:
        data = quick_json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise ControlError(f"the daemon sent a malformed reply: {exc}", "internal") from None
    if not isinstance(data, dict) or "ok" not in data:
        raise ControlError("the daemon sent a malformed reply", "internal")
    if not data["ok"]:
        raise ControlError(
            str(data.get("error", "request failed")), str(data.get("code", "refused"))
        )
    return data.get("result")
