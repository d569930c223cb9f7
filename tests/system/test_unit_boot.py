"""croupierd.service booted under a real systemd (Debian bookworm in systemd-nspawn, nspawn.py).

The unit file is the one ``install.sh`` installs, unchanged: every hardening line applies. On
this x86 machine the table is the simulated one (the shuffler emulator on a pty, mock pins,
the sign's dummy device); what the Pi's GPIO backends read is checked by a probe that runs
with the unit's own sandbox. The tests share one container and run in order.
"""

from __future__ import annotations

import json
import re
import time
import tomllib
from pathlib import Path

import pytest
import tomli_w
from nspawn import DEPS, SRC, VENV, Container, ensure_root, skip_or_fail, unavailable

from controller.table.host_checks import _adjtimex_status

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
UNIT = (REPO / "systemd" / "croupierd.service").read_text()
TABLE = "NSPAWN-1"
SOCKET = "/run/croupier/control.sock"
WAIT = 60.0


def table_config(**host: bool) -> str:
    """config/sim.toml with mock pins (no rig process in the container) and [host] set."""
    data = tomllib.loads((REPO / "config" / "sim.toml").read_text())
    data["table"]["id"] = TABLE
    data["shuffler"]["emulator"] = {"decks": 1}
    data["gpio"]["pin_factory"] = "mock"
    del data["gpio"]["rig_socket"]
    data["control"]["group"] = "croupier"
    data["host"] = host
    return tomli_w.dumps(data)


def write(box: Container, path: str, text: str, mode: int = 0o644) -> None:
    target = box.path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    target.chmod(mode)


def install(box: Container) -> None:
    """What systemd/install.sh does on a Pi, without the network: its files (run as is, with
    DESTDIR=/), its user and groups, and a venv that sees this tree and the test's packages
    instead of pip's download."""
    box.run(
        "sh",
        "-c",
        "DESTDIR=/ sh /opt/croupier/src/systemd/install.sh >/dev/null"
        " && useradd --system --home-dir /var/lib/croupier --shell /usr/sbin/nologin"
        " --user-group croupier"
        " && for g in gpio spi dialout plugdev; do getent group $g >/dev/null"
        " || groupadd --system $g; usermod -a -G $g croupier; done"
        f" && python3 -m venv --without-pip {VENV}",
    )
    site = box.run(f"{VENV}/bin/python", "-c", "import site; print(site.getsitepackages()[0])")
    write(box, f"{site.stdout.strip()}/croupier-test.pth", f"{SRC}\n{DEPS}\n")
    for command, module in (
        ("croupierd", "controller.table.daemon"),
        ("croupier", "controller.cli.main"),
    ):
        script = f"#!{VENV}/bin/python\nimport sys\nfrom {module} import main\nsys.exit(main())\n"
        write(box, f"{VENV}/bin/{command}", script, 0o755)
    host = {"require_clock_sync": True, "allow_volatile_ledger": False}
    write(box, "/etc/croupier/table.toml", table_config(**host), 0o640)
    box.run("chgrp", "-R", "croupier", "/etc/croupier")
    box.run("systemctl", "daemon-reload")


@pytest.fixture(scope="module")
def box():
    reason = unavailable()
    if reason:
        skip_or_fail(reason)
    container = Container(ensure_root(), REPO, {})
    try:
        install(container)
        yield container
    finally:
        container.stop()


def show(box: Container, unit: str, *props: str) -> dict[str, str]:
    out = box.run("systemctl", "show", unit, *(f"--property={p}" for p in props)).stdout
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)


def status(box: Container) -> dict:
    out = box.run("croupier", "status", "--socket", SOCKET, "--json", check=False)
    return json.loads(out.stdout) if out.returncode == 0 else {}


def wait(what: str, ok, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if result := ok():
            return result
        time.sleep(0.25)
    raise AssertionError(f"waited {timeout:g} s for {what}")


def _with(table: dict, condition: str) -> dict | None:
    """``table`` (a status) once it shows ``condition``."""
    return table if condition in table["conditions"] else None


def journal(box: Container, *args: str) -> list[dict]:
    out = box.run("journalctl", "--no-pager", "-o", "json", *args).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


# --- the sandbox and what the GPIO backends read ---------------------------------------


def probe_unit(extra: str = "") -> str:
    """croupierd.service with the probe for ExecStart: every sandbox line kept, the runtime
    directory renamed so that it never touches the daemon's."""
    text = UNIT.replace("/run/croupier", "/run/croupier-probe")
    text = text.replace("RuntimeDirectory=croupier", "RuntimeDirectory=croupier-probe")
    text = re.sub(r"^Type=notify$", "Type=oneshot", text, flags=re.M)
    text = re.sub(r"^(WatchdogSec|Restart|NotifyAccess)=.*\n", "", text, flags=re.M)
    text = re.sub(
        r"^ExecStart=.*$",
        f"ExecStart={VENV}/bin/python {SRC}/tests/system/sandbox_probe.py\n"
        "StandardOutput=truncate:/run/probe.json" + extra,
        text,
        flags=re.M,
    )
    assert re.search(r"^ProtectSystem=strict$", text, re.M) and "ExecStart=/opt" in text
    return text


def run_probe(box: Container, extra: str = "") -> dict:
    write(box, "/etc/systemd/system/croupier-probe.service", probe_unit(extra))
    box.run("systemctl", "daemon-reload")
    box.run("systemctl", "start", "croupier-probe.service", timeout=120)
    return json.loads(box.path("/run/probe.json").read_text())


def test_the_units_sandbox_shows_the_gpio_backends_what_they_read(box):
    free = json.loads(box.run(f"{VENV}/bin/python", f"{SRC}/tests/system/sandbox_probe.py").stdout)
    sandboxed = run_probe(box)
    assert sandboxed["files"] == free["files"]
    assert sandboxed["devices"] == free["devices"]
    assert sandboxed["gpiozero"] == free["gpiozero"]
    assert sandboxed["board"] == free["board"]
    assert sandboxed["lg_wd"] == "writable" and sandboxed["cwd"] == "writable"
    assert not free["files"]["/proc/cpuinfo"].startswith("error")
    # the control: ProcSubset=pid (the unit's old line) hides /proc/cpuinfo from gpiozero
    hidden = run_probe(box, "\nProcSubset=pid")
    assert hidden["files"]["/proc/cpuinfo"].startswith("error")
    assert hidden["gpiozero"].startswith("FileNotFoundError")


def test_the_clock_check_gets_its_answer_under_the_sandbox(box):
    sandboxed = run_probe(box)
    assert sandboxed["clock"][1].startswith("timedatectl: NTPSynchronized=")
    assert sandboxed["clock"][0] == _adjtimex_status().synchronised  # the shared kernel's


# --- the daemon under its unit -----------------------------------------------------------


def test_the_daemon_reaches_ready_and_answers_status(box):
    box.run("systemctl", "start", "croupierd", timeout=120)  # Type=notify: returns at READY
    unit = show(box, "croupierd", "ActiveState", "SubState", "StatusText", "NRestarts")
    assert (unit["ActiveState"], unit["SubState"]) == ("active", "running"), unit
    assert unit["NRestarts"] == "0"
    table = wait("croupier status", lambda: status(box))
    assert table["table"] == TABLE
    assert table["state"] == "closed"  # from READY until the start-up's conditions are in
    # the state directory is on the container's RAM overlay: refused (the host checks run
    # before READY; the table's loop takes their conditions in just after, once the sign is
    # started); the clock is the host's
    table = wait("the ledger-storage condition", lambda: _with(status(box), "ledger-storage"))
    conditions = table["conditions"]
    assert "overlay" in conditions["ledger-storage"]
    if _adjtimex_status().synchronised:
        assert "clock" not in conditions
    else:
        assert "NTPSynchronized=no" in conditions["clock"]
    assert table["state"] == "closed"


def test_journalctl_shows_priorities_and_the_table_field(box):
    entries = journal(box, "-u", "croupierd", f"TABLE={TABLE}")
    assert any("up" in e["MESSAGE"] and e["PRIORITY"] == "6" for e in entries)
    closed = [e for e in entries if "table closed: ledger-storage" in e["MESSAGE"]]
    assert closed and closed[0]["PRIORITY"] == "4" and closed[0]["SYSLOG_IDENTIFIER"] == "croupierd"
    warnings = journal(box, "-u", "croupierd", "-p", "warning")
    assert any("ledger-storage" in e["MESSAGE"] for e in warnings)
    assert not any(e["PRIORITY"] == "6" for e in warnings)


def test_the_watchdog_is_armed_and_fed(box):
    before = show(box, "croupierd", "MainPID", "WatchdogUSec", "WatchdogTimestampMonotonic")
    assert before["WatchdogUSec"] == "10s"
    time.sleep(12)  # longer than WatchdogSec: a daemon that stopped pinging would be killed
    after = show(box, "croupierd", "MainPID", "NRestarts", "WatchdogTimestampMonotonic")
    assert after["MainPID"] == before["MainPID"] and after["NRestarts"] == "0"
    assert int(after["WatchdogTimestampMonotonic"]) > int(before["WatchdogTimestampMonotonic"])
    # a hung event loop (SIGSTOP) is killed by the watchdog and restarted
    box.run("systemctl", "kill", "--signal=SIGSTOP", "croupierd")
    wait(
        "the watchdog's restart",
        lambda: show(box, "croupierd", "NRestarts")["NRestarts"] == "1",
        timeout=60,
    )
    wait("the restarted daemon", lambda: status(box).get("table") == TABLE)
    assert any("watchdog" in e["MESSAGE"].lower() for e in journal(box, "-u", "croupierd"))


def test_a_round_carries_its_round_field(box):
    write(box, "/etc/croupier/table.toml", table_config(allow_volatile_ledger=True), 0o640)
    box.run("chgrp", "croupier", "/etc/croupier/table.toml")
    box.run("systemctl", "restart", "croupierd", timeout=120)
    wait("an open table", lambda: status(box).get("state") == "open")
    box.run("croupier", "round", "seats", "1", "--socket", SOCKET)
    box.run("croupier", "round", "lock", "--socket", SOCKET)
    round_id = wait("the round", lambda: status(box).get("round"))
    opened = wait(
        "the round in the journal",
        lambda: journal(box, "-u", "croupierd", f"ROUND={round_id}"),
    )
    assert opened[0]["MESSAGE"].endswith(f"round {round_id} opened")
    assert opened[0]["TABLE"] == TABLE


def test_journalctl_p_err_shows_why_the_daemon_cannot_start(box):
    write(box, "/etc/croupier/table.toml", '[table]\nid = "no spaces"\n', 0o640)
    box.run("chgrp", "croupier", "/etc/croupier/table.toml")
    box.run("systemctl", "restart", "croupierd", check=False, timeout=120)
    errors = wait(
        "errors in the journal",
        lambda: [
            e["MESSAGE"]
            for e in journal(box, "-u", "croupierd", "-p", "err")
            if "configuration problems" in e.get("MESSAGE", "")
        ],
    )
    assert errors[0].startswith("croupierd: configuration problems")
