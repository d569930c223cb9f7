"""Signed documents from outside (``report verify``, ``evidence verify``): read within the
limits of every document from outside (controller.validation.DOCUMENT_LIMITS: size, depth,
number length), each problem one line naming what is wrong, values from the file escaped; a
document with a key written twice, or with content beside what is signed, is not valid."""

from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from regulatory_fixtures import signed_bundle, signed_day_json

from controller.books import evidence_verify
from controller.books.reports.signing import (
    SignatureError,
    create_key,
    load_private,
    load_public,
    public_key_path,
    sign_bytes,
    sign_json,
    verify_document,
)
from controller.cli.main import main
from controller.validation import DOCUMENT_LIMITS

DEEP = b"[" * 50_000 + b"]" * 50_000
LONG_NUMBER = b'{"report": {"a": 1' + b"0" * 100_000 + b'}, "signature": {}}'
HOSTILE_ID = "\x1b[31mdead\nbeef"


@pytest.fixture
def key(tmp_path: Path) -> tuple[Path, Path]:
    create_key(tmp_path / "k.pem")
    return tmp_path / "k.pem", public_key_path(tmp_path / "k.pem")


def _run(capsys, command: list[str], path: str, public: Path) -> tuple[int, str]:
    code = main([*command, path, "--public-key", str(public)])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("command", [["report", "verify"], ["evidence", "verify"]])
@pytest.mark.parametrize(
    ("content", "named"),
    [
        (DEEP, "nested deeper than 32 levels"),
        (LONG_NUMBER, "is not allowed (too long, or not finite)"),
        (b'{"report": {"a": 1e999}, "signature": {}}', "finite"),
        (b'{"report": {"a": NaN}, "signature": {}}', "NaN"),
        (b'{"report": {"a": ' + b" " * (2 * 1024 * 1024) + b"1}}", "larger than 1048576 bytes"),
    ],
)
def test_documents_outside_the_limits_are_one_line_not_valid(
    capsys, tmp_path, key, command, content, named
) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(content)
    code, said = _run(capsys, command, str(path), key[1])
    assert code == 1
    assert said.count("\n") == 1 and "NOT VALID" in said and named in said, said
    assert "internal error" not in said and "set_int_max_str_digits" not in said


def test_the_evidence_verifier_holds_the_documents_limits() -> None:
    assert DOCUMENT_LIMITS.max_bytes == evidence_verify.MAX_BYTES
    assert DOCUMENT_LIMITS.max_depth == evidence_verify.MAX_DEPTH
    assert DOCUMENT_LIMITS.max_number_chars == evidence_verify.MAX_NUMBER_CHARS
    assert DOCUMENT_LIMITS.int_range == evidence_verify.INT_RANGE
    nested = json.dumps({"data": "[" * 40 + "]" * 40})  # the JSON inside a journal entry too
    with pytest.raises(evidence_verify.Invalid, match="nested deeper"):
        evidence_verify.load_json(json.loads(nested)["data"])
    with pytest.raises(evidence_verify.Invalid, match="outside"):
        evidence_verify.load_json("[9223372036854775808]")
    # a NUL, which every document the CLI reads refuses (controller.validation)
    for text in ('{"x": "a\\u0000b"}', '{"a\\u0000": 1}'):
        with pytest.raises(evidence_verify.Invalid, match="NUL"):
            evidence_verify.load_json(text)


def _signed_json(key: Path, **signature: object) -> bytes:
    signed = sign_json({"table": "T-1"}, load_private(key))
    signed["signature"].update(signature)
    return json.dumps(signed).encode()


def test_report_verify_reads_json_with_a_byte_order_mark(capsys, tmp_path, key) -> None:
    path = tmp_path / "day.json"
    path.write_bytes(b"\xef\xbb\xbf" + _signed_json(key[0]))
    code, said = _run(capsys, ["report", "verify"], str(path), key[1])
    assert code == 0 and "signature OK" in said and "json form" in said, said


@pytest.mark.parametrize(
    ("content", "named"),
    [
        (b"[]", 'expected {"report"'),
        (b"  [1, 2]\n", 'expected {"report"'),
        (DEEP, "nested deeper than 32 levels"),
        (b'{"report": [], "signature": {}}', 'expected {"report"'),
        (b'{"report": {}, "signature": "x"}', 'expected {"report"'),
    ],
)
def test_report_verify_names_what_is_wrong_with_a_json_document(
    tmp_path, key, content, named
) -> None:
    with pytest.raises(SignatureError, match="not a signed JSON document") as caught:
        verify_document(content, load_public(key[1]))
    assert named in str(caught.value) and "signature line" not in str(caught.value)


def test_a_signature_value_of_another_type_is_named(key) -> None:
    public = load_public(key[1])
    with pytest.raises(SignatureError, match="value is not base64 text: 5") as caught:
        verify_document(_signed_json(key[0], value=5), public)
    assert "algorithm" not in str(caught.value)
    with pytest.raises(SignatureError, match="key_id is not text: 7"):
        verify_document(_signed_json(key[0], key_id=7), public)
    with pytest.raises(SignatureError, match=r"unsupported signature algorithm \['x'\]"):
        verify_document(_signed_json(key[0], algorithm=["x"]), public)


@pytest.mark.parametrize("command", [["report", "verify"], ["evidence", "verify"]])
def test_a_hostile_key_id_is_shown_escaped_on_one_line(capsys, tmp_path, key, command) -> None:
    path = tmp_path / "d.json"
    path.write_bytes(_signed_json(key[0], key_id=HOSTILE_ID))
    code, said = _run(capsys, command, str(path), key[1])
    assert code == 1 and said.count("\n") == 1, said
    assert "\x1b" not in said and r"'\x1b[31mdead\nbeef'" in said


def test_a_hostile_key_id_of_a_signature_line_is_shown_escaped(key) -> None:
    signed = sign_bytes(b"a,b\n", load_private(key[0]))
    body, line = signed.rsplit(b"%croupier-signature ", 1)
    algorithm, _, value = line.split(b" ")
    forged = body + b"%croupier-signature " + b" ".join([algorithm, b"\x1b[31mdead", value])
    with pytest.raises(SignatureError) as caught:
        verify_document(forged, load_public(key[1]))
    assert "\x1b" not in str(caught.value) and r"'\x1b[31mdead'" in str(caught.value)


@pytest.mark.parametrize("command", [["report", "verify"], ["evidence", "verify"]])
def test_dash_is_standard_input(monkeypatch, capsys, key, command) -> None:
    data = _signed_json(key[0], key_id=HOSTILE_ID)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, said = _run(capsys, command, "-", key[1])
    assert code == 1 and said.startswith("(stdin): NOT VALID: signed with key"), said


def test_report_verify_of_standard_input_accepts_a_good_report(monkeypatch, capsys, key) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(_signed_json(key[0]))))
    code, said = _run(capsys, ["report", "verify"], "-", key[1])
    assert code == 0 and said.startswith("(stdin): signature OK"), said


def test_a_base64_value_is_still_checked(key) -> None:
    value = base64.b64encode(b"\0" * 64).decode()
    with pytest.raises(SignatureError, match="does not match"):
        verify_document(_signed_json(key[0], value=value), load_public(key[1]))


# --- ambiguous documents, unsigned content ----------------------------------------------------
# json keeps the last of a key written twice, so a forged "report" written before the signed one
# left the signature checking the real report while any reader keeping the first (or a person)
# saw the forgery; a key beside "report" and "signature" was read by someone and signed by none.

VERIFIER = Path(evidence_verify.__file__)


@pytest.fixture(scope="module")
def real_documents(tmp_path_factory) -> dict[str, tuple[dict, Path]]:
    """A real signed day report and a real evidence bundle, each with its public key."""
    report_root = tmp_path_factory.mktemp("day")
    report = json.loads(signed_day_json(report_root))
    bundle_root = tmp_path_factory.mktemp("bundle")
    path, _ = signed_bundle(bundle_root)
    return {
        "report": (report, public_key_path(report_root / "report-key.pem")),
        "bundle": (json.loads(path.read_text()), public_key_path(bundle_root / "key.pem")),
    }


def _verify(how: str, path: Path, public: Path, capsys) -> tuple[int, str]:
    """``croupier report verify``, ``croupier evidence verify`` (in process) or the standalone
    verifier copied alone and run by python -I -S, as a regulator runs it."""
    if how == "standalone":
        alone = path.parent / "alone"
        alone.mkdir(exist_ok=True)
        shutil.copy(VERIFIER, alone / "evidence_verify.py")
        done = subprocess.run(
            [sys.executable, "-I", "-S", "evidence_verify.py", str(path), str(public)],
            capture_output=True,
            text=True,
            cwd=alone,
            check=False,
        )
        return done.returncode, done.stdout + done.stderr
    return _run(capsys, [how, "verify"], str(path), public)


def _first_report(kind: str) -> str:
    """A forged signed content, written before the real one."""
    if kind == "report":
        return '{"table": "SIM-1", "note": "FAKE TOTALS"}'
    return '{"document": "jackpot-evidence", "round": "day-3", "table": "T-7", "note": "FAKE"}'


def _forged(kind: str, how: str, signed: dict) -> str:
    text = json.dumps(signed)
    if how == "duplicate-top":
        return '{"report": ' + _first_report(kind) + ", " + text[1:]
    if how == "duplicate-nested":  # a figure written twice, deep in the signed content
        key = '"closing": {"displayed": ' if kind == "report" else '"jackpot_paid": '
        assert key in text
        return text.replace(key, key + "1, " + key.rsplit("{", 1)[-1], 1)
    if how == "duplicate-signature":
        return text.replace('"algorithm": ', '"algorithm": "none", "algorithm": ', 1)
    if how == "extra-top":
        return json.dumps({**signed, "totals_override": {"handle": 1, "paid": 999999}})
    assert how == "extra-signature"
    return json.dumps({**signed, "signature": {**signed["signature"], "note": "FAKE"}})


FORGERIES = [
    ("duplicate-top", "duplicate key 'report' in the document: ambiguous"),
    ("duplicate-nested", "duplicate key '"),
    ("duplicate-signature", "duplicate key 'algorithm' in the document: ambiguous"),
    ("extra-top", "unsigned key 'totals_override' at the top of the document"),
    ("extra-signature", "unsigned key 'note' in the signature"),
]
VERIFIERS = [
    ("report", "report"),
    ("bundle", "report"),
    ("bundle", "evidence"),
    ("bundle", "standalone"),
]


@pytest.mark.parametrize(("kind", "how"), VERIFIERS)
def test_the_documents_the_table_writes_verify(capsys, tmp_path, real_documents, kind, how):
    signed, public = real_documents[kind]
    path = tmp_path / "d.json"
    path.write_text(json.dumps(signed, indent=1))
    code, said = _verify(how, path, public, capsys)
    assert code == 0 and "NOT VALID" not in said, said


@pytest.mark.parametrize(("kind", "how"), VERIFIERS)
@pytest.mark.parametrize(("forgery", "named"), FORGERIES)
def test_an_ambiguous_or_partly_unsigned_document_is_not_valid(
    capsys, tmp_path, real_documents, kind, how, forgery, named
) -> None:
    signed, public = real_documents[kind]
    text = _forged(kind, forgery, signed)
    if forgery.startswith("duplicate"):  # json alone reads the signed document, unchanged
        assert json.loads(text) == signed
    path = tmp_path / "d.json"
    path.write_text(text)
    code, said = _verify(how, path, public, capsys)
    assert code == 1, said
    assert said.count("\n") == 1 and "NOT VALID" in said and named in said, said
    if forgery == "duplicate-nested":
        assert ("'displayed'" if kind == "report" else "'jackpot_paid'") in said, said


@pytest.mark.parametrize("command", [["report", "verify"], ["evidence", "verify"]])
def test_a_hostile_duplicate_key_is_shown_escaped_on_one_line(
    capsys, tmp_path, key, command
) -> None:
    signed = sign_json({"table": "T-1", HOSTILE_ID: 2}, load_private(key[0]))
    name = json.dumps(HOSTILE_ID)
    text = json.dumps(signed).replace(f"{name}: 2", f"{name}: 1, {name}: 2")
    path = tmp_path / "d.json"
    path.write_text(text)
    code, said = _run(capsys, command, str(path), key[1])
    assert code == 1 and said.count("\n") == 1 and "duplicate key" in said, said
    assert "\x1b" not in said and r"\x1b[31mdead" in said


def test_a_signature_missing_a_field_names_it(key) -> None:
    signed = json.loads(_signed_json(key[0]))
    del signed["signature"]["algorithm"]
    with pytest.raises(SignatureError, match='no "algorithm" in the signature'):
        verify_document(json.dumps(signed).encode(), load_public(key[1]))
    with pytest.raises(evidence_verify.Invalid, match='no "algorithm" in the signature'):
        evidence_verify.check_signature(signed, b"\0" * 32)
