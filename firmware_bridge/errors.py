"""Exceptions of the shuffler link.

One base class, :class:`LinkError`. As in h11, errors split by who is at fault:
:class:`LocalProtocolError` means this side misused the API (a programming error), while
everything the *peer* or the wire does wrong is either absorbed by the codec and session (a bad
frame is an event, never an exception) or reported as a specific subclass below when it makes
a request fail. Messages are written for a technician.
"""

from __future__ import annotations

from firmware_bridge.codes import error_name, nak_name


class LinkError(Exception):
    """Base of every error the shuffler link raises on purpose."""


class LocalProtocolError(LinkError, ValueError):
    """The caller asked for something the protocol cannot express (a field out of range, a
    payload too long, a second session on one link...)."""


class MessageError(LinkError, ValueError):
    """A payload received from the peer does not decode: wrong length, a field out of range.
    Raised only by :mod:`firmware_bridge.messages`; the session turns it into a NAK."""


class RequestFailed(LinkError):
    """A request did not complete. Subclasses say why."""


class DeviceError(RequestFailed):
    """The device refused or could not complete a well-formed request (``ERROR`` reply)."""

    def __init__(self, code: int, detail: str) -> None:
        self.code = code
        self.detail = detail
        super().__init__(f"shuffler error {error_name(code)}: {detail}")


class Rejected(RequestFailed):
    """The device answered ``NAK`` to the request (malformed, busy, no session)."""

    def __init__(self, code: int) -> None:
        self.code = code
        super().__init__(f"shuffler rejected the request: NAK {nak_name(code)}")


class LinkTimeout(RequestFailed, TimeoutError):
    """No answer after the whole retransmission budget, or an operation ran past its ceiling."""


class LinkDown(RequestFailed, ConnectionError):
    """The link went down (silence, or the transport was lost) while the request was pending."""


class RemoteProtocolError(RequestFailed):
    """The device answered the request with a reply that does not decode or does not match
    the request: a firmware bug to report to the vendor."""
