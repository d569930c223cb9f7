"""The real croupierd against the emulator on a pty and the rig pins (issue 7).

Each test runs a whole table: sensed stakes, LOCK, the shuffler's packets, the deal
validator's verdict, the ledger, the lamps; faults are injected through the emulator's control
socket and the rig, the daemon is killed with SIGKILL and restarted.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.rig.table import SimTable
from controller.table.control.wire import ControlError

pytestmark = pytest.mark.integration


def pool_meter(t: SimTable, name: str = "current") -> int:
    reader = t.ledger()
    try:
        return reader.pools()["main"][1].__getattribute__(name)
    finally:
        reader.close()


def croupier(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli.main", *args], capture_output=True, text=True
    )


def test_round_with_sensed_stakes_contributes_and_settles(sim_table):
    t = sim_table
    t.io.place_stake(1)
    t.io.place_stake(3)
    t.wait_until(lambda: t.status()["seats"]["3"]["stake"], "stakes sensed")
    t.tap("lock")
    t.wait_for_state("verified")
    t.io.wait_for_lamp("green", lit=True, timeout=10)
    assert pool_meter(t) == 500_000 + 30  # 15% of 2 x 100 (PRG-1)
    assert pool_meter(t, "stakes_in") == 200
    t.tap("confirm")
    done = t.wait_until(
        lambda: t.status()["state"] in ("settled", "jackpot") and t.status(), "settled"
    )
    assert done["round"] == "SIM-1-000001"
    settled = t.journal("round.settled")
    assert len(settled) == 1
    # the ledger and the journal agree, checked by the technician's tools
    db = str(t.state_dir / "ledger.sqlite3")
    assert croupier("meters", "verify", "--db", db).returncode == 0
    assert croupier("events", "verify", "--db", db).returncode == 0
    # beside the daemon, meters and events tail ask it: the same as reading the file
    sock = ("--socket", str(t.control_socket))
    for command in (("meters",), ("meters", "--json"), ("events", "tail", "-n", "5")):
        live, read = croupier(*sock, *command), croupier(*command, "--db", db)
        assert live.returncode == read.returncode == 0, live.stderr + read.stderr
        assert live.stdout == read.stdout and "EUR 5,000.30" in croupier(*sock, "meters").stdout
    only = json.loads(croupier(*sock, "events", "tail", "--kind", "round.settled", "--json").stdout)
    assert [e["kind"] for e in only] == ["round.settled"] * len(settled)
    shown = t.call("round.show", privileged=True)
    assert {s["seat"] for s in shown["record"]["seats"]} == {1, 3}
    assert t.call("round.settle", privileged=True)["matches"] is True


def test_wrong_count_voids_md_s1_returns_stakes_and_takes_the_deck_out(sim_table):
    t = sim_table
    t.io.place_stake(2)
    t.wait_until(lambda: t.status()["seats"]["2"]["stake"], "stake sensed")
    t.emulator.set_faults(machine={"wrong_count_at_packet": 2})  # seat 2's packet (UTH-11)
    t.call("round.lock")
    void = t.wait_for_state("void")
    assert void["verdict"]["rule"] == "MD-S1"
    t.io.wait_for_lamp("red", lit=True, timeout=10)
    t.wait_until(lambda: t.journal("round.voided"), "the void in the ledger")
    assert pool_meter(t) == 500_000  # contribution reversed
    assert pool_meter(t, "stakes_returned") == 100
    t.emulator.clear()
    t.call("round.confirm")  # the dealer confirms a replacement deck: counted, then open
    t.wait_for_state("open")


def test_shuffler_jam_voids_md_s2(sim_table):
    t = sim_table
    t.emulator.set_faults(machine={"jam_at_packet": 3})
    t.call("round.seats", seats=[1, 2, 4])
    t.call("round.lock")
    assert t.wait_for_state("void")["verdict"]["rule"] == "MD-S2"


def test_two_exposed_cards_void_md_s3(sim_table):
    t = sim_table
    t.emulator.set_faults(machine={"exposed_at_packet": 1, "exposed_cards": 2})
    t.call("round.seats", seats=[1])
    t.call("round.lock")
    assert t.wait_for_state("void")["verdict"]["rule"] == "MD-S3"


def test_link_loss_mid_deal_voids_md_s2_and_the_table_recovers(make_sim_table):
    t = make_sim_table({"shuffler": {"packet_timeout": 3.0}})
    # the emulator answers nothing from the second packet on, then drops the line
    t.emulator.set_faults(tx={"drop": 100})
    t.call("round.seats", seats=[1])
    t.call("round.lock")
    assert t.wait_for_state("void")["verdict"]["rule"] == "MD-S2"
    t.emulator.clear()
    t.call("round.confirm")
    t.wait_for_state("open", timeout=30)


def test_kill9_mid_round_is_voided_at_restart(sim_table):
    t = sim_table
    t.io.place_stake(1)
    t.wait_until(lambda: t.status()["seats"]["1"]["stake"], "stake sensed")
    t.call("round.lock")
    t.wait_for_state("verified")
    assert pool_meter(t) == 500_015
    t.kill(power_off_shuffler=False)  # its emulator must notice and go: no orphan shuffler
    t.start()
    t.wait_for_state("open")
    status = t.status()
    assert status["recovered_rounds"] == ["SIM-1-000001"]
    voided = t.journal("round.voided")
    assert voided and voided[0]["rule"] == "MD-S2"
    assert pool_meter(t) == 500_000
    # the next round gets the next number: no round is ever counted twice
    t.call("round.seats", seats=[1])
    t.call("round.lock")
    assert t.wait_for_state("verified")["round"] == "SIM-1-000002"
    db = str(t.state_dir / "ledger.sqlite3")
    assert croupier("meters", "verify", "--db", db).returncode == 0


def test_lock_twice_is_ignored_and_answered(sim_table):
    t = sim_table
    t.call("round.seats", seats=[1])
    t.call("round.lock")
    with pytest.raises(ControlError, match="LOCK only closes bets of an open table"):
        t.call("round.lock")
    t.wait_for_state("verified")
    assert len(t.journal("round.opened")) == 1
    assert any(e.get("state") for e in t.journal("lock-ignored"))


def test_sensor_chatter_excludes_the_seat_from_the_progressive(sim_table):
    t = sim_table
    for _ in range(10):
        t.io.place_stake(4)
        t.io.lift_stake(4)
    t.wait_until(lambda: t.status()["seats"]["4"]["excluded"], "seat 4 excluded")
    t.io.place_stake(2)
    t.wait_until(lambda: t.status()["seats"]["2"]["stake"], "stake sensed")
    t.call("round.lock")
    t.wait_for_state("verified")
    opened = t.journal("round.opened")[0]
    assert set(opened["stakes"]) == {"2"}


def test_firmware_not_on_the_allow_list_keeps_the_table_closed(make_sim_table):
    untrusted = {"firmware_allow": ["ab" * 32], "emulator": {"trusted": False}}
    t = make_sim_table({"shuffler": untrusted}, wait_open=False)
    closed = t.wait_until(
        lambda: "firmware" in (s := t.status())["conditions"] and s, "firmware check"
    )
    assert closed["state"] == "closed"
    assert "not on the allow-list" in closed["conditions"]["firmware"]


def test_shuffler_absent_keeps_the_table_closed_and_serving(make_sim_table):
    absent = {
        "emulate": None,
        "emulator": None,
        "port": "/dev/does-not-exist",
        "firmware_allow": ["ab" * 32],
    }
    t = make_sim_table({"shuffler": absent}, wait_open=False, emulated=False)
    status = t.wait_until(lambda: "link" in (s := t.status())["conditions"] and s, "link condition")
    assert status["state"] == "closed"
    with pytest.raises(ControlError, match="no jackpot"):
        t.call("jackpot.ack", privileged=True)


def test_malformed_config_exits_2_listing_every_problem(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('[table]\nid = "T 1"\nprofile = "uth-xx"\n[shuffler]\nbaud = "fast"\n')
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.table.daemon",
            "--config",
            str(bad),
            "--state-dir",
            str(tmp_path / "s"),
            "--runtime-dir",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    for fragment in ("table.id", "table.profile", "shuffler.baud", "shuffler.port"):
        assert fragment in run.stderr
    check = croupier("config", "check", str(bad), "--json")
    assert check.returncode == 1
    keys = {p["key"] for p in json.loads(check.stdout)["problems"]}
    assert {"table.id", "table.profile", "shuffler.baud"} <= keys


def test_second_daemon_on_the_same_ledger_refuses(sim_table, tmp_path):
    t = sim_table
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.table.daemon",
            "--config",
            str(t.config_path),
            "--state-dir",
            str(t.state_dir),
            "--runtime-dir",
            str(tmp_path / "run2"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert "ledger" in run.stderr.lower()


def test_biased_shuffler_raises_the_audit_alarm(make_sim_table):
    t = make_sim_table({"timing": {"settled_display": 0.05}})
    t.emulator.set_faults(machine={"biased_shuffle": True})  # one pass of a shelf shuffler
    for _ in range(120):
        t.call("round.seats", seats=[1])
        t.call("round.lock")
        t.wait_for_state("verified")
        t.call("round.confirm")
        t.wait_for_state("open")
        if t.call("shuffler.audit")["alarm"]:
            break
    report = t.call("shuffler.audit")
    assert report["alarm"], report
    assert t.wait_until(lambda: t.journal("shuffle-audit-alarm"), "the alarm in the journal")
    audit = croupier("shuffler", "audit", "--socket", str(t.control_socket))
    assert audit.returncode == 1 and "ALARM" in audit.stdout


def test_technician_key_and_confirm_clear_an_excluded_seat(sim_table):
    t = sim_table
    for _ in range(10):
        t.io.place_stake(4)
        t.io.lift_stake(4)
    t.wait_until(lambda: t.status()["seats"]["4"]["excluded"], "seat 4 excluded")
    t.io.turn_key(True)
    t.wait_until(lambda: t.journal("technician-key"), "key journaled")
    t.tap("confirm")
    t.wait_until(lambda: not t.status()["seats"]["4"]["excluded"], "seat 4 cleared")
    assert t.journal("seats-cleared")[0]["seats"] == [4]
