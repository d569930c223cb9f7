"""One log line, not a traceback, for a request aiohttp's parser refuses.

A header line over 8190 bytes, too many headers, a broken chunked body or a request line
that is not HTTP is the peer's fault: aiohttp answers 400 and closes, then logs "Error
handling request" with the parser's whole traceback (about 15 lines, for every such request:
a flood of them buries the service's log). The filter keeps the line and the reason, drops
the traceback; an error in our own handlers keeps its traceback (that is a bug to see).
"""

from __future__ import annotations

import logging

from aiohttp.http_exceptions import HttpProcessingError

SERVER_LOGGER = "aiohttp.server"
REASON_MAX = 200  # characters of the parser's reason kept (it quotes the peer's bytes)


class BadRequestFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            text = " ".join(str(exc.message).split())[:REASON_MAX]
            reason = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
            record.msg = f"{record.getMessage()}: bad request refused ({exc.code}: {reason})"
            record.args = ()
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def quiet_bad_requests() -> None:
    """Install the filter on aiohttp's server logger (once per process)."""
    logger = logging.getLogger(SERVER_LOGGER)
    if not any(isinstance(f, BadRequestFilter) for f in logger.filters):
        logger.addFilter(BadRequestFilter())
