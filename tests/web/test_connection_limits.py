"""croupier-web under a flood of connections and live streams (controller/web/limits.py), in
process with small caps: no daemon behind it (the pages show the table offline)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import socket
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from controller.table.credentials import hash_credential
from controller.web.app import FEEDS, STREAMS
from controller.web.config import load_web_config
from controller.web.limits import RETRY_AFTER, GatedSite
from controller.web.main import make_runner, start_site

pytestmark = pytest.mark.filterwarnings("ignore:It is recommended to use web.RequestKey")
USER = "alice"


@contextlib.asynccontextmanager
async def service(
    tmp_path: Path, client_seconds: float | None = None, **limits: int
) -> AsyncIterator[GatedSite]:
    """croupier-web on a free port with these ``[web]`` limits, user USER with "pw" (and
    ``client_seconds`` for make_runner's, when given)."""
    lines = ["[web]", "cookie_secure = false"] + [f"{k} = {v}" for k, v in limits.items()]
    config_file = tmp_path / "web.toml"
    config_file.write_text(
        "\n".join(lines) + f'\n[[tables]]\nname = "T1"\nsocket = "{tmp_path / "none.sock"}"\n'
        f'[users]\n{USER} = "{hash_credential("pw")}"\n'
    )
    config = load_web_config(config_file)
    from controller.web.app import build_app

    app = build_app(config)  # by default the 15 s idle timeout: the cap acts first
    runner = make_runner(app) if client_seconds is None else make_runner(app, client_seconds)
    await runner.setup()
    try:
        yield await start_site(runner, config, "127.0.0.1", 0)
    finally:
        await runner.cleanup()


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def closed_within(sock: socket.socket, seconds: float) -> bytes | None:
    """What the service sent before closing ``sock`` (None: still open after ``seconds``)."""
    sock.settimeout(seconds)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return data


def first_bytes(sock: socket.socket, seconds: float) -> bytes:
    """The first bytes the service sends on ``sock`` (b"": none within ``seconds``)."""
    sock.settimeout(seconds)
    try:
        return sock.recv(65536)
    except (TimeoutError, ConnectionResetError):
        return b""


THREADS = ThreadPoolExecutor(64, thread_name_prefix="flood")  # a socket each, at once


async def in_thread(function: Any, *args: Any) -> Any:
    return await asyncio.get_running_loop().run_in_executor(THREADS, function, *args)


async def open_stream(
    session: aiohttp.ClientSession, port: int, path: str = "/floor/events"
) -> aiohttp.ClientResponse:
    response = await session.get(f"http://127.0.0.1:{port}{path}")
    if response.status == 200:
        await response.content.readuntil(b"\n\n")  # the first event: the stream runs
    return response


def run_logged(caplog: pytest.LogCaptureFixture, scenario: Any) -> None:
    """Run the test's ``scenario`` coroutine function with every log record captured."""
    with caplog.at_level(logging.DEBUG):
        asyncio.run(scenario())


def assert_no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    """No traceback and nothing at ERROR in the log."""
    for record in caplog.records:
        assert record.exc_info is None, record.getMessage()
        assert record.levelno < logging.ERROR, record.getMessage()


def assert_quiet_log(caplog: pytest.LogCaptureFixture) -> list[str]:
    """No traceback anywhere; the limits' lines (returned) are a few, not one a refusal."""
    assert_no_traceback(caplog)
    lines = [r.getMessage() for r in caplog.records if r.name == "croupier-web.limits"]
    assert 1 <= len(lines) <= 6, lines  # three kinds: a line each, and a summary each
    return lines


def test_a_flood_of_silent_connections_is_held_to_the_cap_and_the_pit_still_gets_in(
    tmp_path, caplog
):
    """Without a cap 40 silent sockets were 40 file descriptors for 15 s each (thousands: the
    service's whole limit). At the cap a newcomer takes the oldest idle connection's place."""

    async def scenario() -> None:
        async with service(tmp_path, max_connections=8, max_streams=4) as site:
            flood = [connect(site.port) for _ in range(40)]
            try:
                started = time.monotonic()
                answers = await asyncio.gather(*(in_thread(closed_within, s, 3.0) for s in flood))
                closed = [a for a in answers if a is not None]
                assert len(closed) >= 32, f"{len(closed)} of 40 closed"
                assert time.monotonic() - started < 3.5  # promptly, not after the 15 s
                assert site.gate.connections <= 8
                async with (
                    aiohttp.ClientSession() as pit,
                    pit.get(f"http://127.0.0.1:{site.port}/floor") as page,
                ):
                    assert page.status == 200 and "Floor" in await page.text()
                assert site.gate.evicted >= 32
            finally:
                for s in flood:
                    s.close()

    run_logged(caplog, scenario)
    lines = assert_quiet_log(caplog)
    assert any("oldest idle one is closed" in line for line in lines), lines


def test_streams_beyond_their_limits_are_refused_and_a_logged_in_user_still_goes_live(
    tmp_path, caplog
):
    """Anonymous live streams held a connection each, without a limit: enough of them held
    every connection. Now: 3 from one address, 4 in all; a login's streams count apart; with
    every connection busy a newcomer gets a 503 at once and the service recovers."""

    async def scenario() -> None:
        async with service(
            tmp_path, max_connections=8, max_streams=4, max_streams_per_client=3
        ) as site:
            port = site.port
            local = aiohttp.ClientSession()
            other = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
            )
            third = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(local_addr=("127.0.0.3", 0))
            )
            pit = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))  # an IP
            streams: list[aiohttp.ClientResponse] = []
            try:
                for _ in range(3):
                    streams.append(await open_stream(local, port))
                refused = await open_stream(local, port)  # a 4th from 127.0.0.1
                assert refused.status == 503 and refused.headers["Retry-After"] == "5"
                assert "3 live pages open from this address" in await refused.text()
                streams.append(await open_stream(other, port, "/table/T1/events"))
                assert [s.status for s in streams] == [200] * 4
                refused = await open_stream(third, port)  # a 5th in all
                assert refused.status == 503
                assert "4 live pages open without a login" in await refused.text()

                page = await (await pit.get(f"http://127.0.0.1:{port}/login")).text()
                token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
                form = {"user": USER, "secret": "pw", "csrf": token}
                login = await pit.post(
                    f"http://127.0.0.1:{port}/login", data=form, allow_redirects=False
                )
                assert login.status == 303
                for _ in range(4):  # the pit's pages go live: every connection is busy now
                    stream = await open_stream(pit, port)
                    assert stream.status == 200
                    streams.append(stream)
                await asyncio.sleep(0.1)  # the login's keep-alive connection was evicted
                assert site.gate.connections == 8

                started = time.monotonic()
                answer = await in_thread(
                    lambda: closed_within(
                        _sent(connect(port), b"GET /floor HTTP/1.1\r\nHost: x\r\n\r\n"), 3.0
                    )
                )
                assert answer is not None and time.monotonic() - started < 1.5
                head = answer.split(b"\r\n\r\n")[0].decode()
                assert head.startswith("HTTP/1.1 503 "), head
                assert f"Retry-After: {RETRY_AFTER}" in head and "Connection: close" in head
                assert site.gate.refused == 1

                streams.pop(0).close()  # a page closes: its connection is free again
                await asyncio.sleep(0.2)
                async with (
                    aiohttp.ClientSession() as visitor,
                    visitor.get(f"http://127.0.0.1:{port}/floor") as reply,
                ):
                    assert reply.status == 200
            finally:
                for s in streams:
                    s.close()
                for session in (local, other, third, pit):
                    await session.close()

    run_logged(caplog, scenario)
    lines = assert_quiet_log(caplog)
    assert any("live stream refused" in line for line in lines), lines
    assert any("new connections are refused (503)" in line for line in lines), lines


def _sent(sock: socket.socket, data: bytes) -> socket.socket:
    sock.sendall(data)
    return sock


def test_two_hundred_refused_streams_are_two_log_lines(tmp_path, caplog):
    """The first refusal of a window is logged as it happens, the rest in one summary (here
    at the stop, before the window's minute is over), not a line each."""

    async def scenario() -> None:
        async with (
            service(tmp_path, max_connections=8, max_streams=1, max_streams_per_client=1) as site,
            aiohttp.ClientSession() as client,
        ):
            first = await open_stream(client, site.port)
            assert first.status == 200
            for _ in range(200):
                refused = await open_stream(client, site.port)
                assert refused.status == 503
                await refused.read()
            first.close()

    run_logged(caplog, scenario)
    lines = assert_quiet_log(caplog)
    assert len(lines) == 2, lines
    assert "1 live pages open without a login" in lines[0]
    assert lines[1].startswith("199 more live streams refused"), lines


def test_the_defaults_leave_room_beside_the_streams():
    config = load_web_config(socket="/run/croupier/control.sock")
    limits = (config.max_connections, config.max_streams, config.max_streams_per_client)
    assert limits == (256, 64, 16)


STALLED_FORM = (
    b"POST /login HTTP/1.1\r\nHost: x\r\n"
    b"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ncsrf="
)


def test_request_bodies_that_never_arrive_do_not_hold_every_connection(tmp_path, caplog):
    """A POST whose body never came kept its request in progress for good (no timeout on a
    body): 8 such sockets, sent once, held every connection and every newcomer got a 503
    until they went. Now a body arrives within the client time or the request ends (408),
    and a client gone in the middle of its body is no traceback."""

    async def scenario() -> None:
        async with service(tmp_path, client_seconds=1.0, max_connections=8, max_streams=4) as site:
            flood = [_sent(connect(site.port), STALLED_FORM) for _ in range(8)]
            try:
                await asyncio.sleep(0.2)
                assert site.gate.connections == 8
                answers = await asyncio.gather(*(in_thread(first_bytes, s, 3.0) for s in flood))
                assert all(a.startswith(b"HTTP/1.1 408 ") for a in answers), answers
                await asyncio.sleep(1.2)  # the rest of their bodies awaited a second, then closed
                async with (
                    aiohttp.ClientSession() as pit,
                    pit.get(f"http://127.0.0.1:{site.port}/floor") as page,
                ):
                    assert page.status == 200
                gone = _sent(connect(site.port), STALLED_FORM)
                await asyncio.sleep(0.2)
                gone.close()  # in the middle of its body
                await asyncio.sleep(0.2)
                assert site.gate.refused == 0
            finally:
                for s in flood:
                    s.close()

    run_logged(caplog, scenario)
    assert_no_traceback(caplog)


def test_a_refused_client_gone_at_once_is_no_traceback(tmp_path, caplog):
    """With every connection busy, a client that connects and resets at once made the 503's
    write_eof() raise (ENOTCONN) in connection_made: a traceback for each such socket."""

    async def scenario() -> None:
        async with service(tmp_path, max_connections=8, max_streams=4) as site:
            busy = [_sent(connect(site.port), STALLED_FORM) for _ in range(8)]
            try:
                await asyncio.sleep(0.2)
                for _ in range(5):
                    sock = connect(site.port)
                    sock.close()  # gone before the 503: its FIN, then a reset for the 503
                await asyncio.sleep(0.3)
                assert site.gate.refused == 5 and site.gate.lingering == 0
            finally:
                for s in busy:
                    s.close()

    run_logged(caplog, scenario)
    assert_no_traceback(caplog)


def test_clients_that_never_read_their_answers_do_not_hold_every_connection(tmp_path, caplog):
    """A client that pipelines requests and never reads the answers kept its request in
    progress for good, waiting for the client to drain (aiohttp has no write timeout): 8
    such sockets held every connection. Now a connection whose writing stays paused for the
    client time is dropped."""

    async def scenario() -> None:
        async with service(tmp_path, client_seconds=1.0, max_connections=8, max_streams=4) as site:
            flood = []
            for path in (b"/floor", b"/static/web.js") * 4:  # a static file too (no sendfile)
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.connect(("127.0.0.1", site.port))
                sock.sendall((b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n") * 1000)
                flood.append(sock)
            try:
                await asyncio.sleep(0.3)
                assert site.gate.connections == 8
                await asyncio.sleep(2.2)  # buffers full, then paused for the client time (1 s)
                assert site.gate.connections == 0  # every one dropped
                async with (
                    aiohttp.ClientSession() as pit,
                    pit.get(f"http://127.0.0.1:{site.port}/floor") as page,
                ):
                    assert page.status == 200
                assert site.gate.refused == 0
            finally:
                for s in flood:
                    s.close()
            await asyncio.sleep(0.2)

    run_logged(caplog, scenario)
    assert_no_traceback(caplog)


def test_a_connection_whose_request_has_arrived_is_not_evicted(tmp_path):
    """aiohttp's _request_in_progress is set when the handler's task first runs: on Python
    3.11 an iteration or two after the request's bytes arrived (and pipelined requests wait
    with it unset). An accept in between took such a connection for idle and closed it: the
    client's request went unanswered. The oldest of 8 idle keep-alive connections gets a
    whole request, and a newcomer is accepted in the same iteration."""

    async def scenario() -> None:
        async with service(tmp_path, max_connections=8, max_streams=4) as site:
            request = b"GET /floor HTTP/1.1\r\nHost: x\r\n\r\n"
            socks = [_sent(connect(site.port), request) for _ in range(8)]
            try:
                answers = await asyncio.gather(*(in_thread(first_bytes, s, 3.0) for s in socks))
                assert all(a.startswith(b"HTTP/1.1 200 ") for a in answers)
                assert site.gate.connections == 8
                oldest = next(iter(site.gate._open))
                assert oldest.is_idle()  # between requests
                oldest.data_received(request)  # as the selector would hand it over
                newcomer = site.gate()  # an accept in the same iteration
                assert oldest in site.gate._open and not oldest.evicted
                assert newcomer in site.gate._open  # another idle one made room
                site.gate._open.pop(newcomer)  # it never gets a socket here
                answer = await in_thread(first_bytes, socks[0], 3.0)
                assert answer.startswith(b"HTTP/1.1 200 "), answer
            finally:
                for s in socks:
                    s.close()

    asyncio.run(scenario())


def test_a_stream_whose_client_left_is_no_longer_counted(tmp_path):
    """A stream noticed its client had gone only when its next write failed, up to a
    heartbeat (15 s) later: counted that long against its address or session (8 reloads of
    a page in a quarter of a minute, and the 9th was refused). Now within a second."""

    async def scenario() -> None:
        async with service(tmp_path, max_connections=8, max_streams=4) as site:
            streams = site._runner.app[STREAMS]
            async with aiohttp.ClientSession() as client:
                for _ in range(3):
                    stream = await open_stream(client, site.port)
                    assert stream.status == 200 and len(streams) == 1
                    stream.close()  # the page is left
                    started = time.monotonic()
                    while len(streams) and time.monotonic() - started < 3.0:
                        await asyncio.sleep(0.05)
                    assert len(streams) == 0 and time.monotonic() - started < 1.5
            assert site.gate.connections == 0
            assert all(feed.watchers == 0 for feed in site._runner.app[FEEDS].values())

    asyncio.run(scenario())
