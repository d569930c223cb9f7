"""The jackpot evidence bundle: one signed file that shows what happened in a round, for a
manager or regulator to check away from the table (docs/evidence.md).

:func:`build_bundle` gathers, for one round: the ledger's record of it (stakes, payouts,
rule of a void), the round as the surveillance store recorded it with its cards and the
table's settlement (so ``croupier settle BUNDLE`` settles it again), the journal entries
from the end of the previous round to the end of this one exactly as stored (so their hash
chain can be recomputed) with the journal head when the bundle was made, the seat-sensor
timeline and the shuffler's reports drawn from those entries, the meters before and after
from the money entries, the round's DEAL exchanges with the shuffler (every frame exactly
as it crossed the wire) with the shuffler's identity then and the deck checks before and
after, all from the surveillance store (:func:`link_record`), the exposed cards replaced in
the round (MD-X1, MD-X2, MD-X3: :func:`replacements`), the SHA-256 of the
software manifest, and the rules the round was played under (profile, its file's digest and
origin, the table limits: ``controller.books.ledger.rules``). The bundle is signed like every
regulatory document (``controller.books.reports.signing``).
``controller/books/evidence_verify.py`` checks one with the standard library only.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from controller.books.ledger.db import key_history
from controller.books.ledger.errors import LedgerError
from controller.books.ledger.reader import LedgerView
from controller.books.ledger.rules import RECORD_KEYS, rules_before
from controller.books.ledger.selfcheck import manifest_digest
from controller.books.surveillance import PRIVATE, SurveillanceError, SurveillanceStore
from controller.files import write_atomic

FORMAT = "jackpot-evidence"
VERSION = 3  # 2: raw frames in deal_packets, from the surveillance store; 3: replacements
MAX_ENTRIES = 5000  # journal entries in one bundle (a round has tens)
TIMELINE_KINDS = ("stake", "seats-declared", "sensor-ignored", "seats-cleared", "seat-cleared")
SHUFFLER_KINDS = ("shuffler-fault", "shuffler-reset", "deck-replaced", "exposure", "condition")
NO_FRAMES = (
    "the deal packets and deck checks as received: the surveillance store has no frames of "
    "this round (closed before this version kept them, or by a table without a shuffler)"
)
SHOE_FRAMES = "a shoe's CARD event frames (blackjack): only DEAL exchanges are kept"
FOLDER = "evidence"  # under the state directory
PRIVATE_FOLDER = 0o700


def narrow_evidence(state_dir: Path) -> None:
    """``<state>/evidence`` and its bundles the daemon's user's only, like the surveillance
    store (docs/security.md, B15): a bundle names the cards of its round, and the state
    directory is the control socket's group's to read (the unit's UMask=0027 made them
    0640). The group gets a bundle through the credentialed ``evidence.make``, which the
    daemon answers with its content. Bundles from before are narrowed (at start and at each
    bundle). OSError for a folder this user does not own."""
    folder = state_dir / FOLDER
    if not folder.is_dir():
        return
    if stat.S_IMODE(folder.stat().st_mode) != PRIVATE_FOLDER:
        os.chmod(folder, PRIVATE_FOLDER)
    for path in folder.glob("*.json"):
        if path.is_file() and stat.S_IMODE(path.stat().st_mode) != PRIVATE:
            os.chmod(path, PRIVATE)


def write_bundle(state_dir: Path, round_id: str, text: str) -> Path:
    """Write a signed bundle as ``<state>/evidence/ROUND.json``, 0600 in a 0700 folder
    (:func:`narrow_evidence`); its path."""
    folder = state_dir / FOLDER
    folder.mkdir(mode=PRIVATE_FOLDER, parents=True, exist_ok=True)
    narrow_evidence(state_dir)
    path = folder / f"{round_id}.json"
    write_atomic(path, text.encode("utf-8"), mode=PRIVATE)
    return path


def _entries(view: LedgerView, round_id: str) -> tuple[list[dict[str, Any]], int, int]:
    row = view.db.execute(
        "SELECT open_seq, close_seq FROM rounds WHERE round_id = ?", (round_id,)
    ).fetchone()
    if row is None:
        raise LedgerError(f"no round {round_id!r} in the ledger")
    open_seq, close_seq = row
    if close_seq is None:
        raise LedgerError(f"round {round_id} is still open: its evidence is made once it closes")
    previous = view.db.execute(
        "SELECT max(seq) FROM journal WHERE seq < ? AND kind IN ('round.settled', "
        "'round.voided', 'ledger.created')",
        (open_seq,),
    ).fetchone()[0]
    first = max(1, previous or 1, close_seq - MAX_ENTRIES)
    rows = view.db.execute(
        "SELECT seq, kind, mono, wall, data, prev_hash, hash FROM journal "
        "WHERE seq >= ? AND seq <= ? ORDER BY seq",
        (first, close_seq),
    ).fetchall()
    entries = [
        {"seq": s, "kind": k, "mono": repr(m), "wall": w, "data": d, "prev_hash": p, "hash": h}
        for s, k, m, w, d, p, h in rows
    ]
    return entries, open_seq, close_seq


def _power_up(view: LedgerView, open_seq: int) -> dict[str, Any] | None:
    """The software and rules the round ran on: the last power-up self-check before it (its
    journal entry's seq and wall time, the manifest's SHA-256 and the rules' digest it
    journaled, None in a journal from before it named them), None if none."""
    row = view.db.execute(
        "SELECT seq, wall, data FROM journal WHERE kind = 'selfcheck.passed' AND seq < ? "
        "ORDER BY seq DESC LIMIT 1",
        (open_seq,),
    ).fetchone()
    if row is None:
        return None
    return {
        "seq": row[0],
        "wall": row[1],
        **{key: json.loads(row[2]).get(key) for key in ("manifest_sha256", "rules_sha256")},
    }


def _rules(view: LedgerView, open_seq: int) -> dict[str, Any] | None:
    """The rules the round was played under: the ``rules.changed`` entry in force at its
    opening (seq, wall, profile, limits, rules_sha256), None before the table journaled
    them."""
    entry = rules_before(view.db, open_seq)
    if entry is None:
        return None
    return {k: entry[k] for k in ("seq", "wall", *RECORD_KEYS, "rules_sha256")}


def _meters(entries: list[dict[str, Any]], open_seq: int, close_seq: int) -> dict[str, Any]:
    by_seq = {e["seq"]: json.loads(e["data"]) for e in entries if e["seq"] in (open_seq, close_seq)}
    opened, closed = by_seq[open_seq], by_seq[close_seq]
    meters = {}
    for pool, move in opened.get("pools", {}).items():
        after_close = closed.get("pools", {}).get(pool, {})
        meters[pool] = {
            "before": move["current"] - move["to_current"],
            "after_contribution": move["current"],
            "after": after_close.get("current"),
            "jackpot_paid": after_close.get("jackpot_paid"),
        }
    return meters


def replacements(entries: list[dict[str, Any]], round_id: str) -> list[dict[str, Any]]:
    """The round's exposed cards replaced (MD-X1, MD-X2, MD-X3), in journal order: each
    ``transition`` of the round back to DEALING for a replacement packet (the machine's
    ``_on_cards_exposed``: the only move to DEALING that names positions), as ``seq``,
    ``wall``, ``rule``, ``destination`` and ``positions`` (1-based). The k-th packet after
    the deal's plan is the k-th replacement's, its cards in those positions, in that order
    (:meth:`controller.table.deals.HandFormingDeal._cards`); the verifier replays them so.
    A replacement dealt by hand journals ``cards-exposed`` instead (no packet): not here."""
    found = []
    for e in entries:
        if e["kind"] != "transition":
            continue
        data = json.loads(e["data"])
        if data.get("to") == "dealing" and data.get("round") == round_id and "positions" in data:
            found.append(
                {
                    "seq": e["seq"],
                    "wall": e["wall"],
                    "rule": data.get("rule"),
                    "destination": data.get("destination"),
                    "positions": data["positions"],
                }
            )
    return found


def recorded_round(surveillance: SurveillanceStore | None, round_id: str) -> dict | None:
    """The round as the surveillance store keeps it (None: not recorded, e.g. voided)."""
    try:
        return surveillance.round(round_id) if surveillance is not None else None
    except SurveillanceError:
        return None


def link_record(surveillance: SurveillanceStore | None, round_id: str) -> dict[str, Any] | None:
    """The round's shuffler exchanges as the surveillance store keeps them: ``deal_packets``
    (its DEAL exchanges, raw frames and all), ``deck_checks`` (``before``: the last deck
    check before its first packet, ``after``: the first one after its last; around the
    round's close when it had no packet), ``shuffler`` (the identity then) and
    ``frames_dropped`` (over the per-round cap). None when the store has none.
    SurveillanceError for rows that do not match their seal."""
    kept = surveillance.deal_frames(round_id) if surveillance is not None else None
    if surveillance is None or kept is None:
        return None
    deals = kept["exchanges"]
    walls = [e["wall"] for e in deals if e["wall"] is not None] or [kept["wall"]]
    before, after = surveillance.deck_checks_around(min(walls), max(walls))
    return {
        "deal_packets": deals,
        "deck_checks": {"before": before, "after": after},
        "shuffler": kept["shuffler"],
        "frames_dropped": kept["dropped"],
    }


def build_bundle(
    view: LedgerView,
    recorded: dict[str, Any] | None,
    round_id: str,
    *,
    table_id: str,
    generated: str,
    manifest: Path | None,
    shuffler: dict[str, Any] | None = None,
    link: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The evidence of one closed round (see the module docstring), ``recorded`` being the
    surveillance store's record of it (:func:`recorded_round`) and ``link`` its shuffler
    exchanges (:func:`link_record`); LedgerError for a round the ledger does not have or
    that is still open. ``shuffler``: the identity the daemon knows now, for a round whose
    exchanges were not kept."""

    record = view.round(round_id)
    if record is None:
        raise LedgerError(f"no round {round_id!r} in the ledger")
    entries, open_seq, close_seq = _entries(view, round_id)
    timeline = [
        {"seq": e["seq"], "wall": e["wall"], "kind": e["kind"], **json.loads(e["data"])}
        for e in entries
        if e["kind"] in TIMELINE_KINDS
    ]
    shuffler_reports = [
        {"seq": e["seq"], "wall": e["wall"], "kind": e["kind"], **json.loads(e["data"])}
        for e in entries
        if e["kind"] in SHUFFLER_KINDS or e["kind"].startswith("shuffler")
    ]
    head_seq, head_hash = view.journal.head()
    not_recorded = [] if link is not None else [NO_FRAMES]
    if recorded is not None and "shoe" in recorded["record"]:
        not_recorded.append(SHOE_FRAMES)
    return {
        "document": FORMAT,
        "format": VERSION,
        "table": table_id,
        "round": round_id,
        "generated": generated,
        "ledger_round": record.to_json(),
        "round_record": recorded["record"] if recorded else None,
        "table_settlement": recorded["result"] if recorded else None,
        "profile": recorded["profile"] if recorded else None,
        "rules": _rules(view, open_seq),
        "meters": _meters(entries, open_seq, close_seq),
        "sensor_timeline": timeline,
        "shuffler_reports": shuffler_reports,
        "shuffler_identity": link["shuffler"] if link is not None else shuffler,
        "software": {
            "manifest_sha256": manifest_digest(manifest),
            "at_power_up": _power_up(view, open_seq),
        },
        "journal": {
            "opened": open_seq,
            "closed": close_seq,
            "entries": entries,
            "head": {"seq": head_seq, "hash": head_hash},
            # from this entry on the chain is an HMAC under the table's ledger key
            # (docs/ledger.md): the verifier checks the links, the key holder the hashes
            "keyed_from": min((seq for seq, _ in key_history(view.db)), default=None),
        },
        "deal_packets": link["deal_packets"] if link is not None else None,
        "deck_checks": link["deck_checks"] if link is not None else None,
        "frames_dropped": link["frames_dropped"] if link is not None else None,
        "replacements": replacements(entries, round_id),
        "not_recorded": not_recorded,
    }
