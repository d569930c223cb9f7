import socket

from controller.table.sdnotify import Notifier


def test_sends_datagrams_to_notify_socket(tmp_path):
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sink:
        sink.bind(str(path))
        sink.settimeout(2)
        n = Notifier({"NOTIFY_SOCKET": str(path), "WATCHDOG_USEC": "10000000"})
        assert n.watchdog_interval == 2.5  # a quarter of WatchdogSec
        n.ready("table open")
        assert sink.recv(1024) == b"READY=1\nSTATUS=table open"
        n.watchdog()
        assert sink.recv(1024) == b"WATCHDOG=1"


def test_abstract_namespace_and_disabled():
    assert Notifier({"NOTIFY_SOCKET": "@sd"}).address == "\0sd"
    n = Notifier({})
    assert not n.enabled and n.watchdog_interval is None
    n.ready()  # no-op outside systemd
