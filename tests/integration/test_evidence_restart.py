"""The raw deal frames outlive the daemon (issue 18 point 4): a round settled, croupierd
killed with SIGKILL and started again, and the evidence bundle of that round, made by the new
daemon and from the files, still has every DEAL exchange as the link saw it, the deck check
before it and the shuffler that dealt it; the standalone verifier accepts it. A voided round
keeps its frames too."""

from __future__ import annotations

import json

import pytest

from controller.books import evidence_verify
from controller.books.reports.signing import public_key_path
from controller.cli.main import main
from controller.rig.table import SimTable
from controller.table.tableconfig import load_table_config

CREDENTIAL = "1234"  # config/sim.toml's technician credential

pytestmark = pytest.mark.integration


def play_one_round(t: SimTable) -> str:
    t.io.place_stake(1)
    t.io.place_stake(3)
    t.wait_until(lambda: t.status()["seats"]["3"]["stake"], "stakes sensed")
    t.tap("lock")
    t.wait_for_state("verified")
    t.tap("confirm")
    done = t.wait_until(
        lambda: t.status()["state"] in ("settled", "jackpot") and t.status(), "settled"
    )
    return done["round"]


def void_one_round(t: SimTable) -> str:
    """A round voided by a short packet (MD-S1), and the replacement deck counted."""
    t.io.place_stake(2)
    t.wait_until(lambda: t.status()["seats"]["2"]["stake"], "stake sensed")
    t.emulator.set_faults(machine={"wrong_count_at_packet": 2})  # the first seat's (UTH-11)
    t.call("round.lock")
    round_id = t.wait_for_state("void")["round"]
    t.wait_until(lambda: t.journal("round.voided"), "the void in the ledger")
    t.emulator.clear()
    t.call("round.confirm")  # the dealer confirms a replacement deck: counted, then open
    t.wait_for_state("open")
    return round_id


def check(bundle: dict, path, public) -> None:
    assert bundle["not_recorded"] == [] and bundle["frames_dropped"] == 0
    packets = bundle["deal_packets"]
    assert [p["frames"][0]["type"] for p in packets] == ["0x14"] * 4  # community, 2 seats, dealer
    assert all(f["seq"] == p["frames"][0]["seq"] for p in packets for f in p["frames"])
    assert all(p["frames"][-1]["raw"][10:].startswith(p["payload"]) for p in packets)
    assert len(bundle["deck_checks"]["before"]) == 1  # counted when the link came up
    assert bundle["shuffler_identity"]["firmware_sha256"]
    # the software it ran on: the power-up before the round, not the one after the restart
    assert bundle["software"]["at_power_up"]["seq"] < bundle["journal"]["opened"]
    assert evidence_verify.main(["v", str(path), str(public)]) == 0


def test_a_bundle_after_a_kill9_restart_has_the_frames_of_a_round_settled_before(
    tmp_path, monkeypatch, make_sim_table
):
    t = make_sim_table(state_dir=tmp_path / "state")  # kept after the table is closed
    round_id = play_one_round(t)
    t.kill(power_off_shuffler=False)
    t.start()
    t.wait_for_state("open")
    key = load_table_config(t.config_path).resolve_report_key(t.state_dir)  # the rig made it
    made = t.call("evidence.make", privileged=True, round=round_id)
    public = public_key_path(key)
    check(made["bundle"]["report"], made["file"], public)
    voided = void_one_round(t)
    bundle = t.call("evidence.make", privileged=True, round=voided)["bundle"]["report"]
    assert bundle["round_record"] is None and bundle["ledger_round"]["rule"] == "MD-S1"
    tags = [p["frames"][0]["raw"][12:14] for p in bundle["deal_packets"]]
    assert tags == ["00", "01"]  # the community's packet, then the first seat's
    short = bytes.fromhex(bundle["deal_packets"][1]["payload"])
    assert short[3] != short[2]  # its reply: not the count requested (MD-S1)
    (replaced,) = bundle["deck_checks"]["after"]  # the replacement deck, counted
    assert replaced["text"] == "52 of 52 cards"
    config_path = tmp_path / "table.toml"  # the rig's runtime directory goes with the table
    config_path.write_bytes(t.config_path.read_bytes())
    t.stop()
    # and from the files, the daemon stopped: the same frames
    monkeypatch.setenv("CROUPIER_CREDENTIAL", CREDENTIAL)
    out = tmp_path / "from-files.json"
    code = main(
        [
            "evidence",
            "make",
            round_id,
            "--config",
            str(config_path),
            "--state-dir",
            str(t.state_dir),
            "--output",
            str(out),
        ]
    )
    assert code == 0
    again = json.loads(out.read_text())["report"]
    check(again, out, public)
    assert again["deal_packets"] == made["bundle"]["report"]["deal_packets"]
