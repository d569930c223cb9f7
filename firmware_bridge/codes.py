"""The protocol's numbered codes (docs/protocol.md sec. 4.2): NAK reasons and the error codes
of ERROR replies, DEAL status and FAULT events, with the names a technician reads.

Both :mod:`firmware_bridge.messages` (which encodes them) and :mod:`firmware_bridge.errors`
(which names them in exception messages) import this module; it imports neither.
"""

from __future__ import annotations

from enum import IntEnum


class NakCode(IntEnum):
    CORRUPT = 1
    UNKNOWN_TYPE = 2
    BAD_PAYLOAD = 3
    BUSY = 4
    NO_SESSION = 5


class ErrorCode(IntEnum):
    """Error codes of ERROR replies, DEAL status and FAULT events (protocol sec. 4.2)."""

    OK = 0
    NOT_SHUFFLED = 1
    NOT_ENOUGH_CARDS = 2
    DOOR_OPEN = 3
    JAM = 4
    MISFEED = 5
    DECK_ERROR = 6
    SENSOR_FAILURE = 7
    FAULT_ACTIVE = 8
    WRONG_MODE = 9
    BAD_ARGUMENT = 10


def error_name(code: int) -> str:
    """``JAM`` for a known code, ``code 42`` for one this version does not know."""
    return ErrorCode(code).name if code in ErrorCode._value2member_map_ else f"code {code}"


def nak_name(code: int) -> str:
    """``BUSY`` for a known NAK code, ``code 42`` for one this version does not know."""
    return NakCode(code).name if code in NakCode._value2member_map_ else f"code {code}"
