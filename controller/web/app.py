"""The web service (aiohttp): pages, live streams, acknowledgements, /metrics.

Routes::

    GET  /                          the first table's page (redirect)
    GET  /table/{name}              a table: state, seats, sign, pools, hits, pace, alerts
    GET  /table/{name}/state        its page as JSON;  /events: server-sent events of it
    GET  /table/{name}/sign.png     the sign as the players see it
    POST /table/{name}/alerts/{id}/ack, /table/{name}/jackpot/ack   (login + CSRF)
    GET  /floor, /floor/events      every table as a tile
    GET  /login, POST /login, POST /logout
    GET  /metrics                   Prometheus text format

Every response carries a content security policy (scripts and styles from this origin only,
no inline code, no framing) and ``no-store``; every POST must carry the session's CSRF token
and, when the browser sends one, an ``Origin`` of this host. Only the login form (for its
CSRF token) and a login start a session; every other request uses the one its cookie names,
if any, and starts none (``security.py`` bounds both kinds). The only things forwarded to a
daemon are the two acknowledgements, with the logged-in user's secret (checked again and
journaled by the daemon). Secrets travel in POST bodies only, never in a URL; the access log
has no bodies.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import html
import json
import logging
import mimetypes
import secrets
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from aiohttp import web

from controller.table.control.wire import ControlError
from controller.table.credentials import hash_credential, verify
from controller.web.config import WebConfig
from controller.web.daemon_link import DaemonUnreachable
from controller.web.feed import TableFeed
from controller.web.http_log import quiet_bad_requests
from controller.web.limits import RETRY_AFTER, Complaints, StreamLimits, StreamsFull
from controller.web.login_guard import (
    DEVICE_COOKIE,
    DEVICE_KEY,
    DEVICE_MAX_AGE,
    LoginGuard,
    address_key,
)
from controller.web.metrics import TableSample, exposition
from controller.web.par import HouseEdges
from controller.web.security import Session, SessionsFull, SessionStore

log = logging.getLogger(__name__)
STATIC = Path(__file__).with_name("static")
COOKIE = "croupier_session"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)
HEARTBEAT = 15.0  # seconds between SSE comments on a quiet stream
GONE_POLL = 1.0  # seconds: how soon a stream notices its client has gone (and stops counting)
MAX_FORM = 4096  # bytes of a login form
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

CONFIG = web.AppKey("config", WebConfig)
FEEDS = web.AppKey("feeds", dict)
SESSIONS = web.AppKey("sessions", SessionStore)
GUARD = web.AppKey("login_guard", LoginGuard)
EDGES = web.AppKey("edges", HouseEdges)
LEDGER_THREAD = web.AppKey("ledger_thread", ThreadPoolExecutor)
STREAMS = web.AppKey("streams", StreamLimits)
COMPLAINTS = web.AppKey("complaints", Complaints)


def build_app(config: WebConfig, *, clock: Callable[[], float] = time.monotonic) -> web.Application:
    app = web.Application(middlewares=[_sessions(clock)], client_max_size=MAX_FORM * 4)
    app.on_response_prepare.append(_security_headers)
    quiet_bad_requests()
    ledger_thread = ThreadPoolExecutor(1, thread_name_prefix="croupier-web-ledger")
    app[CONFIG] = config
    app[LEDGER_THREAD] = ledger_thread
    app[FEEDS] = {t.name: TableFeed(t, config, ledger_thread) for t in config.tables}
    app[SESSIONS] = SessionStore(config.session_idle)
    app[GUARD] = LoginGuard(config.login_attempts, config.login_window, config.users)
    app[EDGES] = HouseEdges()
    app[STREAMS] = StreamLimits(config.max_streams, config.max_streams_per_client)
    app[COMPLAINTS] = Complaints()
    app.router.add_get("/", index)
    app.router.add_get("/table/{name}", table_page)
    app.router.add_get("/table/{name}/state", table_state)
    app.router.add_get("/table/{name}/events", table_events)
    app.router.add_get("/table/{name}/sign.png", sign_png)
    app.router.add_post("/table/{name}/alerts/{id}/ack", alert_ack)
    app.router.add_post("/table/{name}/jackpot/ack", jackpot_ack)
    app.router.add_get("/floor", floor_page)
    app.router.add_get("/floor/events", floor_events)
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login)
    app.router.add_post("/logout", logout)
    app.router.add_get("/metrics", metrics)
    app.router.add_get("/static/{name}", static_file)
    app.on_startup.append(_start_feeds)
    app.on_cleanup.append(_stop_feeds)
    return app


async def _start_feeds(app: web.Application) -> None:
    for feed in app[FEEDS].values():
        feed.start()


async def _stop_feeds(app: web.Application) -> None:
    await app[EDGES].close()
    for feed in app[FEEDS].values():
        await feed.stop()
    app[LEDGER_THREAD].shutdown(wait=True)
    app[COMPLAINTS].close()


# --- headers and middlewares ---------------------------------------------------------


async def _security_headers(request: web.Request, response: web.StreamResponse) -> None:
    """On every response as it is sent: pages, errors, and the live streams too (a stream's
    headers go out when it starts, before any middleware after the handler would run)."""
    response.headers["Content-Security-Policy"] = CSP
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Referrer-Policy"] = "same-origin"  # "no-referrer" makes Origin null
    response.headers["X-Frame-Options"] = "DENY"
    response.headers.setdefault("Cache-Control", "no-store")


def _sessions(clock: Callable[[], float]) -> Any:
    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        """Load the session the cookie names (None: no live one; only the login form starts
        one, :func:`_session`); refuse a POST without the session's CSRF token or from
        another origin; ask for a login where the configuration wants one."""
        app = request.app
        store = app[SESSIONS]
        now = clock()
        session = store.get(request.cookies.get(COOKIE), now)  # sweeps the expired too
        request["session"] = session
        request["now"] = now
        public = request.path in ("/login", "/metrics") or request.path.startswith("/static/")
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin != f"{request.scheme}://{request.host}":
                raise web.HTTPForbidden(text="request from another origin refused")
            token = request.headers.get("X-CSRF-Token")
            if token is None and request.content_type == "application/x-www-form-urlencoded":
                if (request.content_length or 0) > MAX_FORM:
                    raise web.HTTPRequestEntityTooLarge(MAX_FORM, request.content_length or 0)
                token = (await _form(request)).get("csrf")
            if session is None or not session.csrf_ok(token if isinstance(token, str) else None):
                raise web.HTTPForbidden(text="missing or wrong CSRF token: reload the page")
        elif app[CONFIG].view_needs_login and not public and _user(request) is None:
            raise web.HTTPSeeOther("/login")
        response = await handler(request)
        current: Session | None = request["session"]
        if current is not None and current is not session:
            _set_cookie(response, current, app[CONFIG])
        return response

    return middleware


async def _form(request: web.Request) -> Any:
    """The request's form, its body read within the connection's client time (the runner's
    keep-alive timeout, main.CLIENT_SECONDS) or 408. Without a bound, a body that never came
    kept its request in progress for good, and a few such sockets kept every connection busy
    (limits.py). A client gone in the middle of its body is no error to log."""
    try:
        async with asyncio.timeout(request.protocol.keepalive_timeout or None):
            return await request.post()
    except TimeoutError:
        raise web.HTTPRequestTimeout(text="the request's body did not arrive in time") from None
    except ConnectionResetError:
        raise web.HTTPBadRequest(text="the connection was lost") from None


def _session(request: web.Request) -> Session:
    """The request's session, an anonymous one started for it if it has none (the login
    form's CSRF token needs one; the middleware sends its cookie)."""
    session: Session | None = request["session"]
    if session is None:
        session = request["session"] = request.app[SESSIONS].new(request["now"])
    return session


def _user(request: web.Request) -> str | None:
    session: Session | None = request["session"]
    return session.user if session is not None else None


def _set_cookie(response: web.StreamResponse, session: Session | None, config: WebConfig) -> None:
    if session is None:  # the cookie that ends a session carries the same flags
        response.del_cookie(
            COOKIE, path="/", secure=config.cookie_secure, httponly=True, samesite="Strict"
        )
        return
    response.set_cookie(
        COOKIE,
        session.id,
        httponly=True,
        secure=config.cookie_secure,
        samesite="Strict",
        path="/",
    )


# --- pages -----------------------------------------------------------------------------


def _feed(request: web.Request) -> TableFeed:
    feed = request.app[FEEDS].get(request.match_info["name"])
    if feed is None:
        raise web.HTTPNotFound(text="no such table")
    return feed


def _page(request: web.Request, kind: str, title: str, body: str) -> web.Response:
    session: Session | None = request["session"]
    user = session.user if session is not None else None
    csrf = session.csrf if session is not None else ""  # no session: nothing to post
    account = (
        f'<form method="post" action="/logout" class="account">{html.escape(user)} '
        f'<input type="hidden" name="csrf" value="{html.escape(csrf)}">'
        '<button id="logout">Log out</button></form>'
        if user
        else '<a class="account" id="login" href="/login">Log in to acknowledge</a>'
    )
    nav = " ".join(
        f'<a href="/table/{html.escape(n)}">{html.escape(n)}</a>' for n in request.app[FEEDS]
    )
    text = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf" content="{html.escape(csrf)}">
<title>{html.escape(title)}</title><link rel="icon" href="/static/favicon.svg">
<link rel="stylesheet" href="/static/web.css"></head>
<body data-page="{kind}" data-user="{html.escape(user or "")}">
<header><a href="/floor">Floor</a> {nav} {account}</header>
<main>{body}</main>
<script src="/static/web.js"></script></body></html>"""
    return web.Response(text=text, content_type="text/html")


async def index(request: web.Request) -> web.Response:
    names = list(request.app[FEEDS])
    raise web.HTTPFound(f"/table/{names[0]}" if names else "/floor")


async def table_page(request: web.Request) -> web.Response:
    feed = _feed(request)
    name = html.escape(feed.source.name)
    body = f'<div id="table" data-table="{name}"><p class="loading">Loading…</p></div>'
    return _page(request, "table", f"Table {feed.source.name}", body)


async def floor_page(request: web.Request) -> web.Response:
    return _page(request, "floor", "Floor", '<div id="floor"></div>')


async def table_state(request: web.Request) -> web.Response:
    feed = _feed(request)
    return web.Response(text=feed.page_json(), content_type="application/json")


async def _stream(
    request: web.Request, feeds: list[TableFeed], render: Callable[[], str]
) -> web.StreamResponse:
    """Server-sent events: ``render()`` now and after every change of the feeds. Refused
    with 503 beyond the live streams' limits (``limits.py``: a logged-in session's count
    apart from the strangers')."""
    session: Session | None = request["session"]
    streams = request.app[STREAMS]
    try:
        ticket = streams.open(
            address_key(request.remote), session.id if session and session.user else None
        )
    except StreamsFull as exc:
        request.app[COMPLAINTS](
            "live streams refused", "live stream refused for %s: %s", request.remote, exc
        )
        raise web.HTTPServiceUnavailable(
            text=f"{exc}: try again in {RETRY_AFTER} s",
            headers={"Retry-After": str(RETRY_AFTER)},
        ) from None
    try:
        return await _events(request, feeds, render)
    finally:
        streams.close(ticket)


async def _events(
    request: web.Request, feeds: list[TableFeed], render: Callable[[], str]
) -> web.StreamResponse:
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
    response.headers["X-Accel-Buffering"] = "no"
    await response.prepare(request)
    for feed in feeds:
        feed.watchers += 1
        feed.wake()
    try:
        last = None
        versions = [f.version for f in feeds]
        while True:
            data = render()
            if data != last:
                await response.write(f"data: {data}\n\n".encode())
                last = data
            waits = [
                asyncio.ensure_future(f.wait_change(v, HEARTBEAT))
                for f, v in zip(feeds, versions, strict=True)
            ]
            try:  # a change, a heartbeat, or (checked every GONE_POLL) the client gone
                done: set[asyncio.Future[Any]] = set()
                while not done:
                    done, _ = await asyncio.wait(
                        waits, timeout=GONE_POLL, return_when=asyncio.FIRST_COMPLETED
                    )
                    transport = request.transport
                    if not done and (transport is None or transport.is_closing()):
                        raise ConnectionResetError("the client has gone")
            finally:
                for task in waits:
                    task.cancel()
            versions = [f.version for f in feeds]
            if data == render():
                await response.write(b": quiet\n\n")
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        for feed in feeds:
            feed.watchers -= 1
    return response


async def table_events(request: web.Request) -> web.StreamResponse:
    feed = _feed(request)
    return await _stream(request, [feed], feed.page_json)


async def floor_events(request: web.Request) -> web.StreamResponse:
    feeds = list(request.app[FEEDS].values())
    return await _stream(
        request, feeds, lambda: json.dumps([f.tile() for f in feeds], separators=(",", ":"))
    )


@functools.cache
def _static_files() -> dict[str, tuple[bytes, str]]:
    """The page's files (a few KB), read once. Served from memory, not by aiohttp's static
    route: that sends a file with sendfile(), which waits for a peer that never reads with
    no pause of the protocol, so the connection gate's stall timeout never saw it (limits.py)
    and such a connection stayed busy for good."""
    files = {}
    for path in STATIC.iterdir():
        kind = mimetypes.guess_type(path.name)[0]
        if path.is_file() and kind is not None:
            files[path.name] = (path.read_bytes(), kind)
    return files


async def static_file(request: web.Request) -> web.Response:
    found = _static_files().get(request.match_info["name"])
    if found is None:
        raise web.HTTPNotFound()
    body, kind = found
    return web.Response(body=body, content_type=kind)


_PNG_CACHE: dict[str, bytes] = {}


async def sign_png(request: web.Request) -> web.Response:
    from display.geometry import SignFrame
    from display.png import image_png
    from display.preview import preview

    feed = _feed(request)
    sign = feed.sign
    if not sign or not sign.get("cells"):
        raise web.HTTPNotFound(text="no sign frame")
    key = f"{sign.get('kind')}:{sign['cells']}:{sign.get('level')}"
    png = _PNG_CACHE.get(key)
    if png is None:
        try:
            frame = SignFrame(
                str(sign["kind"]), bytes.fromhex(sign["cells"]), sign.get("text"), sign.get("level")
            )
            png = image_png(preview(frame, scale=3))
        except (ValueError, TypeError, KeyError) as exc:
            raise web.HTTPBadGateway(text=f"the daemon's sign frame is malformed: {exc}") from None
        if len(_PNG_CACHE) > 64:
            _PNG_CACHE.clear()
        _PNG_CACHE[key] = png
    # the page asks for it by the frame's fingerprint (?v=): one picture per frame
    headers = {"Cache-Control": "private, max-age=3600"}
    return web.Response(body=png, content_type="image/png", headers=headers)


# --- acknowledgements ------------------------------------------------------------------


async def _forward(request: web.Request, cmd: str, **args: Any) -> web.Response:
    feed = _feed(request)
    session: Session | None = request["session"]
    if session is None or session.user is None or session.secret is None:
        return web.json_response({"error": "log in to acknowledge"}, status=401)
    try:
        result = await feed.link.call(cmd, session.secret, technician=session.user, **args)
    except DaemonUnreachable as exc:
        return web.json_response({"error": f"the table does not answer: {exc}"}, status=503)
    except ControlError as exc:
        status = 403 if exc.code == "unauthorised" else 409
        return web.json_response({"error": str(exc)}, status=status)
    log.info("%s on table %s by %s", cmd, feed.source.name, session.user)
    feed.wake()
    return web.json_response({"ok": True, "result": result})


async def alert_ack(request: web.Request) -> web.Response:
    try:
        alert_id = int(request.match_info["id"])
    except ValueError:
        raise web.HTTPNotFound(text="no such alert") from None
    return await _forward(request, "alert.ack", id=alert_id)


async def jackpot_ack(request: web.Request) -> web.Response:
    return await _forward(request, "jackpot.ack")


# --- login -----------------------------------------------------------------------------


def _login_form(request: web.Request, message: str = "", status: int | None = None) -> web.Response:
    session = _session(request)
    note = f'<p class="error" id="login-error">{html.escape(message)}</p>' if message else ""
    body = f"""<h1>Log in</h1>{note}
<form method="post" action="/login" id="login-form">
<input type="hidden" name="csrf" value="{html.escape(session.csrf)}">
<label>User <input name="user" id="user" autocomplete="username" required maxlength="64"></label>
<label>Credential <input name="secret" id="secret" type="password"
 autocomplete="current-password" required maxlength="256"></label>
<button id="submit">Log in</button></form>"""
    if status is None:
        status = 429 if message.startswith("too many") else (403 if message else 200)
    response = _page(request, "login", "Log in", body)
    response.set_status(status)
    return response


async def login_page(request: web.Request) -> web.Response:
    return _login_form(request)


async def login(request: web.Request) -> web.Response:
    app = request.app
    form = await _form(request)
    user, secret = form.get("user"), form.get("secret")
    if not isinstance(user, str) or not isinstance(secret, str) or len(secret) > 256:
        return _login_form(request, "user and credential are required")
    now: float = request["now"]
    guard = app[GUARD]
    keys = guard.keys(user, request.remote, request.cookies.get(DEVICE_COOKIE), now)
    wait = guard.wait(keys, now)
    if wait > 0:
        log.warning("login refused for %r from %s: too many failures", user[:64], request.remote)
        return _login_form(request, _too_many(keys, wait))
    guard.attempt(keys, now)  # counted before the check: guesses sent at once wait too
    ok = await asyncio.get_running_loop().run_in_executor(
        None, verify, secret, app[CONFIG].users.get(user) or _unknown_user_hash()
    )
    if not ok or user not in app[CONFIG].users:
        log.warning("failed login for %r from %s", user[:64], request.remote)
        return _login_form(request, "wrong user or credential")
    guard.succeeded(keys)
    try:
        request["session"] = app[SESSIONS].login(_session(request), user, secret, now)
    except SessionsFull as exc:
        log.warning("login refused for %r from %s: %s", user[:64], request.remote, exc)
        return _login_form(request, f"login refused: {exc}", status=503)
    request["device"] = guard.devices.issue(user, now)
    log.info("%s logged in from %s", user, request.remote)
    raise _redirect_with_session(request, "/")


def _too_many(keys: list[str], wait: float) -> str:
    if keys[0].startswith(DEVICE_KEY):
        return f"too many failed logins from this browser: try again in {wait:.0f} s"
    return (
        f"too many failed logins: try again in {wait:.0f} s, or log in from a browser "
        "that has logged in here before"
    )


@functools.cache
def _unknown_user_hash() -> str:
    """A stored credential nobody knows, checked for a name not in ``[users]`` so that
    the answer takes as long as for a real one (made once, on the first such login)."""
    return hash_credential(secrets.token_urlsafe(32))


def _redirect_with_session(request: web.Request, where: str) -> web.HTTPSeeOther:
    redirect = web.HTTPSeeOther(where)
    config = request.app[CONFIG]
    _set_cookie(redirect, request["session"], config)
    device = request.get("device")
    if device is not None:  # "this browser logged in here": see login_guard.py
        redirect.set_cookie(
            DEVICE_COOKIE,
            device,
            max_age=int(DEVICE_MAX_AGE),
            httponly=True,
            secure=config.cookie_secure,
            samesite="Strict",
            path="/login",
        )
    return redirect


async def logout(request: web.Request) -> web.Response:
    """The session ends and its cookie is deleted (the CSRF check made sure there is one)."""
    session: Session = request["session"]
    request.app[SESSIONS].end(session.id)
    request["session"] = None
    raise _redirect_with_session(request, "/")


# --- metrics ---------------------------------------------------------------------------


async def metrics(request: web.Request) -> web.Response:
    app = request.app
    samples = []
    for feed in app[FEEDS].values():
        pipeline = None
        alerts: list[dict[str, Any]] = []
        with contextlib.suppress(ControlError):
            pipeline = await feed.link.call("metrics")
        if feed.page is not None:
            alerts = feed.page["alerts"]
        if feed.stats is not None:
            stats, wall = feed.stats, time.time()
            with contextlib.suppress(Exception):
                await asyncio.get_running_loop().run_in_executor(
                    app[LEDGER_THREAD], lambda stats=stats, wall=wall: stats.refresh(wall)
                )
        status = feed.status if feed.online else None
        profile = status.get("profile") if status else None
        samples.append(
            TableSample(
                feed.source.name,
                feed.online,
                status,
                alerts,
                feed.stats,
                pipeline,
                app[EDGES].get(profile) if feed.stats else None,
                audit_alarm=bool(
                    feed.page and feed.page.get("audit") and feed.page["audit"]["alarm"]
                ),
            )
        )
    body = exposition(samples)
    return web.Response(
        body=body, headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}
    )
