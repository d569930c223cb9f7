"""The software a round ran on (issue 18 point 4): each power-up self-check journals the
software manifest's SHA-256, and a round's evidence bundle names the one before the round,
beside the manifest installed when the bundle is made (docs/evidence.md); and the rules it
was played under (profile and limits, journaled as rules.changed when they change)."""

from __future__ import annotations

from regulatory_fixtures import SetWall, new_ledger, seat

from controller.books.evidence import build_bundle
from controller.books.ledger.rules import rules_digest
from controller.books.ledger.selfcheck import make_manifest, manifest_digest, power_up


def play(ledger, round_id: str, now: float) -> None:
    ledger.open_round(round_id, {1: seat(500)}, now)
    ledger.settle_round(round_id, now + 1, hits={"uth": {}}, payouts={1: {"ante": 0, "blind": 0}})


def test_a_bundle_names_the_software_its_round_ran_on(tmp_path):
    manifest = tmp_path / "manifest.json"
    wall = SetWall()
    with new_ledger(tmp_path / "ledger.sqlite3", wall) as ledger:
        make_manifest(manifest, "first install")
        first = manifest_digest(manifest)
        assert power_up(ledger, 1.0, manifest).table_may_open
        play(ledger, "r-1", 2.0)
        make_manifest(manifest, "the upgrade")  # another manifest: another SHA-256
        second = manifest_digest(manifest)
        assert power_up(ledger, 5.0, manifest).table_may_open
        play(ledger, "r-2", 6.0)
        bundles = {
            r: build_bundle(ledger, None, r, table_id="T-7", generated="now", manifest=manifest)
            for r in ("r-1", "r-2")
        }
    assert first != second
    for round_id, ran_on in (("r-1", first), ("r-2", second)):
        software = bundles[round_id]["software"]
        assert software["manifest_sha256"] == second  # installed when the bundle was made
        assert software["at_power_up"]["manifest_sha256"] == ran_on
        assert software["at_power_up"]["seq"] < bundles[round_id]["journal"]["opened"]


def test_a_bundle_names_the_rules_its_round_was_played_under(tmp_path):
    wall = SetWall()
    before = {"profile": {"name": "uth-gr", "version": 1, "sha256": "a" * 64}, "limits": {}}
    after = {**before, "limits": {"ante": {"min": 500, "max": 9000}}}
    with new_ledger(tmp_path / "ledger.sqlite3", wall) as ledger:
        play(ledger, "r-0", 0.5)  # a round before the table journaled its rules
        assert power_up(ledger, 1.0, None, rules=before).table_may_open
        play(ledger, "r-1", 2.0)
        assert power_up(ledger, 5.0, None, rules=after).table_may_open
        play(ledger, "r-2", 6.0)
        bundles = {
            r: build_bundle(ledger, None, r, table_id="T-7", generated="now", manifest=None)
            for r in ("r-0", "r-1", "r-2")
        }
    assert bundles["r-0"]["rules"] is None
    for round_id, played in (("r-1", before), ("r-2", after)):
        bundle = bundles[round_id]
        digest = rules_digest(played)
        assert bundle["rules"]["rules_sha256"] == digest
        assert {k: bundle["rules"][k] for k in ("profile", "limits")} == played
        assert bundle["rules"]["seq"] < bundle["journal"]["opened"]
        # the start entry before the round names the same digest
        assert bundle["software"]["at_power_up"]["rules_sha256"] == digest
