"""The power-up self-check: the software is what was installed, the ledger is sound.

Software. At build or install time ``croupier selfcheck manifest`` hashes every file of the
installed packages (``controller``, ``firmware_bridge``, ``drivers``, ``display``: every file,
the bytecode in ``__pycache__`` and any extension module too, since the interpreter runs them)
and the shipped rule profiles into a manifest, by default
``<prefix>/share/croupier/manifest.json`` (``$CROUPIER_MANIFEST`` overrides it; ``make
manifest`` writes it for the venv). At power-up every file must be present with its hash, and
no file may have been added to the packages. Without a manifest file the check fails: a
production table always has one.

Ledger (the quick checks, fast on a ledger of millions of rounds): the checksums of the
critical rows (pools, hit history, corrections, the self-check status, the rounds in play and
their pool rows), each pool's meter identities, the last :data:`TAIL` journal entries' hash
chain and the journal head, the append-only triggers, and the pointer to the rules last
journaled (``meta.rules_entry``: the ``rules.changed`` entry it names, whose digest must
recompute, and none after it in the tail; ``rules.pointer_problems``), which the start
follows. ``croupier meters verify`` is the full check (every row, the whole journal and its
replay); ``power_up(..., full=True)`` runs it.

A failure is persisted (``selfcheck`` row, journaled ``selfcheck.failed``) and keeps the table
closed (:attr:`SelfCheckStatus.table_may_open` is false, round events raise TableClosedError)
across restarts, even if a later check passes, until a technician clears it
(:func:`clear`, journaled ``selfcheck.cleared``). Meters stay readable throughout. Clearing
re-runs the check and refuses while it fails; rows with a bad checksum that the technician
has examined can be accepted as they are (``accept_rows``: their content goes into the
journal and they are sealed again); pools can be rebuilt from the journal first
(``Ledger.rebuild_pools``).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import __version__
from controller.books.ledger import paths
from controller.books.ledger.db import key_history
from controller.books.ledger.errors import LedgerError
from controller.books.ledger.journal import GENESIS, entry_hash
from controller.books.ledger.reader import LedgerView
from controller.books.ledger.records import SelfCheckStatus
from controller.books.ledger.rules import journal_rules, pointer_problems
from controller.books.ledger.schema import GUARDS
from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import pool_problems, selfcheck_row_problems, verify_ledger
from controller.files import write_atomic

PACKAGES = ("controller", "firmware_bridge", "drivers", "display")
# Every file under a package is software: Python runs a module's bytecode from __pycache__
# when its header names the source's mtime and size (a changed .pyc beside an untouched .py
# runs the changed code), a sourceless .pyc, and an extension module (.so) before the .py of
# the same name. Only the profiles directory holds data of one kind.
PROFILE_SUFFIX = ".toml"
TAIL = 1000  # journal entries whose chain the quick check recomputes


class SelfCheckError(LedgerError):
    """The self-check still fails, so it cannot be cleared."""


@dataclass(frozen=True)
class Failure:
    kind: str  # software, row, pool, journal, rules, selfcheck, ledger
    text: str
    row: tuple[str, tuple[Any, ...]] | None = None  # (table, key) of a row with a bad checksum


def manifest_digest(path: Path | None) -> str | None:
    """SHA-256 (hex) of the software manifest file, None without one."""
    if path is None or not path.exists():
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def default_manifest_path() -> Path:
    return Path(paths.default_manifest_path())


def _shipped_profiles() -> Path:
    source_tree = Path(__file__).resolve().parents[3] / "config" / "profiles"
    return source_tree if source_tree.is_dir() else Path(sys.prefix) / "share/croupier/profiles"


def software_roots() -> dict[str, Path]:
    """The directories the manifest covers: the shipped profiles and each package."""
    roots = {"profiles": _shipped_profiles()}
    for package in PACKAGES:
        spec = importlib.util.find_spec(package)
        if spec and spec.submodule_search_locations:
            roots[package] = Path(next(iter(spec.submodule_search_locations)))
    return roots


def software_files() -> dict[str, Path]:
    """The files the manifest covers, by the name the manifest gives them: every regular file
    of a package (PACKAGES), the ``.toml`` files of the profiles."""
    files = {}
    for name, root in software_roots().items():
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.is_file() and (name != "profiles" or path.suffix == PROFILE_SUFFIX):
                files[f"{name}/{path.relative_to(root).as_posix()}"] = path
    return files


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _compile_packages() -> None:
    """Write every module's bytecode before the manifest is made. Python writes a module's
    ``.pyc`` when it first imports it (unless bytecode writing is off): in a tree pip did not
    compile whole (a development venv, the rig's) a module imported for the first time after
    the manifest added a file, and the power-up check failed on it. A tree that cannot be
    written keeps what it has."""
    import compileall

    for name, root in software_roots().items():
        if name != "profiles" and root.is_dir():
            compileall.compile_dir(root, quiet=2)


def make_manifest(path: Path, wall: str) -> dict[str, Any]:
    """Hash the installed software into ``path``, its bytecode compiled first (written
    atomically; FileRefused for a path that is not a regular file:
    controller.files.write_atomic)."""
    _compile_packages()
    manifest = {
        "format": 1,
        "version": __version__,
        "created": wall,
        "files": {name: _sha256(p) for name, p in software_files().items()},
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8"))
    return manifest


def check_software(manifest_path: Path) -> list[Failure]:
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        expected: dict[str, str] = manifest["files"]
    except FileNotFoundError:
        return [
            Failure(
                "software",
                f"no software manifest at {manifest_path}: make it at install time "
                "(croupier selfcheck manifest)",
            )
        ]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [Failure("software", f"the software manifest {manifest_path} is unreadable: {exc}")]
    present = software_files()
    failures = []
    for name in sorted(set(expected) | set(present)):
        if name not in present:
            failures.append(Failure("software", f"{name} is missing (it is in the manifest)"))
        elif name not in expected:
            failures.append(Failure("software", f"{name} was added after the manifest was made"))
        elif _sha256(present[name]) != expected[name]:
            failures.append(Failure("software", f"{name} differs from the installed version"))
    return failures


def _sealed_failures(view: LedgerView, table: str, where: str = "1") -> list[Failure]:
    return [
        Failure(
            "row",
            f"{table} row {'/'.join(map(str, key))} does not match its checksum",
            (table, key),
        )
        for key in view.db.bad_seals(table, where)
    ]


def check_ledger(view: LedgerView, *, full: bool = False) -> list[Failure]:
    if full:
        return [Failure("ledger", p) for p in verify_ledger(view).problems]
    failures: list[Failure] = []
    if view.db.unverifiable:
        return [Failure("ledger", view.db.unverifiable)]
    for table in ("pools", "hits", "corrections", "selfcheck"):
        failures += _sealed_failures(view, table)
    failures += _sealed_failures(view, "rounds", "state = 'open'")
    failures += _sealed_failures(
        view, "round_pools", "round_id IN (SELECT round_id FROM rounds WHERE state = 'open')"
    )
    failures += [Failure("pool", p) for p in pool_problems(view)]
    failures += [Failure("journal", p) for p in _journal_tail_problems(view)]
    tail_from = max(0, view.journal.head()[0] - TAIL - 1)  # the tail recomputed above
    failures += [Failure("rules", p) for p in pointer_problems(view.db, tail_from)]
    failures += [Failure("selfcheck", p) for p in selfcheck_row_problems(view, recent=TAIL)]
    return failures


def _journal_tail_problems(view: LedgerView) -> list[str]:
    head_seq, head_hash = view.journal.head()
    rows = view.db.execute(
        "SELECT seq, kind, mono, wall, data, prev_hash, hash FROM journal WHERE seq > ? "
        "ORDER BY seq",
        (max(0, head_seq - TAIL - 1),),
    ).fetchall()
    problems = []
    prev = None
    keyring, history = view.db.keyring, key_history(view.db)
    for seq, kind, mono, wall, data, prev_hash, digest in rows:
        key_id = next((k for start, k in reversed(history) if start <= seq), None)
        key = keyring.get(key_id) if keyring is not None and key_id is not None else None
        if entry_hash(prev_hash, seq, kind, mono, wall, data, key) != digest:
            problems.append(f"journal entry {seq} was altered")
        elif prev is not None and prev_hash != prev:
            problems.append(f"journal entry {seq} does not link to entry {seq - 1}")
        elif prev is None and seq == 1 and prev_hash != GENESIS:
            problems.append("journal entry 1 does not start the chain")
        prev = digest
    last = (rows[-1][0], rows[-1][-1]) if rows else (0, GENESIS)
    if last != (head_seq, head_hash):
        problems.append(f"the journal ends at entry {last[0]} but its head records {head_seq}")
    names = {r[0] for r in view.db.execute("SELECT name FROM sqlite_master WHERE type='trigger'")}
    problems += [f"the safeguard trigger {g} is missing" for g in GUARDS if g not in names]
    return problems[:20]


def run_checks(view: LedgerView, manifest: Path | None, *, full: bool = False) -> list[Failure]:
    """Every check; ``manifest=None`` leaves the software out (a development table)."""
    failures = check_software(manifest) if manifest is not None else []
    try:
        with view.db.reading("running the self-check"):
            return failures + check_ledger(view, full=full)
    except LedgerError as exc:  # a damaged file: the check fails, it does not crash
        return [*failures, Failure("ledger", str(exc))]


def power_up(
    ledger: Ledger,
    now: float,
    manifest: Path | None,
    *,
    full: bool = False,
    rules: Mapping[str, Any] | None = None,
) -> SelfCheckStatus:
    """Run the self-check at start-up and persist a failure; returns the status the daemon
    consults (``table_may_open``). A failure recorded earlier stays until cleared. ``rules``:
    the table's rules record (``controller.books.ledger.rules``), journaled when it changed
    and named by its digest in the start entry."""
    failures = run_checks(ledger, manifest, full=full)
    if failures:
        return ledger.record_selfcheck_failure([f.text for f in failures], now)
    status = ledger.selfcheck_status()
    if status.table_may_open:
        # the manifest's hash names the software that runs from here on, the rules' digest
        # the profile and limits (evidence bundles, day reports)
        data: dict[str, Any] = {"software": manifest is not None, "full": full}
        if manifest is not None:
            data["manifest_sha256"] = manifest_digest(manifest)
        with ledger.transaction():
            if rules is not None:
                data["rules_sha256"] = journal_rules(ledger.db, ledger.journal, rules, now)
            ledger.journal.write("selfcheck.passed", data, now)
    return status


def clear(
    ledger: Ledger,
    now: float,
    *,
    technician: str,
    reason: str,
    manifest: Path | None,
    accept_rows: bool = False,
) -> SelfCheckStatus:
    """A technician clears a failed self-check after fixing its cause (journaled). Raises
    SelfCheckError listing what still fails."""
    failures = run_checks(ledger, manifest)
    accepted = [f.row for f in failures if f.kind == "row" and accept_rows and f.row]
    remaining = [f for f in failures if not (accept_rows and f.kind == "row")]
    if remaining:
        raise SelfCheckError(
            "the self-check still fails, so it stays failed:\n"
            + "\n".join(f"  {f.text}" for f in remaining)
        )
    return ledger.clear_selfcheck(now, technician=technician, reason=reason, reseal=accepted)
