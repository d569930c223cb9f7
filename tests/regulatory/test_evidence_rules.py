"""The standalone verifier checks the rules an evidence bundle says its round was played
under (docs/evidence.md, "What the verifier checks" 5): ``rules_sha256`` recomputed from the
bundle's rules record with the verifier's own copy of the ledger's definition (the two held
equal here on random records), and the same as the one the power-up before the round
journaled; a bundle of a round played before the table journaled its rules still verifies,
saying so."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from regulatory_fixtures import SetWall, new_ledger, seat, signed_bundle

from controller.books import evidence_verify
from controller.books.evidence import build_bundle
from controller.books.ledger.journal import canonical
from controller.books.ledger.rules import rules_digest
from controller.books.ledger.selfcheck import power_up
from controller.books.reports.signing import create_key, load_private, public_key_path, sign_json

RECORD = {
    "profile": {
        "name": "uth-gr",
        "version": 1,
        "game": "uth",
        "origin": "override",
        "file": "/etc/croupier/profiles/uth-gr.toml",
        "sha256": "e6" * 32,
    },
    "limits": {"ante": {"min": 500, "max": 50000}},
}


@pytest.fixture(scope="module")
def fixture_bundle(tmp_path_factory):
    """The fixture history's jackpot round, bundled and signed (its journal has no rules)."""
    root = tmp_path_factory.mktemp("evidence-rules")
    path, _ = signed_bundle(root)
    return root, json.loads(path.read_text())["report"]


def verified(root, bundle, tmp_path, capsys) -> tuple[int, str]:
    """The verifier's exit status and last line for ``bundle`` signed with the table's key."""
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(sign_json(bundle, load_private(root / "key.pem"))))
    status = evidence_verify.main(
        ["evidence_verify", str(path), str(public_key_path(root / "key.pem"))]
    )
    return status, capsys.readouterr().out.splitlines()[-1]


def with_rules(bundle, record, *, digest=None, named=None) -> dict:
    """``bundle`` carrying ``record`` as its rules (with ``digest``, by default the right
    one), the power-up before the round naming ``named`` (by default the same)."""
    digest = rules_digest(record) if digest is None else digest
    changed = json.loads(json.dumps(bundle))
    changed["rules"] = {"seq": 1, "wall": "2026-11-20T12:00:00.000+00:00", **record}
    changed["rules"]["rules_sha256"] = digest
    at_power_up = {"seq": 2, "wall": "w", "manifest_sha256": None}
    changed["software"]["at_power_up"] = {**at_power_up, "rules_sha256": named or digest}
    return changed


def test_a_bundle_from_a_ledger_that_journaled_its_rules_verifies_naming_them(tmp_path, capsys):
    wall = SetWall()
    with new_ledger(tmp_path / "ledger.sqlite3", wall) as ledger:
        assert power_up(ledger, 1.0, None, rules=RECORD).table_may_open
        ledger.open_round("r-1", {1: seat(500)}, 2.0)
        ledger.settle_round("r-1", 3.0, hits={"uth": {}}, payouts={1: {"ante": 0, "blind": 0}})
        bundle = build_bundle(ledger, None, "r-1", table_id="T-7", generated="now", manifest=None)
    create_key(tmp_path / "key.pem")
    status, line = verified(tmp_path, bundle, tmp_path, capsys)
    assert status == 0, line
    digest = rules_digest(RECORD)
    assert line.endswith(
        f"; rules {digest[:16]} recomputed, as the power-up before the round named them"
    )


def test_a_round_played_before_the_table_journaled_its_rules_verifies_saying_so(
    fixture_bundle, tmp_path, capsys
):
    root, bundle = fixture_bundle
    assert bundle["rules"] is None
    older = {k: v for k, v in bundle.items() if k != "rules"}  # a bundle from before the key
    for each in (bundle, older):
        status, line = verified(root, each, tmp_path, capsys)
        assert status == 0, line
        assert line.endswith(
            "; no rules journaled for the round (played before the table journaled them)"
        )


def test_rules_whose_digest_does_not_recompute_are_refused(fixture_bundle, tmp_path, capsys):
    root, bundle = fixture_bundle
    # the limits raised after the digest was taken, the bundle signed again
    raised = {**RECORD, "limits": {"ante": {"min": 500, "max": 90000}}}
    status, line = verified(
        root, with_rules(bundle, raised, digest=rules_digest(RECORD)), tmp_path, capsys
    )
    assert status == 1
    assert "NOT VALID: the rules record's rules_sha256 " in line
    assert f"is not the digest of its profile and limits ({rules_digest(raised)})" in line


def test_rules_other_than_the_power_ups_are_refused(fixture_bundle, tmp_path, capsys):
    root, bundle = fixture_bundle
    other = rules_digest({**RECORD, "limits": {}})
    status, line = verified(root, with_rules(bundle, RECORD, named=other), tmp_path, capsys)
    assert status == 1
    assert f"NOT VALID: the power-up before the round names rules {other}, " in line
    # and a power-up naming rules the bundle does not carry
    named = json.loads(json.dumps(bundle))
    named["software"]["at_power_up"] = {"seq": 2, "wall": "w", "rules_sha256": other}
    status, line = verified(root, named, tmp_path, capsys)
    assert status == 1
    assert "but the bundle carries no rules record" in line


def test_rules_a_power_up_did_not_name_are_still_recomputed(fixture_bundle, tmp_path, capsys):
    root, bundle = fixture_bundle
    unnamed = with_rules(bundle, RECORD)
    unnamed["software"]["at_power_up"]["rules_sha256"] = None
    status, line = verified(root, unnamed, tmp_path, capsys)
    assert status == 0, line
    assert line.endswith(
        f"rules {rules_digest(RECORD)[:16]} recomputed (the power-up before the round named none)"
    )


# JSON values as a rules record may hold them: text of any script (no NUL, which every reader
# of documents in Croupier refuses, and no lone surrogate, which is not UTF-8 and which
# neither side can encode), integers of the journal's range, finite floats, nulls, booleans,
# nested
TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"))
JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(profile=JSON, limits=JSON, extra=st.dictionaries(st.sampled_from(["seq", "wall"]), JSON))
def test_the_verifier_and_the_ledger_compute_the_same_digest(profile, limits, extra):
    """The verifier's copy of the canonical JSON and of rules_sha256 (it imports nothing of
    Croupier) agrees with the ledger's on any record; the bundle's other keys of the rules
    (``seq``, ``wall``, ``rules_sha256``) are not part of the digest."""
    record = {"profile": profile, "limits": limits}
    assert evidence_verify.canonical(record) == canonical(record).encode("utf-8")
    digest = rules_digest(record)
    assert evidence_verify.rules_digest({**record, **extra, "rules_sha256": "x"}) == digest
    # and through the bundle's JSON, read back by the verifier's own reader
    text = json.dumps({**record, "rules_sha256": digest}, ensure_ascii=False)
    assert evidence_verify.rules_digest(evidence_verify.load_json(text)) == digest
