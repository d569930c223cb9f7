"""A gaming-day report as a signed file in one of its forms (JSON, CSV, PDF): the one entry
point the CLI and the daemon's ``report.day`` command share."""

from __future__ import annotations

import json
from datetime import date, datetime

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from controller.books.ledger.reader import LedgerView
from controller.books.reports.day import ReportContext, build_day_report
from controller.books.reports.signing import sign_bytes, sign_json

FORMS = ("json", "csv", "pdf")


def signed_day_report(
    view: LedgerView,
    day: date,
    context: ReportContext,
    *,
    now: datetime,
    form: str,
    key: Ed25519PrivateKey,
) -> bytes:
    """The signed report file; ReconciliationError when the day does not reconcile."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}")
    from controller.books.reports.render import to_csv, to_pdf  # fpdf: only when asked

    report = build_day_report(view, day, context, now=now)
    if form == "json":
        return (json.dumps(sign_json(report, key), indent=2, ensure_ascii=False) + "\n").encode()
    return sign_bytes(to_csv(report) if form == "csv" else to_pdf(report), key)
