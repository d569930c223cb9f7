"""Software verification on demand (issue 18 point 3): the keyed digests are HMAC as RFC 2202
and RFC 4231 define it, equal to ``openssl dgst -hmac``'s, and each result is kept in the
ledger across a restart."""

import json
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.books.ledger.journal import verify_chain
from controller.books.ledger.reader import LedgerReader
from controller.books.ledger.store import Ledger
from controller.books.software_verification import (
    VerificationError,
    file_digest,
    listing,
    parse_seed,
    verify_software,
)
from controller.cli.main import main

# RFC 2202 section 3 (HMAC-SHA-1): key, data, digest
RFC2202 = [
    (b"\x0b" * 20, b"Hi There", "b617318655057264e28bc0b6fb378c8ef146be00"),
    (b"Jefe", b"what do ya want for nothing?", "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79"),
    (b"\xaa" * 20, b"\xdd" * 50, "125d7342b9ac11cd91a39af48aa17b4f63f175d3"),
    (bytes(range(1, 26)), b"\xcd" * 50, "4c9007f4026250c6bc8414f9bf50c86c2d7235da"),
    (b"\x0c" * 20, b"Test With Truncation", "4c1a03424b55e07fe7f27be1d58bb9324a9a5a04"),
    (b"\xaa" * 80, b"Test Using Larger Than Block-Size Key - Hash Key First",
     "aa4ae5e15272d00e95705637ce8a3b55ed402112"),
    (b"\xaa" * 80,
     b"Test Using Larger Than Block-Size Key and Larger Than One Block-Size Data",
     "e8e99d0f45237d786d6bbaa7965c7808bbff1a91"),
]  # fmt: skip
# RFC 4231 test case 1 and 2 (HMAC-SHA-256)
RFC4231 = [
    (b"\x0b" * 20, b"Hi There",
     "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
    (b"Jefe", b"what do ya want for nothing?",
     "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
]  # fmt: skip
OPENSSL = shutil.which("openssl")


@pytest.mark.parametrize("key, data, digest", RFC2202)
def test_rfc2202_vectors(tmp_path, key, data, digest):
    component = tmp_path / "component"
    component.write_bytes(data)
    assert file_digest(component, key, "hmac-sha1") == digest
    result = verify_software(key.hex(), "hmac-sha1", {"component": component})
    assert result.components[0].digest == digest


@pytest.mark.parametrize("key, data, digest", RFC4231)
def test_rfc4231_vectors(tmp_path, key, data, digest):
    component = tmp_path / "component"
    component.write_bytes(data)
    assert file_digest(component, key, "hmac-sha256") == digest


def _openssl(algorithm, seed, path):
    out = subprocess.run(
        [
            "openssl",
            "dgst",
            f"-{algorithm}",
            "-mac",
            "HMAC",
            "-macopt",
            f"hexkey:{seed}",
            str(path),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.strip().rsplit(" ", 1)[-1]


@pytest.mark.skipif(not OPENSSL, reason="openssl is not installed")
@pytest.mark.parametrize("algorithm", ["hmac-sha1", "hmac-sha256"])
def test_the_installed_software_matches_openssl(tmp_path, algorithm):
    seed = "00112233445566778899aabbccddeeff01234567"
    result = verify_software(seed, algorithm)
    assert len(result.components) > 100  # every module, profile and config of the manifest
    dgst = algorithm.removeprefix("hmac-")
    sample = result.components[:: max(1, len(result.components) // 12)]
    for component in sample:
        assert _openssl(dgst, seed, component.path) == component.digest, component.name
    listed = tmp_path / "listing"
    listed.write_bytes(listing(result.components))
    assert _openssl(dgst, seed, listed) == result.combined


def test_any_changed_component_changes_its_digest_and_the_combined_one(tmp_path):
    files = {}
    for n in range(3):
        files[f"pkg/m{n}.py"] = tmp_path / f"m{n}.py"
        files[f"pkg/m{n}.py"].write_text(f"VALUE = {n}\n")
    before = verify_software("0b" * 20, "hmac-sha1", files)
    files["pkg/m1.py"].write_text("VALUE = 11\n")
    after = verify_software("0b" * 20, "hmac-sha1", files)
    changed = [a.name for a, b in zip(after.components, before.components, strict=True) if a != b]
    assert changed == ["pkg/m1.py"] and after.combined != before.combined
    other_seed = verify_software("0c" * 20, "hmac-sha1", files)
    assert all(
        a.digest != b.digest for a, b in zip(after.components, other_seed.components, strict=True)
    )


@pytest.mark.parametrize(
    "seed, named",
    [
        ("", "hex digits"),
        ("0", "hex digits"),
        ("zz", "hex digits"),
        ("0b" * 129, "1 to 128"),
        (None, "hex digits"),
        (7, "hex digits"),
    ],
)
def test_bad_seeds_are_refused_with_the_field_named(seed, named):
    with pytest.raises(VerificationError, match=named):
        parse_seed(seed)


@settings(max_examples=50, deadline=None)
@given(st.text(max_size=300))
def test_any_seed_text_is_accepted_or_refused_cleanly(text):
    try:
        seed = parse_seed(text)
    except VerificationError:
        return
    assert 1 <= len(seed) <= 128


def test_results_are_kept_in_the_ledger_across_a_restart(tmp_path, capsys):
    db = tmp_path / "ledger.sqlite3"
    Ledger.open(db, now=0.0).close()
    seed = "0123456789abcdef" * 2
    assert main(["verify-software", "--seed", seed, "--db", str(db), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["journal_entry"] and all(c["path"].startswith("/") for c in first["components"])
    assert main(["verify-software", "--seed", seed, "--algorithm", "sha256", "--db", str(db)]) == 0
    assert "recorded in the ledger" in capsys.readouterr().out
    # power loss: nothing is held in memory; a fresh reader finds both results
    with LedgerReader.open(db) as reader:
        assert verify_chain(reader.journal).ok
    assert main(["verify-software", "--history", "--db", str(db), "--json"]) == 0
    kept = json.loads(capsys.readouterr().out)
    assert [k["algorithm"] for k in kept] == ["hmac-sha256", "hmac-sha1"]
    assert kept[1]["combined"] == first["combined"] and kept[1]["seed"] == seed
    assert main(["verify-software", "--seed", "xyz"]) == 1
    err = capsys.readouterr().err
    assert "seed must be" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("login", ["\x1b[31mX", "\udcff", "  "])
def test_the_user_journaled_is_a_text_a_terminal_shows_as_written(
    tmp_path, capsys, monkeypatch, login
):
    """$LOGNAME with an escape went to the journal and back to the terminal raw; one that
    is not UTF-8 failed the daemon's answer (UnicodeEncodeError)."""
    monkeypatch.setattr("getpass.getuser", lambda: login)
    db = tmp_path / "ledger.sqlite3"
    Ledger.open(db, now=0.0).close()
    assert main(["verify-software", "--seed", "0b" * 20, "--db", str(db), "--json"]) == 0
    capsys.readouterr()
    assert main(["verify-software", "--history", "--db", str(db)]) == 0
    line = capsys.readouterr().out.strip()
    assert line.isprintable() and "\x1b" not in line
    with LedgerReader.open(db) as reader:
        (kept,) = [e.data for e in reader.journal.entries() if "requested_by" in e.data]
    assert kept["requested_by"].isprintable() and kept["requested_by"].strip()
