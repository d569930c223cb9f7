"""The rules a table plays under, in its journal: which profile (name, version, where it was
loaded from, the SHA-256 of its file) and which table limits change what a round pays.

The table hands the ledger a *rules record* at power-up (``controller.table.powerup``)::

    {"profile": {"name", "version", "game", "origin": "shipped" | "override",
                 "file": "profiles/uth-gr.toml" (as the manifest names it) | an absolute path,
                 "sha256": SHA-256 of the file's bytes},
     "limits": {wager: {"min", "max"}}}

Its digest, ``rules_sha256``, is the SHA-256 of the record's canonical JSON (the journal's
own spelling: keys sorted, no spaces, UTF-8), so a regulator recomputes it from a journal
entry with any JSON library. :func:`journal_rules` writes a ``rules.changed`` entry (the
record, its digest, and ``previous``: the seq and digest of the entry it replaces, null for
the first) only when the digest differs from the last one journaled, and the power-up's
``selfcheck.passed`` names the digest in force every time: every round opened after a
start entry was played under the rules it names (as under the software whose manifest it
names).

The last ``rules.changed`` entry is found through the ``meta`` row ``rules_entry`` (its seq),
so a start never scans the journal; earlier ones through ``previous``. ``meters verify``
(:func:`rules_problems`) walks every entry: each digest recomputed, each ``previous`` the
entry before it, each start entry naming the rules last journaled, and the ``meta`` row the
last entry. A journal from before this version has none of them, and passes. The power-up's
quick self-check (:func:`pointer_problems`) checks the ``meta`` row cheaply: the entry it
names, and the journal's tail.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from controller.books.ledger.db import Database
from controller.books.ledger.journal import Journal, canonical

KIND = "rules.changed"
START_KIND = "selfcheck.passed"  # the start entry, which names the digest in force
META_KEY = "rules_entry"
RECORD_KEYS = ("profile", "limits")


def rules_digest(record: Mapping[str, Any]) -> str:
    """``rules_sha256`` of a rules record: SHA-256 of its canonical JSON. The standalone
    verifier of evidence bundles recomputes it with its own copy of this definition
    (``controller/books/evidence_verify.py``, ``rules_digest``: it may import nothing of
    Croupier), deliberately; ``tests/regulatory/test_evidence_rules.py`` holds the two equal
    on random records."""
    return hashlib.sha256(canonical(dict(record)).encode("utf-8")).hexdigest()


def _record(data: Mapping[str, Any]) -> dict[str, Any]:
    """The rules record a ``rules.changed`` entry's data carries (its digest's input)."""
    return {key: data.get(key) for key in RECORD_KEYS}


def _entry(db: Database, seq: int) -> dict[str, Any] | None:
    row = db.execute(
        "SELECT seq, wall, data FROM journal WHERE seq = ? AND kind = ?", (seq, KIND)
    ).fetchone()
    if row is None:
        return None
    return {"seq": row[0], "wall": row[1], **json.loads(row[2])}


def last_rules(db: Database) -> dict[str, Any] | None:
    """The last ``rules.changed`` entry (its data with ``seq`` and ``wall``), None when the
    ledger has none, or when the ``meta`` row does not point to one (verify says so)."""
    pointed = _pointed(db)
    seq = None if pointed is None else _seq(pointed)
    return None if seq is None else _entry(db, seq)


def _pointed(db: Database) -> str | None:
    """The ``meta`` row ``rules_entry`` as text, None when there is none."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    return None if row is None else str(row[0])


def _seq(pointed: str) -> int | None:
    """The seq the ``meta`` row names, None when it is not an SQLite integer: the row is
    not the journal's, so it may hold anything (``"²"`` is a digit to ``str.isdigit`` and
    no number to ``int``; 20 digits overflow SQLite's integers)."""
    if pointed.isascii() and pointed.isdigit() and len(pointed) < 19:
        return int(pointed)
    return None


def rules_before(db: Database, seq: int) -> dict[str, Any] | None:
    """The ``rules.changed`` entry in force at journal entry ``seq`` (the last one before
    it), walking back from the last through ``previous``; None when none is."""
    entry = last_rules(db)
    while entry is not None and entry["seq"] >= seq:
        entry = _previous(db, entry)
    return entry


def _previous(db: Database, entry: Mapping[str, Any]) -> dict[str, Any] | None:
    """The ``rules.changed`` entry ``entry`` names as ``previous``, None for the first."""
    previous = entry.get("previous")
    return _entry(db, previous["seq"]) if isinstance(previous, dict) else None


def rules_between(db: Database, first: int, end: int) -> list[dict[str, Any]]:
    """The rules in force at entry ``first`` and every change before ``end``, oldest first."""
    found = []
    entry = rules_before(db, end)
    while entry is not None:
        found.append(entry)
        if entry["seq"] < first:
            break
        entry = _previous(db, entry)
    return found[::-1]


def journal_rules(db: Database, journal: Journal, record: Mapping[str, Any], now: float) -> str:
    """Journal ``record`` as ``rules.changed`` when its digest differs from the last one
    journaled (in the caller's transaction); returns the digest in force."""
    digest = rules_digest(record)
    last = last_rules(db)
    if last is not None and last.get("rules_sha256") == digest:
        return digest
    previous = None if last is None else {"seq": last["seq"], "rules_sha256": last["rules_sha256"]}
    data = {**dict(record), "rules_sha256": digest, "previous": previous}
    entry = journal.write(KIND, data, now)
    db.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) "
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (META_KEY, str(entry.seq)),
    )
    return digest


def pointer_problems(db: Database, tail_from: int) -> list[str]:
    """The power-up's quick check of the ``meta`` row ``rules_entry``, which the start about
    to run follows (:func:`journal_rules`): it names a ``rules.changed`` entry whose
    ``rules_sha256`` recomputes from its rules, and no ``rules.changed`` entry after
    ``tail_from`` (the tail whose chain the quick check recomputes) comes after it. One entry
    read by its seq and the tail by the primary key: cheap on any journal. A pointer to an
    older entry than the last, when that last is before the tail, is left to ``meters
    verify`` (:func:`rules_problems`)."""
    pointed = _pointed(db)
    later = db.execute(
        "SELECT max(seq) FROM journal WHERE seq > ? AND kind = ?", (tail_from, KIND)
    ).fetchone()[0]
    if pointed is None:
        if later is None:
            return []  # no rules journaled yet (or not since the tail began)
        return [f"the meta row {META_KEY} is missing, but journal entry {later} is a {KIND}"]
    entry = None
    seq = _seq(pointed)
    if seq is not None:
        try:
            entry = _entry(db, seq)
        except (ValueError, TypeError):  # its data is not a JSON object (the tail says more)
            return [f"the {KIND} entry {pointed} the meta row {META_KEY} names is unreadable"]
    if entry is None:
        return [f"the meta row {META_KEY} ({pointed[:20]}) names no {KIND} entry"]
    if entry.get("rules_sha256") != rules_digest(_record(entry)):
        return [
            f"the {KIND} entry {pointed} the meta row {META_KEY} names: its rules_sha256 is "
            "not the digest of its rules"
        ]
    if later is not None and later > entry["seq"]:
        return [f"the meta row {META_KEY} ({pointed}) is not the last {KIND} entry ({later})"]
    return []


def rules_problems(journal: Journal, db: Database) -> list[str]:
    """Every ``rules.changed`` entry and every start entry naming a digest, in order (see the
    module docstring)."""
    problems = []
    last: tuple[int, str] | None = None  # (seq, digest) of the rules journaled so far
    for entry in journal.entries(kinds={KIND, START_KIND}):
        data, seq = entry.data, entry.seq
        if entry.kind == START_KIND:
            named = data.get("rules_sha256")
            if named is not None and (last is None or named != last[1]):
                problems.append(
                    f"entry {seq} ({START_KIND}) names rules {str(named)[:16]} but the rules "
                    f"journaled before it are {last[1][:16] if last else 'none'}"
                )
            continue
        digest = data.get("rules_sha256")
        if not isinstance(digest, str) or rules_digest(_record(data)) != digest:
            problems.append(f"entry {seq} ({KIND}): rules_sha256 is not the digest of its rules")
        previous = data.get("previous")
        wanted = None if last is None else {"seq": last[0], "rules_sha256": last[1]}
        if previous != wanted:
            problems.append(
                f"entry {seq} ({KIND}) names {previous} as the rules before it, not {wanted}"
            )
        last = (seq, str(digest))
    pointed = _pointed(db)
    if pointed != (str(last[0]) if last else None):
        problems.append(
            f"the meta row {META_KEY} ({pointed}) is not the last {KIND} entry "
            f"({last[0] if last else None})"
        )
    return problems
