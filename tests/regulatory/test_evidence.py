"""The jackpot evidence bundle (issue 18 point 4): signed, checked by a verifier that uses
the standard library only (its Ed25519 against the cryptography package's), any changed byte
refused, the journal chain recomputed, and the round settled again from the bundle."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st
from regulatory_fixtures import signed_bundle

from controller.books import evidence_verify
from controller.books.ledger.rules import rules_digest
from controller.books.reports.signing import (
    create_key,
    load_private,
    public_key_path,
    sign_json,
)
from controller.cli.main import main
from controller.engine.profiles import load_profile

REPO = Path(__file__).resolve().parents[2]
VERIFIER = REPO / "controller" / "books" / "evidence_verify.py"


@pytest.fixture(scope="module")
def bundle_files(tmp_path_factory):
    """The jackpot round of the fixture history, recorded as the royal example, bundled."""
    root = tmp_path_factory.mktemp("evidence")
    path, result = signed_bundle(root)
    return root, path, result


def run_verifier(path, public):
    return evidence_verify.main(["evidence_verify", str(path), str(public)])


def test_the_standalone_verifier_runs_alone(bundle_files, tmp_path):
    root, path, _ = bundle_files
    alone = tmp_path / "elsewhere"
    alone.mkdir()
    shutil.copy(VERIFIER, alone / "evidence_verify.py")  # one file, away from the project
    done = subprocess.run(
        [
            sys.executable,
            "-I",
            "-S",
            str(alone / "evidence_verify.py"),
            str(path),
            str(public_key_path(root / "key.pem")),
        ],
        capture_output=True,
        text=True,
        cwd=alone,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "OK: round day-3 of table T-7" in done.stdout
    imports = [line for line in VERIFIER.read_text().splitlines() if line.startswith("import")]
    assert imports == ["import base64", "import hashlib", "import json", "import sys"]


def test_the_bundle_holds_the_round(bundle_files):
    _, path, result = bundle_files
    bundle = json.loads(path.read_text())["report"]
    assert bundle["ledger_round"]["state"] == "settled"
    kinds = [e["kind"] for e in bundle["journal"]["entries"]]
    assert kinds[0] == "round.voided" and kinds[-1] == "round.settled"  # from the last round
    assert bundle["meters"]["uth"]["jackpot_paid"] == 500_105
    assert bundle["meters"]["uth"]["before"] == 500_060  # day-2's contribution was reversed
    assert bundle["table_settlement"] == result and bundle["not_recorded"]


def test_croupier_settle_settles_the_bundles_round_again(bundle_files, capsys):
    _, path, result = bundle_files
    assert main(["settle", str(path), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again.pop("currency") == "EUR" and again.pop("minor_units") == 2
    rules = again.pop("rules")  # the fixture's history journaled no rules
    assert rules["played"] is None and rules["same_profile"] is None
    assert again == result


def test_croupier_settle_says_whether_it_settles_with_the_profile_the_table_played(
    bundle_files, tmp_path, capsys
):
    root, path, _ = bundle_files
    here = load_profile("uth-gr")
    bundle = json.loads(path.read_text())["report"]
    played = {"name": "uth-gr", "version": 1, "origin": "shipped", "file": "profiles/uth-gr.toml"}
    for sha256, said in ((here.sha256, ": the same file"), ("ab" * 32, ": ANOTHER FILE")):
        record = {"profile": {**played, "sha256": sha256}, "limits": {}}
        bundle["rules"] = {"seq": 1, "wall": "w", **record, "rules_sha256": rules_digest(record)}
        signed = tmp_path / "bundle.json"
        signed.write_text(json.dumps(sign_json(bundle, load_private(root / "key.pem"))))
        public = ["--public-key", str(public_key_path(root / "key.pem"))]
        assert main(["settle", str(signed), *public]) == 0
        last = capsys.readouterr().out.splitlines()[-1]
        assert last.startswith(f"rules {rules_digest(record)[:16]}: the table played uth-gr")
        assert said in last
        assert main(["settle", str(signed), "--json", *public]) == 0
        rules = json.loads(capsys.readouterr().out)["rules"]
        assert rules["same_profile"] is (sha256 == here.sha256)
        assert rules["settled_with"]["sha256"] == here.sha256


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_any_changed_byte_is_refused(bundle_files, tmp_path_factory, data):
    root, path, _ = bundle_files
    original = path.read_bytes()
    at = data.draw(st.integers(0, len(original) - 1))
    changed = bytearray(original)
    changed[at] ^= data.draw(st.integers(1, 255))
    try:
        if json.loads(changed) == json.loads(original):
            return  # whitespace only: the same document
    except ValueError:
        pass
    target = tmp_path_factory.mktemp("changed") / "bundle.json"
    target.write_bytes(bytes(changed))
    assert run_verifier(target, public_key_path(root / "key.pem")) == 1


def test_a_rewritten_journal_entry_fails_even_when_signed_again(bundle_files, tmp_path):
    root, path, _ = bundle_files
    bundle = json.loads(path.read_text())["report"]
    entry = bundle["journal"]["entries"][2]
    entry["data"] = entry["data"].replace("500", "900", 1)  # e.g. a stake made larger
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(sign_json(bundle, load_private(root / "key.pem"))))
    assert run_verifier(forged, public_key_path(root / "key.pem")) == 1
    with pytest.raises(evidence_verify.Invalid, match="does not match its hash"):
        evidence_verify.check_chain(bundle)


def test_another_key_is_refused(bundle_files, tmp_path):
    _, path, _ = bundle_files
    create_key(tmp_path / "other.pem")
    assert run_verifier(path, public_key_path(tmp_path / "other.pem")) == 1


def test_a_key_that_cannot_be_used_is_not_blamed_on_the_bundle(bundle_files, tmp_path, capsys):
    """No public key at the path, or a file that is not one: the key is named, on stderr,
    and the bundle is not called NOT VALID (it was never checked)."""
    _, path, _ = bundle_files
    junk = tmp_path / "junk.pem"
    junk.write_text("not a key\n")
    for public, says in ((tmp_path / "none.pem", "No such file"), (junk, "")):
        assert run_verifier(path, public) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.startswith(f"{public}: cannot use this public key: "), err
        assert says in err and "NOT VALID" not in err
    assert run_verifier(tmp_path / "none.json", public_key_path(bundle_files[0] / "key.pem")) == 1
    assert "none.json: cannot read the bundle: No such file" in capsys.readouterr().err


def test_the_cli_names_itself_for_a_key_it_cannot_use(bundle_files, tmp_path, capsys):
    """`croupier evidence verify` printed the standalone verifier's line without its own
    name, unlike every other command and `report verify`."""
    from controller.cli.main import main

    _, path, _ = bundle_files
    assert main(["evidence", "verify", str(path), "--public-key", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"croupier evidence: no public key at {tmp_path / 'none'}"), err


def test_croupier_evidence_verify_json_is_the_verdict_as_json(bundle_files, tmp_path, capsys):
    """`evidence verify --json` offered --json and printed its text line (issue 17)."""
    root, path, _ = bundle_files
    public = str(public_key_path(root / "key.pem"))
    assert main(["evidence", "verify", str(path), "--public-key", public, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["valid"] is True and found["round"] == "day-3" and found["table"] == "T-7"
    assert found["journal_entries"] > 0
    create_key(tmp_path / "other.pem")
    other = str(public_key_path(tmp_path / "other.pem"))
    assert main(["--json", "evidence", "verify", str(path), "--public-key", other]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["valid"] is False and "signed with key" in found["reason"]


@settings(max_examples=25, deadline=None)
@given(message=st.binary(max_size=300), flip=st.integers(0, 63))
def test_the_standard_library_ed25519_agrees_with_cryptography(message, flip):
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw()
    signature = key.sign(message)
    assert evidence_verify.ed25519_verify(public, message, signature)
    bad = bytearray(signature)
    bad[flip] ^= 1
    assert not evidence_verify.ed25519_verify(public, message, bytes(bad))
    assert not evidence_verify.ed25519_verify(public, message + b"x", signature)


def test_only_a_bundle_the_table_signed_is_settled_as_its_own_record(tmp_path, capsys):
    """A bundle's record settles as the table's own (its live pool as it stood, even below
    the seed after a correction, PRG-5) only when the table's key verifies it: the same
    round wrapped in an unsigned "bundle" was settled past the round-file checks."""
    from controller.books.reports.signing import create_key, load_private, sign_json

    record = {
        "profile": "uth-gr",
        "dealer": ["2d", "3d"],
        "community": ["As", "Ks", "Qs", "Js", "4c"],
        "seats": [{"seat": 1, "cards": ["Ts", "5h"], "stakes": {"progressive": 100}}],
        "pools": {"progressive": {"amount": 1000, "seed": 500000}},  # below its seed
    }
    document = {"document": "jackpot-evidence", "profile": "uth-gr", "round_record": record}
    key = tmp_path / "report-key.pem"
    create_key(key)
    signed = tmp_path / "signed.json"
    signed.write_text(json.dumps(sign_json(document, load_private(key))))
    public = ["--public-key", str(public_key_path(key))]
    assert main(["settle", str(signed), *public, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["pools"]["progressive"]["after"] == 500000
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps({"report": document}))
    assert main(["settle", str(forged), *public]) == 1
    err = capsys.readouterr().err
    assert "settled as a round file" in err and "pools.progressive.amount" in err
    assert err.count("\n") == 1 and err.rstrip().endswith("(PRG-5)")
