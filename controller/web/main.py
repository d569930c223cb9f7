"""``croupier-web [--config FILE] [--socket PATH] [--ledger PATH] [--listen HOST:PORT]``.

Serves a table's page at ``/``, the floor at ``/floor`` and the metrics at ``/metrics``
(docs/web.md). Exit status 2 for a bad configuration (every problem listed, one per line),
0 after SIGTERM / SIGINT.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys

from aiohttp import web

from controller.stop_signals import STOP_SIGNALS
from controller.validation import ConfigError
from controller.web.app import COMPLAINTS, EDGES, build_app
from controller.web.config import WebConfig, load_web_config
from controller.web.limits import ConnectionGate, GatedSite

log = logging.getLogger("croupier-web")
SHUTDOWN_SECONDS = 2.0
CLIENT_SECONDS = 15.0  # a request's headers arrive, and an idle keep-alive ends, within this
CLEANUP_SECONDS = 10.0
LINGER_SECONDS = 1.0  # an unread request body read and dropped after the answer, at most


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="croupier-web", description=__doc__.split("\n\n")[1])
    p.add_argument("--config", metavar="FILE", help="web.toml (tables, users, limits)")
    p.add_argument("--socket", metavar="PATH", help="one table's control socket")
    p.add_argument("--ledger", metavar="PATH", help="that table's ledger, read-only")
    p.add_argument("--listen", metavar="HOST:PORT", help="default 127.0.0.1:8080")
    return p.parse_args(argv)


def make_runner(app: web.Application, client_seconds: float = CLIENT_SECONDS) -> web.AppRunner:
    """The app's runner. Live streams never end on their own: a stop gives them
    SHUTDOWN_SECONDS, not aiohttp's 60. A connection that sends no whole request (a slow
    or half-open client) or sits idle between requests is closed after ``client_seconds``:
    an AppRunner's default is 3630 s, so a thousand such connections held the service's
    file descriptors for an hour. A running stream is not idle: it stays. A body left
    unread after the answer (a refused POST, a 408) is read and dropped for at most
    LINGER_SECONDS, not aiohttp's 10: the connection gate counts that connection busy."""
    return web.AppRunner(
        app,
        access_log_format='%a "%r" %s %b %Tfs',
        shutdown_timeout=SHUTDOWN_SECONDS,
        keepalive_timeout=client_seconds,
        lingering_time=LINGER_SECONDS,
    )


async def start_site(runner: web.AppRunner, config: WebConfig, host: str, port: int) -> GatedSite:
    """Listen on ``host:port`` (``runner`` set up), at most ``config.max_connections``
    connections at once (limits.py)."""
    assert runner.server is not None
    gate = ConnectionGate(runner.server, config.max_connections, runner.app[COMPLAINTS])
    site = GatedSite(runner, host, port, gate)
    await site.start()
    return site


async def serve(config: WebConfig) -> None:
    app = build_app(config)
    runner = make_runner(app)
    await runner.setup()
    await start_site(runner, config, config.host, config.port)
    names = ", ".join(t.name for t in config.tables)
    log.info("serving %s on http://%s:%d", names, config.host, config.port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in STOP_SIGNALS:  # SIGHUP too: a service started in an SSH session that drops
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await app[EDGES].close()  # its child process goes first, whatever happens next
        try:
            async with asyncio.timeout(CLEANUP_SECONDS):
                await runner.cleanup()
        except TimeoutError:
            log.warning("stopping took longer than %g s; leaving anyway", CLEANUP_SECONDS)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        config = load_web_config(
            args.config, socket=args.socket, ledger=args.ledger, listen=args.listen
        )
    except ConfigError as exc:
        print(f"croupier-web: {exc}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(config))
    except OSError as exc:  # the port is taken, the address is not ours
        print(
            f"croupier-web: cannot listen on {config.host}:{config.port}: {exc.strerror}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
