"""The regulator's commands on the live daemon: ``report.day`` (the simulated table makes its
report key, the daemon signs the day's report in every form) and ``software.verify`` (keyed
digests computed and journaled while the table runs)."""

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from controller.books import evidence_verify
from controller.books.reports.signing import load_public, public_key_path, verify_document
from controller.books.software_verification import history, verify_software
from controller.cli.main import main
from controller.engine.cards import card_name, parse_cards
from controller.rig.play import StepRunner
from controller.rig.scenario import load_scenario
from controller.rig.table import SimTable
from controller.table.control.client import ControlClient
from controller.table.control.wire import ControlError
from controller.table.reporting import report_context
from firmware_bridge.messages import decode_message

pytestmark = pytest.mark.integration
HIL = Path(__file__).resolve().parents[1] / "hil"


def test_the_live_table_signs_todays_report(tmp_path):
    with SimTable() as table:  # started
        public = load_public(public_key_path(table.config.resolve_report_key(table.state_dir)))
        socket = ["--socket", str(table.control_socket)]
        day = report_context(table.config).rule.day_of(datetime.now(UTC)).isoformat()
        for form in ("json", "csv", "pdf"):
            out = tmp_path / f"today.{form}"
            code = main(
                ["report", "day", *socket, "--date", day, "--format", form, "--output", str(out)]
            )
            assert code == 0
            verify_document(out.read_bytes(), public)
        signed = json.loads((tmp_path / "today.json").read_text())["report"]
        assert signed["table"] == "SIM-1" and not signed["complete"]
        (pool,) = signed["pools"]
        with table.ledger() as ledger:
            assert pool["closing"]["displayed"] == ledger.pool("main")[1].current
        # the socket checks its fields itself (the CLI's own check never reaches it)
        with ControlClient(table.control_socket) as client:
            for args, named in (
                ({"date": "someday"}, "'date'"),
                ({"date": 7}, "'date'"),
                ({"date": "9999-12-31"}, "has not started"),  # OverflowError once
                ({"date": "20261126"}, "YYYY-MM-DD"),
                ({"date": "1999-12-31"}, "before 2000-01-01"),
                ({"form": "docx"}, "'form'"),
            ):
                with pytest.raises(ControlError, match=named) as caught:
                    client.call("report.day", **args)
                assert caught.value.code == "bad-request"


def test_the_live_table_verifies_its_software_and_keeps_the_result(capsys):
    with SimTable() as table:
        socket = ["--socket", str(table.control_socket)]
        seed = "0b" * 20
        assert main(["verify-software", "--seed", seed, *socket, "--json"]) == 0
        answer = json.loads(capsys.readouterr().out)
        local = verify_software(seed, "hmac-sha1")
        assert answer["combined"] == local.combined  # the daemon runs this very software
        with ControlClient(table.control_socket) as client:
            with pytest.raises(ControlError, match="seed must be") as caught:
                client.call("software.verify", seed="not hex")
            assert caught.value.code == "bad-request"
            # who asked is a text the journal keeps (controller.texts): no terminal escapes
            for who in ("\x1b[2J\u202e", "x" * 201, 5):
                with pytest.raises(ControlError, match="'requested_by'") as caught:
                    client.call("software.verify", seed=seed, requested_by=who)
                assert caught.value.code == "bad-request"
            assert client.call("status")["state"]  # still serving
        table.stop()  # the result outlives the daemon
        with table.ledger() as ledger:
            (kept,) = history(ledger)
        assert kept["seq"] == answer["journal_entry"] and kept["combined"] == local.combined


def test_a_jackpot_acknowledgement_leaves_a_verifiable_evidence_bundle(capsys):
    """The royal flush scenario of the rig, then the bundle the daemon made at the technician's
    acknowledgement: the standalone verifier accepts it and croupier settle settles it."""
    scenario = load_scenario(HIL / "royal-envy.toml")
    with SimTable(scenario.config, overrides=scenario.table_overrides) as table:
        runner = StepRunner(table, time.monotonic() + scenario.timeout)
        for step in scenario.steps:
            runner.do(step)
        folder = table.state_dir / "evidence"
        deadline = time.monotonic() + 10
        while not list(folder.glob("*.json")) and time.monotonic() < deadline:
            time.sleep(0.05)
        (bundle,) = folder.glob("*.json")
        public = public_key_path(table.config.resolve_report_key(table.state_dir))
        assert evidence_verify.main(["v", str(bundle), str(public)]) == 0
        signed = json.loads(bundle.read_text())["report"]
        assert signed["meters"]["main"]["jackpot_paid"] == 500_030
        assert signed["shuffler_identity"]["firmware_sha256"]
        # the deal packets as the link received them: every card of the recorded round
        packets = [
            decode_message(int(p["type"], 16), bytes.fromhex(p["payload"]))
            for p in signed["deal_packets"]
        ]
        dealt = sorted(card_name(c.card) for p in packets for c in p.cards)
        record = signed["round_record"]
        cards = record["community"] + record["dealer"]
        cards += [c for seat in record["seats"] for c in seat["cards"]]
        assert dealt == sorted(card_name(parse_cards([c])[0]) for c in cards)
        assert len(signed["deck_checks"]["before"]) == 1  # counted when the link came up
        capsys.readouterr()
        assert main(["settle", str(bundle), "--json"]) == 0
        again = json.loads(capsys.readouterr().out)
        assert again.pop("currency") == "EUR" and again.pop("minor_units") == 2
        # the real daemon journaled its rules at start; settled here with the same file
        rules = again.pop("rules")
        assert rules["same_profile"] is True and rules["played"] == signed["rules"]
        assert signed["rules"]["profile"]["origin"] == "shipped"
        assert signed["rules"]["rules_sha256"] == signed["software"]["at_power_up"]["rules_sha256"]
        assert again == signed["table_settlement"]


def test_croupierd_on_the_simulated_configuration_makes_its_report_key(tmp_path, capsys):
    """``croupierd --config config/sim.toml`` (README, docs/daemon.md) makes report-key.pem
    in its state directory at start, as config/sim.toml and docs/regulatory.md say, so that
    ``report day --socket`` signs; once the rig alone made it, and the daemon started by hand
    answered 'no report key'."""
    import subprocess
    import sys

    sim = Path(__file__).resolve().parents[2] / "config" / "sim.toml"
    state, run = tmp_path / "state", tmp_path / "run"
    log = (tmp_path / "croupierd.log").open("wb")
    dirs = ["--state-dir", str(state), "--runtime-dir", str(run), "--exit-with-parent"]
    daemon = subprocess.Popen(
        [sys.executable, "-m", "controller.table.daemon", "--config", str(sim), *dirs],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while not (run / "control.sock").exists():
            assert daemon.poll() is None, (tmp_path / "croupierd.log").read_text()
            assert time.monotonic() < deadline, "croupierd did not start"
            time.sleep(0.1)
        key = state / "report-key.pem"
        assert key.stat().st_mode & 0o777 == 0o600
        public = load_public(public_key_path(key))
        capsys.readouterr()
        socket = ["--socket", str(run / "control.sock")]
        assert main(["report", "day", *socket, "--json"]) == 0
        signed = capsys.readouterr().out.encode()
        assert verify_document(signed, public).form == "json"
    finally:
        daemon.terminate()
        daemon.wait(30)
        log.close()


def test_a_real_table_never_makes_a_report_key(tmp_path):
    from dataclasses import replace

    from controller.table.daemon import make_simulated_report_key
    from controller.table.tableconfig import load_table_config

    sim = load_table_config(Path(__file__).resolve().parents[2] / "config" / "sim.toml")
    real = replace(sim, shuffler=replace(sim.shuffler, emulator=None))
    make_simulated_report_key(real, tmp_path)
    assert list(tmp_path.iterdir()) == []
    make_simulated_report_key(sim, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report-key.pem", "report-key.pub.pem"]
