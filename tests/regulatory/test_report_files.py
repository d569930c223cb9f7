"""The signed forms of the gaming-day report (JSON, CSV, PDF), ``croupier report verify``
on each, and the PDF's pages rendered by poppler with the ledger's figures on them."""

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st
from regulatory_fixtures import DAY, NOW, SetWall, context, new_ledger, play_history

from controller.books.ledger.reader import LedgerReader
from controller.books.reports.documents import signed_day_report
from controller.books.reports.render import money
from controller.books.reports.signing import (
    SignatureError,
    create_key,
    load_private,
    load_public,
    public_key_path,
    verify_document,
)
from controller.cli.main import main

SIM_CONFIG = Path(__file__).resolve().parents[2] / "config" / "sim.toml"
POPPLER = shutil.which("pdftoppm") and shutil.which("pdftotext")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """A ledger with the three days of history, the table's key and the three forms."""
    root = tmp_path_factory.mktemp("report")
    wall = SetWall()
    with new_ledger(root / "ledger.sqlite3", wall) as ledger:
        facts = play_history(ledger, wall)
    create_key(root / "report-key.pem")
    key = load_private(root / "report-key.pem")
    forms = {}
    with LedgerReader.open(root / "ledger.sqlite3") as reader:
        for form in ("json", "csv", "pdf"):
            forms[form] = signed_day_report(reader, DAY, context(), now=NOW, form=form, key=key)
    return root, facts, forms


@pytest.fixture(scope="module")
def public(table):
    return load_public(public_key_path(table[0] / "report-key.pem"))


@pytest.mark.parametrize("form", ["json", "csv", "pdf"])
def test_every_form_verifies(table, public, form):
    checked = verify_document(table[2][form], public)
    assert checked.form == ("json" if form == "json" else "bytes")


@pytest.mark.parametrize("form", ["json", "csv", "pdf"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_any_changed_byte_fails(table, public, form, data):
    original = table[2][form]
    at = data.draw(st.integers(0, len(original) - 1), label="byte")
    flip = data.draw(st.integers(1, 255), label="xor")
    changed = bytearray(original)
    changed[at] ^= flip
    changed = bytes(changed)
    if form == "json":  # JSON whitespace is not content; any other change must fail
        try:
            same = json.loads(changed) == json.loads(original)
        except ValueError:
            same = False
        if same:
            return
    with pytest.raises(SignatureError):
        verify_document(changed, public)


def test_another_tables_key_is_named(table, tmp_path):
    other = create_key(tmp_path / "other.pem")
    with pytest.raises(SignatureError, match="not with the table key given"):
        verify_document(table[2]["json"], other)


def test_a_document_without_signature_is_refused(public):
    with pytest.raises(SignatureError, match="no signature line"):
        verify_document(b"section,name,field,value\n", public)
    with pytest.raises(SignatureError, match="not a signed JSON"):
        verify_document(b'{"report": {}}', public)


def test_the_key_is_never_replaced(table):
    from controller.books.reports.signing import KeyFileError

    with pytest.raises(KeyFileError, match="already exists"):
        create_key(table[0] / "report-key.pem")
    assert (table[0] / "report-key.pem").stat().st_mode & 0o777 == 0o600


def test_csv_rows_carry_the_ledgers_figures(table):
    _, facts, forms = table
    rows = {
        tuple(line.split(",")[:3]): line.split(",")[3]
        for line in forms["csv"].decode().splitlines()[1:-1]
    }
    assert rows[("pool", "uth", "opening_displayed")] == str(facts.opening)
    assert rows[("pool", "uth", "closing_displayed")] == str(facts.closing)
    assert rows[("pool", "uth", "contributions")] == str(facts.contributions)
    assert rows[("wager", "ante", "handle")] == str(facts.handle["ante"])
    assert rows[("rounds", "MD-S1", "voided")] == "1"


@pytest.mark.skipif(not POPPLER, reason="poppler-utils (pdftoppm, pdftotext) is not installed")
def test_pdf_pages_render_and_show_the_ledgers_figures(table, tmp_path):
    _, facts, forms = table
    pdf = tmp_path / "day.pdf"
    pdf.write_bytes(forms["pdf"])
    subprocess.run(
        ["pdftoppm", "-r", "60", "-png", str(pdf), str(tmp_path / "page")],
        check=True,
        capture_output=True,
    )
    pages = sorted(tmp_path.glob("page*.png"))
    assert pages and all(p.stat().st_size > 5_000 for p in pages)
    from PIL import Image

    with Image.open(pages[0]) as image:
        assert image.convert("L").getextrema()[0] < 64  # something is drawn in black
    text = subprocess.run(
        ["pdftotext", "-layout", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    for figure in (facts.opening, facts.closing, facts.contributions, facts.awards_from_pool):
        assert money(figure, "EUR") in text
    assert money(facts.handle["ante"], "EUR") in text
    assert "table T-7" in text and "2026-11-23" in text and "MD-S1: 1" in text


def _config(root):
    """The simulated table's configuration, signing with the test's key."""
    data = tomllib.loads(SIM_CONFIG.read_text())
    data["report"] = {
        "gaming_day_start": "06:00",
        "timezone": "Europe/Athens",
        "key": str(root / "report-key.pem"),
    }
    path = root / "table.toml"
    path.write_text(tomli_w.dumps(data))
    return path


def test_cli_writes_and_verifies_every_form(table, tmp_path, capsys):
    root, facts, _ = table
    config = _config(root)
    pub = public_key_path(root / "report-key.pem")
    base = [
        "report",
        "day",
        "--config",
        str(config),
        "--db",
        str(root / "ledger.sqlite3"),
        "--date",
        DAY.isoformat(),
    ]
    for form in ("json", "csv", "pdf"):
        out = tmp_path / f"day.{form}"
        assert main([*base, "--format", form, "--output", str(out)]) == 0
        assert main(["report", "verify", str(out), "--public-key", str(pub)]) == 0
        assert "signature OK" in capsys.readouterr().out
        changed = bytearray(out.read_bytes())
        changed[len(changed) // 3] ^= 0x01
        out.write_bytes(bytes(changed))
        assert main(["report", "verify", str(out), "--public-key", str(pub)]) == 1
        assert "NOT VALID" in capsys.readouterr().out
    assert main([*base, "--json"]) == 0
    signed = json.loads(capsys.readouterr().out)
    assert signed["report"]["pools"][0]["closing"]["displayed"] == facts.closing
    assert signed["signature"]["algorithm"] == "ed25519"
    assert main(base) == 0
    assert "reconciled: yes" in capsys.readouterr().out


def test_cli_refuses_a_day_that_does_not_reconcile(table, tmp_path, capsys):
    root, _, _ = table
    copy = tmp_path / "ledger.sqlite3"
    shutil.copy(root / "ledger.sqlite3", copy)
    import sqlite3

    conn = sqlite3.connect(copy)
    conn.execute("UPDATE hits SET from_pool = 1 WHERE line = 'royal-flush'")
    conn.commit()
    conn.close()
    out = tmp_path / "day.pdf"
    code = main(
        [
            "report",
            "day",
            "--config",
            str(_config(root)),
            "--db",
            str(copy),
            "--date",
            DAY.isoformat(),
            "--format",
            "pdf",
            "--output",
            str(out),
        ]
    )
    assert code == 1 and not out.exists()  # a failure: the day does not reconcile
    err = capsys.readouterr().err
    assert "does not reconcile" in err and len(err.strip().splitlines()) == 1


def test_verify_says_which_table_and_day_a_document_is_about(table, tmp_path, capsys):
    """`report verify` said only "signature OK": yesterday's genuine report renamed as
    today's passed unseen. It now names the document, table, gaming day and when it was
    made (JSON and CSV; a PDF shows them on its pages)."""
    root, _, _ = table
    base = ["report", "day", "--config", str(_config(root)), "--db", str(root / "ledger.sqlite3")]
    pub = public_key_path(root / "report-key.pem")
    for form in ("json", "csv", "pdf"):
        out = tmp_path / f"today.{form}"
        assert main([*base, "--date", DAY.isoformat(), "--format", form, "--output", str(out)]) == 0
        capsys.readouterr()
        assert main(["report", "verify", str(out), "--public-key", str(pub)]) == 0
        said = capsys.readouterr().out
        if form == "pdf":
            assert "its pages name the table and the day" in said, said
            continue
        assert f"gaming day {DAY.isoformat()}" in said and "document gaming-day-report" in said
        assert "table SIM-1" in said and "generated" in said, said
    assert (
        main(["report", "verify", str(tmp_path / "today.json"), "--public-key", str(pub), "--json"])
        == 0
    )
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["gaming_day"] == DAY.isoformat() and verdict["table"] == "SIM-1"
    # --json gives the values as the document wrote them; the quotes and escapes of the
    # terminal line are not part of them (a timestamp came out as "'2026-...'")
    written = json.loads((tmp_path / "today.json").read_text())["report"]["generated"]
    assert verdict["generated"] == written, verdict
    csv_file = tmp_path / "today.csv"
    assert main(["report", "verify", str(csv_file), "--public-key", str(pub), "--json"]) == 0
    row = next(r for r in csv_file.read_text().splitlines() if r.startswith("report,,generated,"))
    assert json.loads(capsys.readouterr().out)["generated"] == row.split(",")[3]
