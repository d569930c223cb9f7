"""The raw deal frames outlive the daemon (issue 18 point 4): a round settled, croupierd
killed with SIGKILL and started again, and the evidence bundle of that round, made by the new
daemon and from the files, still has every DEAL exchange as the link saw it, the deck check
before it and the shuffler that dealt it; the standalone verifier accepts it. A voided round
keeps its frames too."""

from __future__ import annotations

import json

import pytest
from daemon_harness import CREDENTIAL, SimTable

from controller.books import evidence_verify
from controller.books.reports.signing import create_key, public_key_path
from controller.cli.main import main
from controller.table.tableconfig import load_table_config

pytestmark = pytest.mark.integration


def play_one_round(t: SimTable) -> str:
    t.table.place_stake(1)
    t.table.place_stake(3)
    t.wait(lambda: t.status()["seats"]["3"]["stake"], "stakes sensed")
    t.press("lock")
    t.wait_state("verified")
    t.press("confirm")
    done = t.wait(lambda: t.status()["state"] in ("settled", "jackpot") and t.status(), "settled")
    return done["round"]


def void_one_round(t: SimTable) -> str:
    """A round voided by a short packet (MD-S1), and the replacement deck counted."""
    t.table.place_stake(2)
    t.wait(lambda: t.status()["seats"]["2"]["stake"], "stake sensed")
    with t.emulator() as emu:
        emu.set_faults(machine={"wrong_count_at_packet": 2})  # the first seat's (UTH-11)
    t.call("round.lock")
    round_id = t.wait_state("void")["round"]
    t.wait(lambda: t.journal("round.voided"), "the void in the ledger")
    with t.emulator() as emu:
        emu.clear()
    t.call("round.confirm")  # the dealer confirms a replacement deck: counted, then open
    t.wait_state("open")
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
    tmp_path, monkeypatch, capsys
):
    t = SimTable(tmp_path)
    try:
        t.start()
        round_id = play_one_round(t)
        t.kill9()
        t.start()
        key = load_table_config(t.config_path).resolve_report_key(t.state_dir)
        create_key(key)  # install.sh makes it on a real table
        made = t.call("evidence.make", CREDENTIAL, round=round_id)
        public = public_key_path(key)
        check(made["bundle"]["report"], made["file"], public)
        voided = void_one_round(t)
        bundle = t.call("evidence.make", CREDENTIAL, round=voided)["bundle"]["report"]
        assert bundle["round_record"] is None and bundle["ledger_round"]["rule"] == "MD-S1"
        tags = [p["frames"][0]["raw"][12:14] for p in bundle["deal_packets"]]
        assert tags == ["00", "01"]  # the community's packet, then the first seat's
        short = bytes.fromhex(bundle["deal_packets"][1]["payload"])
        assert short[3] != short[2]  # its reply: not the count requested (MD-S1)
        (replaced,) = bundle["deck_checks"]["after"]  # the replacement deck, counted
        assert replaced["text"] == "52 of 52 cards"
        t.stop()
    finally:
        t.close()
    # and from the files, the daemon stopped: the same frames
    monkeypatch.setenv("CROUPIER_CREDENTIAL", CREDENTIAL)
    out = tmp_path / "from-files.json"
    code = main(["evidence", "make", round_id, "--config", str(t.config_path),
                 "--state-dir", str(t.state_dir), "--output", str(out)])  # fmt: skip
    assert code == 0
    again = json.loads(out.read_text())["report"]
    check(again, out, public)
    assert again["deal_packets"] == made["bundle"]["report"]["deal_packets"]
