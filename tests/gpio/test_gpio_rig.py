"""The rig link: the rig process owns the pin levels, the daemon's rig pin factory follows them.

The first tests run both ends in this process (threads); the rest run the daemon side as a
real subprocess (a plain gpiozero program selected by GPIOZERO_PIN_FACTORY=rig, and the
`croupier` CLI), with the rig in the test process, in both start-up orders. Waits have
timeouts; nothing asserts on durations.
"""

import json
import os
import queue
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest
from gpiozero import LED, Button

from drivers.errors import RigError
from drivers.gpio import rig_protocol as proto
from drivers.gpio.pinmap import REFERENCE_GPIO, parse_gpio
from drivers.gpio.rig_factory import RigFactory
from drivers.gpio.rig_server import RigServer, RigTable

WAIT = 10.0
ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture
def socket_path():
    with tempfile.TemporaryDirectory(prefix="rig") as d:  # short: AF_UNIX paths are limited
        yield str(Path(d) / "rig.sock")


def wait_until(predicate, what):
    event = threading.Event()
    for _ in range(int(WAIT / 0.01)):
        if predicate():
            return
        event.wait(0.01)
    raise AssertionError(f"timed out waiting for {what}")


# -- both ends in this process ------------------------------------------------------------------


def test_rig_drives_inputs_and_sees_outputs(socket_path):
    with RigServer(socket_path) as rig:
        factory = RigFactory(socket_path)
        try:
            assert factory.wait_for_rig(WAIT)
            button = Button(17, pin_factory=factory)  # pull-up: reads 1 until the rig drives it
            led = LED(18, pin_factory=factory)
            threads = []
            button.when_pressed = lambda: threads.append(threading.current_thread().name)
            rig.wait_for(
                lambda: rig.pin(17) is not None and rig.pin(17).pull == "up", WAIT, "setup"
            )
            assert not button.is_pressed
            rig.drive(17, 0)
            wait_until(lambda: button.is_pressed, "the button to read pressed")
            wait_until(lambda: threads, "the when_pressed callback")
            assert threads == ["croupier-rig-link"]  # callbacks come from the link thread
            led.on()
            rig.wait_for_output(18, 1, WAIT)
            led.off()
            rig.wait_for_output(18, 0, WAIT)
            assert [level for _, level in rig.history(18)] == [0, 1, 0]
            rig.release(17)
            wait_until(lambda: not button.is_pressed, "the pull-up to win again")
        finally:
            factory.close()


def test_edges_are_timed_when_the_rig_made_them_not_when_the_daemon_read_them(socket_path):
    with RigServer(socket_path) as rig:
        factory = RigFactory(socket_path)
        try:
            pin = factory.pin(17)
            pin.input_with_pull("up")
            times = []

            def changed(ticks, state):  # gpiozero holds callbacks weakly: keep this one
                times.append(ticks)

            pin.when_changed = changed
            assert factory.wait_for_rig(WAIT)
            with factory._lock:  # the daemon is busy: the link thread cannot apply the level
                before = time.monotonic()
                rig.drive(17, 0)
                after = time.monotonic()
                time.sleep(0.2)
            wait_until(lambda: times, "the edge")
            assert before <= times[0] <= after  # not 0.2 s later, when it was read
        finally:
            factory.close()


def test_inputs_fall_back_to_their_pulls_when_the_rig_goes_away(socket_path):
    rig = RigServer(socket_path)
    factory = RigFactory(socket_path)
    try:
        button = Button(22, pin_factory=factory)
        rig.wait_for_daemon(WAIT)
        rig.drive(22, 0)
        wait_until(lambda: button.is_pressed, "pressed")
        rig.close()  # cable unplugged
        wait_until(lambda: not button.is_pressed, "the pull level")
        assert not factory.is_connected
        with RigServer(socket_path) as rig2:  # the rig comes back: the daemon reconnects
            rig2.drive(22, 0)
            assert rig2.wait_for_daemon(WAIT) == os.getpid()
            wait_until(lambda: button.is_pressed, "pressed again")
            assert rig2.pin(22).function == "input"
    finally:
        factory.close()


def test_garbage_on_the_link_drops_the_connection_not_the_rig(socket_path):
    with RigServer(socket_path) as rig:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(socket_path)
        sock.sendall(b'{"op": "output", "pin": 3, "state": 1}\n')  # before hello
        sock.settimeout(WAIT)
        assert sock.recv(100) == b""  # the rig hung up
        sock.close()
        rig.wait_for(lambda: rig.errors, WAIT, "the error to be recorded")
        assert rig.errors == ["rig: 'output' before hello"]
        factory = RigFactory(socket_path)  # a proper daemon is still served
        try:
            assert factory.wait_for_rig(WAIT)
        finally:
            factory.close()


@pytest.mark.parametrize(
    ("line", "fragment"),
    [
        (b"not json", "not JSON"),
        (b'{"op": "explode"}', "unknown message"),
        (b'{"op": "drive", "pin": "17", "level": 1}', "drive needs pin"),
        (b'{"op": "drive", "pin": 17, "level": 2, "t": 1.5}', "level must be 0 or 1"),
        (b'{"op": "drive", "pin": 17, "level": 1}', "drive needs t"),
        (b'{"op": "output", "pin": 17, "state": true}', "output needs state"),
    ],
)
def test_malformed_messages_are_named(line, fragment):
    with pytest.raises(RigError, match=fragment):
        proto.decode(line)


def test_rig_table_speaks_in_seats_and_lamps(socket_path):
    config = parse_gpio(REFERENCE_GPIO)
    with RigServer(socket_path) as rig:
        table = RigTable(rig, config)
        factory = RigFactory(socket_path)
        try:
            sensor = Button(27, pin_factory=factory)  # seat 3, active low with pull-up
            lamp = LED(24, pin_factory=factory)  # seat 3 lamp
            rig.wait_for_daemon(WAIT)
            table.place_stake(3)
            wait_until(lambda: sensor.is_pressed, "the stake to read")
            # The lamp's set-up travels on the link like any message: wait for it, never assume
            # it arrived before the sensor's level came back (seen in CI under load).
            table.wait_for_lamp("seat3", False, WAIT)
            assert table.lamp_lit("seat3") is False
            lamp.on()
            table.wait_for_lamp("seat3", True, WAIT)
            assert [lit for _, lit in table.lamp_history("seat3")] == [False, True]
            assert table.lamp_lit("red") is None  # not set up by this daemon
            with pytest.raises(RigError, match="no input 'door'"):
                table.press("door")
        finally:
            factory.close()


def test_a_second_rig_on_a_live_socket_path_is_refused(socket_path):
    with RigServer(socket_path) as first:
        with pytest.raises(RigError, match="another rig serves it"):
            RigServer(socket_path)  # the first one's socket is not taken over
        assert first.daemon_pid is None and first.errors == []
        with socket.socket(socket.AF_UNIX) as client:
            client.connect(socket_path)  # still served: not taken over
        Path(socket_path + ".x").write_text("")
        with pytest.raises(RigError, match="cannot listen"):
            RigServer(socket_path + ".x")  # a file that is not a socket is left alone
    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(socket_path)  # a socket file nobody listens on: a rig that died
    stale.close()
    with RigServer(socket_path), socket.socket(socket.AF_UNIX) as client:
        client.connect(socket_path)  # a stale socket is replaced


# -- the daemon side in a real subprocess ---------------------------------------------------------

MIRROR = textwrap.dedent(
    """
    # A plain gpiozero program: the button on BCM 17 lights the LED on BCM 18.
    from signal import pause
    from gpiozero import LED, Button
    led = LED(18)
    button = Button(17)
    button.when_pressed = led.on
    button.when_released = led.off
    print("ready", flush=True)
    pause()
    """
)


def spawn(args, socket_path, **env):
    environment = {**os.environ, "CROUPIER_RIG_SOCKET": socket_path, **env}
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=environment, cwd=ROOT)
    proc.lines = queue.Queue()  # read by a thread, so that a test waits with a timeout
    threading.Thread(
        target=lambda: [proc.lines.put(line) for line in proc.stdout], daemon=True
    ).start()
    return proc


def read_line(proc):
    try:
        return proc.lines.get(timeout=WAIT)
    except queue.Empty:
        raise AssertionError(f"no output from {proc.args} within {WAIT} s") from None


def stop(proc):
    proc.kill()
    proc.wait(WAIT)


def test_gpiozero_program_runs_unmodified_on_the_rig_factory(socket_path):
    """GPIOZERO_PIN_FACTORY=rig works through the entry point; the rig listens first."""
    with RigServer(socket_path) as rig:
        proc = spawn([sys.executable, "-c", MIRROR], socket_path, GPIOZERO_PIN_FACTORY="rig")
        try:
            assert read_line(proc).strip() == "ready"
            assert rig.wait_for_daemon(WAIT) == proc.pid
            rig.wait_for(lambda: rig.pin(17) is not None, WAIT, "the button pin")
            for level in (1, 0, 1):
                rig.drive(17, 1 - level)  # pressed = pulled low
                rig.wait_for_output(18, level, WAIT)
        finally:
            stop(proc)
        rig.wait_for(lambda: rig.daemon_pid is None, WAIT, "the daemon's connection to close")


def test_the_daemon_may_start_before_the_rig(socket_path):
    proc = spawn([sys.executable, "-c", MIRROR], socket_path, GPIOZERO_PIN_FACTORY="rig")
    try:
        assert read_line(proc).strip() == "ready"  # running, its rig link retrying
        with RigServer(socket_path) as rig:
            rig.drive(17, 0)  # sent with the levels when the daemon connects
            assert rig.wait_for_daemon(WAIT) == proc.pid
            rig.wait_for_output(18, 1, WAIT)
    finally:
        stop(proc)


def test_croupier_sensors_watch_against_the_rig(socket_path):
    """The technician's live view, off the Pi, with the rig moving chips and pressing LOCK.
    Each step waits for the event line of the previous one (debounce takes real time)."""
    config = parse_gpio(REFERENCE_GPIO)
    with RigServer(socket_path) as rig:
        table = RigTable(rig, config)
        proc = spawn(
            [
                str(BIN / "croupier"),
                "sensors",
                "watch",
                "--pin-factory",
                "rig",
                "--events",
                "4",
                "--json",
            ],
            socket_path,
        )
        events = []
        try:
            assert json.loads(read_line(proc))["event"] == "watching"
            for action in (
                lambda: table.place_stake(3),
                lambda: table.press("lock"),
                lambda: table.release("lock"),
                lambda: table.lift_stake(3),
            ):
                action()
                events.append(json.loads(read_line(proc)))
            assert proc.wait(WAIT) == 0
        finally:
            stop(proc)
    assert [(e["event"], e.get("seat"), e.get("button")) for e in events] == [
        ("stake_placed", 3, None),
        ("button_pressed", None, "lock"),
        ("button_released", None, "lock"),
        ("stake_removed", 3, None),
    ]
    assert events[0]["seats"]["3"] == "stake placed"
    assert events[1]["seats"]["3"] == "locked"  # LOCK closed the bets (the round flow)
    assert events[0]["accepted"] is True


def test_croupier_lamps_test_against_the_rig(socket_path):
    config = parse_gpio(REFERENCE_GPIO)
    with RigServer(socket_path) as rig:
        table = RigTable(rig, config)
        done = subprocess.run(
            [
                str(BIN / "croupier"),
                "lamps",
                "test",
                "--pin-factory",
                "rig",
                "--step",
                "0.01",
                "--json",
            ],
            env={**os.environ, "CROUPIER_RIG_SOCKET": socket_path},
            capture_output=True,
            text=True,
            timeout=WAIT,
        )
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout)
        # its last messages may still be in flight: the rig has read them all once it sees EOF
        rig.wait_for(lambda: rig.daemon_pid is None, WAIT, "the CLI to hang up")
        for lamp in config.lamps:  # each lamp went on then off, in the order tested
            assert [lit for _, lit in table.lamp_history(lamp)][-2:] == [True, False], lamp
        order = sorted(config.lamps, key=lambda name: table.lamp_history(name)[-2][0])
    assert order == [r["lamp"] for r in report["lamps"]] == list(config.lamps)
    assert all(r["readback"] == 1 and r["ok"] for r in report["lamps"])
