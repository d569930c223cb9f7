"""The rig cabled to a controller it does not start itself (``croupier rig run --wired``): a
croupierd on this machine stands for the table controller, started, stopped and killed by
the commands of the rig's wiring file; the rig plays its shuffler on a pty the controller
opens as its serial port and holds its pins over the rig socket. The same scenario files
run, kill -9 included; a scenario for another game or another configuration is refused."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w

from controller.books.ledger.keys import create_keyring
from controller.books.ledger.selfcheck import make_manifest
from controller.rig.play import run_scenario
from controller.rig.report import human
from controller.rig.scenario import load_scenario
from controller.rig.table import REPO_CONFIG
from controller.rig.wired import WiredTable, load_wiring
from controller.validation import ConfigError, read_toml
from firmware_bridge.emulator.firmware import firmware_digest

HIL = Path(__file__).parent


def sh(script: str) -> str:
    return f"sh -c {shlex.quote(script)}"


@pytest.fixture
def wiring(tmp_path):
    run, state, pid, log = tmp_path / "run", tmp_path / "state", tmp_path / "pid", tmp_path / "log"
    run.mkdir()
    table = read_toml(REPO_CONFIG)
    table["shuffler"] = {
        "port": str(run / "shuffler.pty"),
        "baud": 115200,
        "firmware_allow": [firmware_digest().hex()],
    }
    # a real table is provisioned at install: its ledger key and its software manifest
    table["ledger"]["key"] = str(create_keyring(tmp_path / "ledger.key").path)
    manifest = tmp_path / "manifest.json"
    make_manifest(manifest, "2026-11-24T00:00:00.000+00:00")
    config = tmp_path / "controller.toml"
    config.write_text(tomli_w.dumps(table))
    daemon = (
        f"env CROUPIER_MANIFEST={manifest} {sys.executable} -m controller.table.daemon"
        f" --config {config} --state-dir {state} --runtime-dir {run}"
    )
    alive = f"kill -0 $(cat {pid}) 2>/dev/null"
    stop = f"kill $(cat {pid}) 2>/dev/null; while {alive}; do sleep 0.05; done"
    rig = {
        "controller": {
            "config": str(config),
            "socket": str(run / "control.sock"),
            "prepare": sh(f"[ -f {pid} ] && {{ {stop}; }}; rm -rf {state}"),
            "start": sh(f"{daemon} >> {log} 2>&1 & echo $! > {pid}"),
            "stop": sh(stop),
            "kill": sh(f"kill -9 $(cat {pid})"),
            "log": f"tail -n 40 {log}",
        },
        "shuffler": {"link": str(run / "shuffler.pty")},
        "pins": {"backend": "rig", "socket": str(run / "rig.sock")},
    }
    path = tmp_path / "rig.toml"
    path.write_text(tomli_w.dumps(rig))
    yield load_wiring(path)
    subprocess.run(shlex.split(rig["controller"]["stop"]), check=False)


@pytest.mark.parametrize("name", ["md-s1-wrong-count", "restart-mid-round"])
def test_a_scenario_runs_on_a_wired_controller(wiring, name):
    result = run_scenario(load_scenario(HIL / f"{name}.toml"), wiring)
    assert result.ok, "\n".join(human(result, verbose=True))


def test_the_wired_rig_leaves_no_working_folder(wiring, monkeypatch):
    """Its folder under /tmp is removed with it: the emulator removes its own socket at its
    stop, and the rig's removal of it once failed first, leaving the folder (three a test
    run). The folders this run made are followed, not /tmp's listing, which other test runs
    on the machine change."""
    import tempfile

    made: list[str] = []
    make = tempfile.mkdtemp

    def recorded(*args, **kwargs):
        made.append(make(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(tempfile, "mkdtemp", recorded)
    result = run_scenario(load_scenario(HIL / "md-s1-wrong-count.toml"), wiring)
    assert result.ok
    rig = [Path(p) for p in made if Path(p).name.startswith("croupier-rig-")]
    assert rig and not [p for p in rig if p.exists()]


def test_a_rig_socket_another_rig_serves_is_refused_and_leaves_no_folder(
    wiring, tmp_path, monkeypatch
):
    """The pins' socket is served by another rig (RigServer refuses to take it over): the
    wired table is not made, and its working folder, made first, goes with it."""
    import tempfile

    from drivers.errors import RigError
    from drivers.gpio.rig_server import RigServer

    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    with RigServer(wiring.rig_socket), pytest.raises(RigError, match="another rig serves it"):
        WiredTable(wiring)
    assert list(temporary.iterdir()) == []


def test_scenarios_for_another_table_are_refused(wiring):
    other_game = run_scenario(load_scenario(HIL / "ch-jumbo7.toml"), wiring)
    assert "needs a ch-bg table; the controller plays uth-gr" in other_game.error
    assert not other_game.steps


def test_a_wiring_file_reports_every_problem(tmp_path):
    bad = tmp_path / "rig.toml"
    bad.write_text('[controller]\nsocket = "/x"\n[shuffler]\nbaud = 0\n[pins]\nbackend = "gpio"\n')
    with pytest.raises(ConfigError) as caught:
        load_wiring(bad)
    text = str(caught.value)
    for expected in (
        "controller.config: required key",
        "shuffler.port: give the rig's",
        "shuffler.baud",
        "pins.wiring: required table",
    ):
        assert expected in text
