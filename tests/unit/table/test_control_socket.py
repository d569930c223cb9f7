"""The control socket answers malformed or unauthorised requests with an error and keeps
serving (a real Unix socket, the server on its own event loop thread)."""

import asyncio
import os
import socket
import stat
import threading

import pytest

from controller.table.control.client import ControlClient
from controller.table.control.server import ControlServer
from controller.table.control.wire import MAX_LINE, ControlError, decode_reply


@pytest.fixture
def server(tmp_path):
    path = tmp_path / "run" / "control.sock"
    srv = ControlServer(path)
    srv.register("status", lambda req: {"state": "open"})

    async def echo(req):
        await asyncio.sleep(0)
        return req.args

    def ack(req):
        if req.credential != "s3cret":
            raise ControlError("technician credential required", "unauthorised")
        return "acknowledged"

    def boom(req):
        raise RuntimeError("handler bug")

    srv.register("echo", echo)
    srv.register("jackpot.ack", ack)
    srv.register("boom", boom)
    loop = asyncio.new_event_loop()
    started = threading.Event()

    def run():
        asyncio.set_event_loop(loop)
        loop.run_until_complete(srv.start())
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert started.wait(5)
    yield path
    asyncio.run_coroutine_threadsafe(srv.close(), loop).result(5)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(5)
    loop.close()


def raw(path, payload):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(5)
        s.connect(str(path))
        s.sendall(payload)
        data = b""
        while b"\n" not in data:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
        return data


def test_requests_on_one_connection(server):
    with ControlClient(server) as c:
        assert c.call("status") == {"state": "open"}
        assert c.call("echo", seat=3) == {"seat": 3}


def test_socket_is_group_restricted(server):
    assert stat.S_IMODE(os.stat(server).st_mode) == 0o660


def test_errors_keep_the_server_serving(server):
    with ControlClient(server) as c:
        with pytest.raises(ControlError, match="unknown command 'nope'") as info:
            c.call("nope")
        assert info.value.code == "unknown-command"
        with pytest.raises(ControlError, match="credential required") as info:
            c.call("jackpot.ack")
        assert info.value.code == "unauthorised"
        assert c.call("jackpot.ack", credential="s3cret") == "acknowledged"
        with pytest.raises(ControlError, match="internal error: handler bug"):
            c.call("boom")
        assert c.call("status") == {"state": "open"}
    for junk in (
        b"{not json\n",
        b"[1,2]\n",
        b'{"cmd": 5}\n',
        b'{"cmd":"status","args":[]}\n',
        b'{"cmd":"status","cmd":"jackpot.ack"}\n',  # ran the last one
        b'{"cmd":"echo","args":{"seat":1,"seat":2}}\n',
        b"\xff\xfe\n",
    ):
        with pytest.raises(ControlError) as info:
            decode_reply(raw(server, junk))
        assert info.value.code == "bad-request"
    with pytest.raises(ControlError, match="longer than"):
        decode_reply(raw(server, b"x" * (MAX_LINE + 10) + b"\n"))
    with ControlClient(server) as c:
        assert c.call("status") == {"state": "open"}


@pytest.mark.parametrize(
    "request_line",
    [
        b'{"id":1,"cmd":"status","args":null}\n',
        b'{"id":1,"cmd":5}\n',
        b'{"id":1,"cmd":"status","credential":7}\n',
        b'{"id":1,"cmd":"status","extra":true}\n',
        b'{"id":1,"cmd":"' + b"x" * 65 + b'"}\n',
        b'{"id":1,"cmd":"echo","args":{"x":"a\\u0000"}}\n',  # past the document's limits
        b'{"id":1,"cmd":"echo","args":{"n":123456789012345678901}}\n',
    ],
)
def test_a_malformed_request_is_answered_with_its_own_id(server, request_line):
    """A client sending several requests on one connection matches each error to its
    request: the reply carried "id": null when anything but the id was wrong."""
    import json

    reply = json.loads(raw(server, request_line))
    assert reply["id"] == 1 and reply["code"] == "bad-request" and not reply["ok"]
    for bad_id in (b'{"id":true,"cmd":"status"}\n', b'{"id":[1],"cmd":"status"}\n'):
        assert json.loads(raw(server, bad_id))["id"] is None  # no valid id to name


def test_client_explains_a_missing_daemon(tmp_path):
    with pytest.raises(ControlError, match="is croupierd running"):
        ControlClient(tmp_path / "none.sock").call("status")


def test_stale_socket_is_replaced(tmp_path):
    path = tmp_path / "control.sock"
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(str(path))
    stale.close()

    async def go():
        srv = ControlServer(path)
        srv.register("status", lambda r: 1)
        await srv.start()
        reader, writer = await asyncio.open_unix_connection(str(path))
        writer.write(b'{"id":1,"cmd":"status"}\n')
        line = await reader.readline()
        writer.close()
        await srv.close()
        return line

    assert decode_reply(asyncio.run(go())) == 1
    assert not path.exists()


def test_closing_while_clients_leave_logs_nothing(tmp_path):
    """The daemon stopping just as clients hang up: every connection ends quietly (asyncio
    3.11 reports a stream handler that ends cancelled through the loop's exception handler,
    with a traceback, e.g. one cancelled while it waits for its socket to close)."""
    path = tmp_path / "control.sock"
    reported: list[dict] = []

    async def go() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: reported.append(ctx))
        for _ in range(30):
            srv = ControlServer(path)
            srv.register("status", lambda req: {"state": "open"})
            await srv.start()
            readers = []
            for _ in range(4):
                reader, writer = await asyncio.open_unix_connection(str(path))
                writer.write(b'{"id":1,"cmd":"status"}\n')
                await reader.readline()
                writer.close()  # the client leaves...
                readers.append(writer)
            await asyncio.sleep(0)
            await srv.close()  # ...as the server closes
            for writer in readers:
                await writer.wait_closed()
            await asyncio.sleep(0)

    asyncio.run(go())
    assert not reported, [str(ctx.get("exception") or ctx.get("message")) for ctx in reported]


def test_an_accept_retry_due_after_the_socket_closed_is_not_a_traceback(tmp_path, caplog):
    """Out of file descriptors, asyncio drops the listening socket's reader and schedules
    ``_start_serving`` a second later (selector_events._accept_connection). A stop within that
    second closes the socket first: the retry fails on "Invalid file descriptor: -1" and the
    loop's default handler logged it with a traceback (tests/adversarial/test_socket_floods.py
    saw it now and then at the end of its flood). Scheduled here as asyncio schedules it."""

    async def stop_with_a_retry_due() -> None:
        srv = ControlServer(tmp_path / "control.sock")
        await srv.start()
        loop = asyncio.get_running_loop()
        listening = srv._server._sockets[0]  # type: ignore[union-attr]
        loop.call_later(0.05, loop._start_serving, lambda: None, listening)  # type: ignore[attr-defined]
        await srv.close()
        await asyncio.sleep(0.2)  # the retry comes due on the closed socket

    with caplog.at_level("DEBUG"):
        asyncio.run(stop_with_a_retry_due())
    assert [r for r in caplog.records if r.levelname == "ERROR" or r.exc_info] == []
    assert any("accept retry after the socket closed" in r.getMessage() for r in caplog.records)
