"""systemd's status line follows the table once it is idle, the last state only
(controller/table/runner.py, _send_status); the notifier keeps one datagram socket."""

import asyncio
import socket

from runner_support import open_runner, start_loop, stop_loop

from controller.table.events import ReportStatus
from controller.table.sdnotify import Notifier


class Recorder:
    def __init__(self):
        self.sent = []

    def status(self, text):
        self.sent.append(text)


def test_status_is_sent_once_idle_and_only_the_last(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        runner.notifier = notes = Recorder()
        await runner._carry_out(ReportStatus("dealing T9-1"))
        await runner._carry_out(ReportStatus("verified T9-1"))
        assert notes.sent == []  # not while the table is busy
        runner._send_status()
        runner._send_status()  # nothing new: nothing sent
        await runner.close()
        return notes.sent

    assert asyncio.run(go()) == ["verified T9-1"]


def test_the_event_loop_sends_the_state_it_reached(tmp_path):
    async def go():
        runner = await open_runner(tmp_path)
        runner.notifier = notes = Recorder()
        stop, task = await start_loop(runner)
        for _ in range(200):
            await asyncio.sleep(0.01)
            if runner.machine.state.value == "open" and notes.sent:
                break
        state = runner.machine.state.value
        await stop_loop(runner, stop, task)
        return state, notes.sent

    state, sent = asyncio.run(go())
    assert state == "open"
    assert sent and sent[-1].startswith("open")


def test_one_socket_serves_every_notification(tmp_path):
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sink:
        sink.bind(str(path))
        sink.settimeout(2)
        n = Notifier({"NOTIFY_SOCKET": str(path)})
        n.status("open T9-1")
        first = n._sock
        n.watchdog()
        assert n._sock is first
        assert [sink.recv(64), sink.recv(64)] == [b"STATUS=open T9-1", b"WATCHDOG=1"]
        n.close()
        assert n._sock is None
        n.status("closed")  # a notification after close opens a socket again
        assert sink.recv(64) == b"STATUS=closed"
        n.close()
