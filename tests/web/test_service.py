"""croupier-web over HTTP against a real simulated table: the security of every request and
no card identity in any response (pages, streams, metrics, pictures' neighbours)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import logging
import random
import re
import signal
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from http.client import HTTPResponse
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web as aiohttp_web
from web_service import USER, WebService

from controller.engine.cards import card_name
from controller.rig.dealer import Dealer, RoundPlan, royal_order
from controller.rig.table import SIM_CREDENTIAL, processes_with
from controller.table.credentials import hash_credential
from controller.web.app import SESSIONS, build_app
from controller.web.config import load_web_config
from controller.web.security import SessionStore
from controller.web.view import CARD

pytestmark = pytest.mark.integration


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Client:
    """A browser's part that matters here: its cookie (Secure or not, as a browser on
    localhost sends it) and the CSRF token of the last page."""

    def __init__(self, web: WebService) -> None:
        self.web = web
        self.cookie: str | None = None
        self.opener = urllib.request.build_opener(NoRedirect)

    def request(
        self, method: str, path: str, data: dict | None = None, headers: dict | None = None
    ) -> tuple[int, dict, bytes]:
        body = urllib.parse.urlencode(data).encode() if data is not None else None
        req = urllib.request.Request(self.web.url + path, data=body, method=method)
        for key, value in (headers or {}).items():
            req.add_header(key, value)
        if self.cookie:
            req.add_header("Cookie", self.cookie)
        try:
            response: HTTPResponse = self.opener.open(req, timeout=10)
        except urllib.error.HTTPError as exc:
            response = exc  # type: ignore[assignment]
        content = response.read()
        cookie = response.headers.get("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";")[0]
        return response.status, dict(response.headers), content

    def csrf(self, path: str = "/login") -> str:
        status, _, page = self.request("GET", path)
        return re.search(rb'name="csrf" (?:content|value)="([^"]+)"', page).group(1).decode()


def test_every_response_has_the_security_headers_and_the_cookie_is_locked_down(web):
    status, headers, _ = Client(web).request("GET", "/table/SIM-1")
    assert status == 200
    csp = headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
    assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "Set-Cookie" not in headers  # a page needs no session; the login form starts one
    cookie = Client(web).request("GET", "/login")[1]["Set-Cookie"]
    assert "HttpOnly" in cookie and "Secure" in cookie and "SameSite=Strict" in cookie
    status, headers, _ = Client(web).request("GET", "/table/NOPE")
    assert status == 404 and "Content-Security-Policy" in headers


def test_state_changing_requests_need_the_csrf_token_and_this_origin(web):
    client = Client(web)
    token = client.csrf()
    ack = "/table/SIM-1/alerts/1/ack"
    assert client.request("POST", ack)[0] == 403  # no token
    assert client.request("POST", ack, headers={"X-CSRF-Token": "forged"})[0] == 403
    other = {"X-CSRF-Token": token, "Origin": "http://evil.example"}
    assert client.request("POST", ack, headers=other)[0] == 403
    status, _, body = client.request("POST", ack, headers={"X-CSRF-Token": token})
    assert status == 401 and b"log in to acknowledge" in body  # the token is right: no login
    stranger = Client(web)  # a session of its own cannot use another's token
    assert stranger.request("POST", ack, headers={"X-CSRF-Token": token})[0] == 403
    login = {"user": USER, "secret": SIM_CREDENTIAL}
    assert stranger.request("POST", "/login", data=login)[0] == 403


def test_login_is_rate_limited_and_credentials_never_reach_the_log(web, tmp_path):
    client = Client(web)
    wrong = "wrong-secret-7f3a"
    for _ in range(5):
        status, _, body = client.request(
            "POST", "/login", data={"user": "mallory", "secret": wrong, "csrf": client.csrf()}
        )
        assert status == 403 and b"wrong user or credential" in body
    status, _, body = client.request(
        "POST", "/login", data={"user": "mallory", "secret": wrong, "csrf": client.csrf()}
    )
    assert status == 429 and b"too many failed logins" in body
    # a login from elsewhere (another address is not available here: the same address is
    # limited too, so even the right credential waits)
    status, _, _ = client.request(
        "POST", "/login", data={"user": USER, "secret": SIM_CREDENTIAL, "csrf": client.csrf()}
    )
    assert status == 429
    log = web.log.read_text()
    assert "failed login for 'mallory'" in log
    assert wrong not in log and SIM_CREDENTIAL not in log.replace(web.url, "")


def test_a_login_gives_a_new_session_and_logout_ends_it(web_table, tmp_path):
    web = WebService(tmp_path, [("SIM-1", web_table)])  # a fresh login limiter
    try:
        client = Client(web)
        token = client.csrf()
        before = client.cookie
        status, headers, _ = client.request(
            "POST", "/login", data={"user": USER, "secret": SIM_CREDENTIAL, "csrf": token}
        )
        assert status == 303 and client.cookie != before  # no session fixation
        status, _, page = client.request("GET", "/table/SIM-1")
        assert b'data-user="alice"' in page
        ack = client.request(
            "POST",
            "/table/SIM-1/alerts/999/ack",
            headers={"X-CSRF-Token": client.csrf("/table/SIM-1")},
        )
        assert ack[0] == 409 and b"no alert 999" in ack[2]  # forwarded: the daemon answered
        status, headers, _ = client.request(
            "POST", "/logout", data={"csrf": client.csrf("/table/SIM-1")}
        )
        assert status == 303
        ended = headers["Set-Cookie"].lower()  # the cookie that ends it is locked down too
        assert "httponly" in ended and "samesite=strict" in ended and "max-age=0" in ended
        _, _, page = client.request("GET", "/table/SIM-1")
        assert b'data-user=""' in page
        assert SIM_CREDENTIAL not in web.log.read_text().replace(web.url, "")
    finally:
        web.stop()


def test_only_the_login_form_starts_a_session(web):
    """A session (and its cookie) only where a CSRF token is needed before a login: a page,
    a stream's state, a picture, a static file or a scrape starts none."""
    for path in (
        "/",
        "/table/SIM-1",
        "/table/SIM-1/state",
        "/floor",
        "/metrics",
        "/static/web.css",
        "/static/x",
    ):
        status, headers, _ = Client(web).request("GET", path)
        assert status in (200, 302, 404) and "Set-Cookie" not in headers, path
    status, headers, _ = Client(web).request("POST", "/logout", data={"csrf": "x"})
    assert status == 403 and "Set-Cookie" not in headers
    assert "croupier_session=" in Client(web).request("GET", "/login")[1]["Set-Cookie"]


def test_an_anonymous_flood_leaves_a_logged_in_user_logged_in(web_table, tmp_path):
    """10,001 cookieless requests used to end every logged-in session (the least recently
    seen went beyond 10,000 sessions). Most requests now start none; login forms do, and
    beyond the limit only ever push out other login forms."""
    web = WebService(tmp_path, [("SIM-1", web_table)])  # a fresh login limiter
    try:
        client = Client(web)
        login = {"user": USER, "secret": SIM_CREDENTIAL, "csrf": client.csrf()}
        assert client.request("POST", "/login", data=login)[0] == 303
        token = {"X-CSRF-Token": client.csrf("/table/SIM-1")}
        ack = "/table/SIM-1/alerts/999/ack"
        assert client.request("POST", ack, headers=token)[0] == 409  # forwarded
        flood = http.client.HTTPConnection("127.0.0.1", web.port, timeout=30)
        for _ in range(10_001):  # each a login form: past the anonymous sessions' limit
            flood.request("GET", "/login")
            flood.getresponse().read()
        flood.close()
        status, _, body = client.request("POST", ack, headers=token)
        assert status == 409 and b"no alert 999" in body, body  # still logged in
        assert b'data-user="alice"' in client.request("GET", "/table/SIM-1")[2]
    finally:
        web.stop()


def in_process_service(tmp_path: Path) -> Any:
    """croupier-web in process (no daemon behind it), user USER with the credential "pw"."""
    from aiohttp.test_utils import TestServer

    config = tmp_path / "web.toml"
    config.write_text(
        '[web]\ncookie_secure = false\n[[tables]]\nname = "T1"\n'
        f'socket = "{tmp_path / "none.sock"}"\n[users]\n{USER} = "{hash_credential("pw")}"\n'
    )
    return TestServer(build_app(load_web_config(config)))


async def try_login(client: Any, secret: str, user: str = USER) -> tuple[int, str]:
    page = await (await client.get("/login")).text()
    token = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    form = {"user": user, "secret": secret, "csrf": token}
    reply = await client.post("/login", data=form, allow_redirects=False)
    return reply.status, await reply.text()


@pytest.mark.filterwarnings("ignore:It is recommended to use web.RequestKey")
def test_a_login_beyond_the_limit_is_refused_and_nobody_is_logged_out(tmp_path):
    """In process (256 real logins would be 256 scrypt checks): the service with room for
    one logged-in session; the second login is refused with the reason, the first stays."""
    from aiohttp.test_utils import TestClient

    async def scenario() -> None:
        server = in_process_service(tmp_path)
        server.app[SESSIONS] = SessionStore(server.app[SESSIONS].idle, max_logged_in=1)
        async with TestClient(server) as first, TestClient(server) as second:
            replies = [await try_login(client, "pw") for client in (first, second)]
            assert replies[0][0] == 303
            assert replies[1][0] == 503 and "sessions are logged in" in replies[1][1]
            page = await (await first.get("/table/T1")).text()
            assert f'data-user="{USER}"' in page  # the first login is untouched

    asyncio.run(scenario())


@pytest.mark.filterwarnings("ignore:It is recommended to use web.RequestKey")
def test_failed_logins_by_a_stranger_do_not_lock_the_pit_out(tmp_path):
    """Five wrong tries as the pit's name, from the pit's own address (as through the
    reverse proxy), used to keep the pit out for the window. A browser that logged in
    before still logs in; a browser that never did waits, so guessing stays throttled."""
    from aiohttp.test_utils import TestClient

    async def scenario() -> None:
        server = in_process_service(tmp_path)
        async with TestClient(server) as pit, TestClient(server) as stranger:
            new_browser = TestClient(server)  # shares the server: closed with it
            await new_browser.start_server()
            assert (await try_login(pit, "pw"))[0] == 303  # the pit's browser, once
            for _ in range(5):
                assert (await try_login(stranger, "guess"))[0] == 403
            status, page = await try_login(stranger, "guess")
            assert status == 429 and "too many failed logins" in page
            assert (await try_login(stranger, "pw"))[0] == 429  # throttled, even right
            assert (await try_login(new_browser, "pw"))[0] == 429  # never logged in here
            assert (await try_login(pit, "pw"))[0] == 303  # the known browser gets in
            for _ in range(5):
                assert (await try_login(pit, "typo"))[0] == 403
            status, page = await try_login(pit, "pw")
            assert status == 429 and "from this browser" in page

    asyncio.run(scenario())


@pytest.mark.filterwarnings("ignore:It is recommended to use web.RequestKey")
def test_guesses_sent_at_once_are_throttled_like_guesses_in_a_row(tmp_path):
    """The limiter counted a failure after its check: 30 guesses sent together all passed
    the count while their checks ran. An attempt is now counted before its check."""
    from aiohttp.test_utils import TestClient

    async def scenario() -> None:
        server = in_process_service(tmp_path)
        async with TestClient(server) as client:
            replies = await asyncio.gather(*(try_login(client, f"guess{i}") for i in range(30)))
        checked = [status for status, _ in replies if status == 403]
        assert len(checked) <= 5 and len(replies) - len(checked) >= 25, replies

    asyncio.run(scenario())


def raw_exchange(port: int, data: bytes, wait: float = 5.0) -> bytes:
    """What the service answers to ``data`` on a fresh connection, until it closes it (or
    ``wait`` seconds pass: then ``b"<open>"`` is appended)."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(data)
        answer = b""
        try:
            while chunk := sock.recv(65536):
                answer += chunk
        except TimeoutError:
            answer += b"<open>"
        except ConnectionResetError:
            pass
        return answer


@pytest.mark.filterwarnings("ignore:It is recommended to use web.RequestKey")
def test_a_malformed_request_is_one_log_line_not_a_traceback(tmp_path, caplog):
    """A header over 8190 bytes, 50,000 headers, a broken chunked body: aiohttp answers 400
    and logged each with the parser's whole traceback."""
    from aiohttp.test_utils import TestClient

    bad = [
        b"GET / HTTP/1.1\r\nHost: x\r\nX: " + b"a" * 100_000 + b"\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X: a\r\n" * 50_000 + b"\r\n",
        b"POST /login HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        b"GET /\x1b[31m HTTP/1.1\r\nHost: x\r\n\r\n",
    ]

    async def scenario() -> None:
        async with TestClient(in_process_service(tmp_path)) as client:
            port = client.server.port
            loop = asyncio.get_running_loop()
            for data in bad:
                answer = await loop.run_in_executor(None, raw_exchange, port, data)
                assert answer.startswith(b"HTTP/1.") and b" 400 " in answer.split(b"\r\n")[0]

    with caplog.at_level(logging.DEBUG, logger="aiohttp.server"):
        asyncio.run(scenario())
    records = [r for r in caplog.records if r.name == "aiohttp.server"]
    assert len(records) >= 3
    for record in records:
        line = record.getMessage()
        assert record.exc_info is None and "\n" not in line and "\x1b" not in line, line
        assert "bad request refused (400" in line


@pytest.mark.filterwarnings("ignore:It is recommended to use web.RequestKey")
def test_a_slow_or_silent_client_is_closed_but_a_live_stream_stays(tmp_path):
    """An AppRunner keeps a connection that never sends a whole request for 3630 s: a
    thousand of them held the service's file descriptors for an hour."""

    from controller.web.main import make_runner

    async def scenario() -> None:
        server = in_process_service(tmp_path)
        runner = make_runner(server.app, client_seconds=1.0)
        await runner.setup()
        site = aiohttp_web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]
        loop = asyncio.get_running_loop()
        try:
            slow = loop.run_in_executor(
                None, raw_exchange, port, b"GET /floor HTTP/1.1\r\nHost: x\r\n", 4.0
            )
            silent = loop.run_in_executor(None, raw_exchange, port, b"", 4.0)
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{port}/floor/events"
                async with session.get(url) as stream:
                    assert stream.headers["Cache-Control"] == "no-store"
                    assert "frame-ancestors 'none'" in stream.headers["Content-Security-Policy"]
                    await asyncio.sleep(2.5)  # past client_seconds: a stream is not idle
                    assert not stream.connection.transport.is_closing()
            assert not (await slow).endswith(b"<open>") and not (await silent).endswith(b"<open>")
        finally:
            await runner.cleanup()

    asyncio.run(scenario())


def read_stream(web: WebService, path: str) -> bytes:
    """The first event of a server-sent event stream."""
    with urllib.request.urlopen(web.url + path, timeout=10) as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        data = b""
        while b"\n\n" not in data:
            data += response.read1(65536)
        return data


def test_no_card_identity_in_any_response_after_rounds_played_by_the_rig(web, web_table):
    dealer = Dealer(web_table)
    delivered: set[str] = set()
    for plan in (
        RoundPlan(seats=(1, 2), main_bets={"ante": 500, "blind": 500, "trips": 100}),
        RoundPlan(seats=(3,), arrange=royal_order((3,), random.Random(9), community=False)),
    ):
        seen = dealer.play(plan)
        assert seen.outcome == "settled", seen.problems
        delivered |= {
            card_name(c) for c in web_table.emulate("state")["delivered"] if c is not None
        }
    assert len(delivered) >= 9  # the cards the pages must never show (a royal among them)
    client = Client(web)
    deadline = time.monotonic() + 20  # the service reads the ledger every few seconds
    while b"royal" not in client.request("GET", "/table/SIM-1/state")[2]:
        assert time.monotonic() < deadline, "the hit never showed on the table's page"
        time.sleep(0.2)
    responses = {}
    for path in (
        "/",
        "/table/SIM-1",
        "/table/SIM-1/state",
        "/floor",
        "/login",
        "/metrics",
        "/static/web.js",
        "/static/web.css",
    ):
        status, _, body = client.request("GET", path)
        assert status in (200, 302), path
        responses[path] = body.decode()
    for path in ("/table/SIM-1/events", "/floor/events"):
        responses[path] = read_stream(web, path).decode()
    for path, body in responses.items():
        found = CARD.findall(body)
        assert found == [], f"{path} shows card notation {found}"
        words = set(re.findall(r"[0-9A-Za-z]+", body))
        assert not (delivered & words), f"{path} names cards {delivered & words}"


def par_workers_of(parent: int) -> list[int]:
    """The PAR sheet's child processes of the web service ``parent``."""
    found = []
    for pid in processes_with("controller.web.par"):
        with contextlib.suppress(OSError):
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            if ppid == parent:
                found.append(pid)
    return found


def alive(pid: int) -> bool:
    """Running (not gone, not a zombie waiting for a reaper)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_or_sighup_ends_the_service_its_streams_and_its_par_worker(
    web_table, tmp_path, sig
):
    """SIGHUP as SIGTERM: a service started in an SSH session that drops stops cleanly."""
    web = WebService(tmp_path, [("SIM-1", web_table)])
    stream = urllib.request.urlopen(web.url + "/table/SIM-1/events", timeout=10)
    stream.read1(100)  # a live stream is open
    urllib.request.urlopen(web.url + "/metrics", timeout=10).read()  # starts the PAR worker
    deadline = time.monotonic() + 10
    while not (workers := par_workers_of(web.proc.pid)):
        assert time.monotonic() < deadline, "the PAR worker did not start"
        time.sleep(0.05)
    web.proc.send_signal(sig)
    assert web.proc.wait(15) == 0
    stream.close()
    time.sleep(0.2)
    assert [pid for pid in workers if alive(pid)] == []


def test_a_killed_service_takes_its_par_worker_with_it(web_table, tmp_path):
    web = WebService(tmp_path, [("SIM-1", web_table)])
    urllib.request.urlopen(web.url + "/metrics", timeout=10).read()  # starts the PAR worker
    deadline = time.monotonic() + 10
    while not (workers := par_workers_of(web.proc.pid)):
        assert time.monotonic() < deadline, "the PAR worker did not start"
        time.sleep(0.05)
    web.proc.kill()
    web.proc.wait()
    deadline = time.monotonic() + 10
    while [pid for pid in workers if alive(pid)]:
        assert time.monotonic() < deadline, "the PAR worker outlived a killed service"
        time.sleep(0.05)


def test_pages_can_require_a_login_but_metrics_stay_scrapable(web_table, tmp_path):
    web = WebService(tmp_path, [("SIM-1", web_table)], view_needs_login=True)
    try:
        client = Client(web)
        status, headers, _ = client.request("GET", "/table/SIM-1/state")
        assert status == 303 and headers["Location"] == "/login"
        assert client.request("GET", "/metrics")[0] == 200
        login = {"user": USER, "secret": SIM_CREDENTIAL, "csrf": client.csrf()}
        assert client.request("POST", "/login", data=login)[0] == 303
        status, _, body = client.request("GET", "/table/SIM-1/state")
        assert status == 200 and b'"table":"SIM-1"' in body
    finally:
        web.stop()
