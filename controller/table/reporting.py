"""What a table's configuration says about its regulatory documents (the report context:
table, profile, currency, gaming day, exact PAR figures), and the daemon's ``report.day``."""

from __future__ import annotations

import asyncio
import base64
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from controller.books.evidence import build_bundle, link_record, recorded_round, write_bundle
from controller.books.ledger.selfcheck import default_manifest_path
from controller.books.reports.day import ReportContext
from controller.books.reports.documents import FORMS, signed_day_report
from controller.books.reports.gaming_day import GamingDayError, GamingDayRule, parse_day
from controller.books.reports.signing import load_private, sign_json
from controller.books.reports.theoretical import ParFigure, par_figures
from controller.engine.profiles import Profile
from controller.errors import CroupierError
from controller.table.control.wire import ControlError
from controller.table.tableconfig import TableConfig

_PAR: dict[tuple[str, str], dict[str, ParFigure]] = {}


def _par(profile: Profile) -> dict[str, ParFigure]:
    """The profile's PAR figures, once per process (about a second for UTH)."""
    key = (profile.name, repr(profile))
    if key not in _PAR:
        _PAR[key] = par_figures(profile)
    return _PAR[key]


def report_context(config: TableConfig) -> ReportContext:
    return ReportContext(
        table_id=config.table_id,
        profile=config.profile.name,
        currency=config.profile.money.currency,
        rule=GamingDayRule.parse(config.report.gaming_day_start, config.report.timezone),
        par=_par(config.profile),
    )


async def day_report(runner: Any, args: dict[str, Any]) -> dict[str, Any]:
    """The ``report.day`` socket command: ``date`` (YYYY-MM-DD, default the last gaming day
    that ended) and ``form`` (json, csv, pdf); answers the signed file, base64."""
    form = args.get("form", "json")
    if form not in FORMS:
        raise ControlError(f"'form' must be one of {', '.join(FORMS)}", "bad-request")
    context = await asyncio.get_running_loop().run_in_executor(None, report_context, runner.config)
    now = datetime.fromtimestamp(runner.wall_clock(), UTC)
    text = args.get("date")
    if text is None:
        day = context.rule.last_complete(now)
    else:  # YYYY-MM-DD, from FIRST_DAY to the day in progress (not 9999-12-31, not 20261126)
        try:
            day = parse_day(text)
            context.rule.check_reportable(day, now)
        except GamingDayError as exc:
            raise ControlError(f"'date': {exc}", "bad-request") from None
    ledger = runner.ledger
    try:
        key = load_private(runner.config.resolve_report_key(runner.state_dir))
        data = await runner.in_ledger(
            lambda: signed_day_report(ledger, day, context, now=now, form=form, key=key)
        )
    except CroupierError as exc:  # no key, or the day does not reconcile
        raise ControlError(str(exc), "refused") from None
    return {"date": day.isoformat(), "form": form, "data": base64.b64encode(data).decode()}


async def make_evidence(runner: Any, round_id: str) -> Path:
    """Write the signed evidence bundle of a closed round under ``<state>/evidence/`` (at a
    jackpot acknowledgement, and on demand; the daemon's user's only): its path."""
    recorded, link = None, None
    if runner.surveillance is not None:  # on the store's thread, after the writes before
        recorded, link = await runner.in_surveillance(
            # link_record: SurveillanceError for a changed row
            lambda store: (recorded_round(store, round_id), link_record(store, round_id))
        )
    shuffler = runner.shuffler.identity_json() if runner.shuffler is not None else None
    key = load_private(runner.config.resolve_report_key(runner.state_dir))
    generated = datetime.fromtimestamp(runner.wall_clock(), UTC).isoformat(timespec="seconds")
    ledger = runner.ledger
    bundle = await runner.in_ledger(
        lambda: build_bundle(
            ledger,
            recorded,
            round_id,
            table_id=runner.config.table_id,
            generated=generated,
            manifest=default_manifest_path(),
            shuffler=shuffler,
            link=link,
        )
    )
    text = json.dumps(sign_json(bundle, key), indent=1, ensure_ascii=False) + "\n"
    # 0600, written durably off the event loop: it names the cards
    return await asyncio.to_thread(write_bundle, runner.state_dir, round_id, text)
