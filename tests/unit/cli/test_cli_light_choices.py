"""The choices and defaults the CLI's parsers name, written in the light CLI modules so that
``--help`` and a usage error import no heavy code (issue 17; tests/unit/cli/test_cli_imports.py),
are the ones of the code that uses them: a new profile, algorithm or pin factory added there
and not here fails this test instead of being refused on the command line."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from controller.books.ledger import paths, selfcheck
from controller.books.ledger.lifecycle import RetireReason
from controller.books.reports import documents, gaming_day, signing
from controller.books.software_verification import ALGORITHMS, ALIASES
from controller.cli import (
    argtypes,
    hardware,
    lifecycle_cmd,
    report_cmd,
    rig_cmd,
    sign_cmd,
    sim_cmd,
    verify_software_cmd,
)
from controller.cli import paths as cli_paths
from controller.engine.pools.meters import CORRECTABLE
from controller.rig.sim.profiles import PROFILES
from controller.rig.soak import ROYALS
from controller.validation import MONEY_MAX
from display.scenes import TEST_PATTERNS
from drivers.gpio.pinmap import FACTORY_NAMES
from drivers.sign.config import BACKENDS

REASONS = tuple(r.value for r in RetireReason)
SAME = [
    ("sim --profile", sim_cmd.PROFILES, tuple(PROFILES)),
    ("rig soak --royals", rig_cmd.SOAK_ROYALS, ROYALS),
    ("verify-software --algorithm", verify_software_cmd.ALGORITHMS, (*ALGORITHMS, *ALIASES)),
    ("report day --format", report_cmd.FORMS, documents.FORMS),
    ("report day --date", date.fromisoformat(report_cmd.FIRST_DAY), gaming_day.FIRST_DAY),
    ("sign test PATTERN", sign_cmd.TEST_PATTERNS, TEST_PATTERNS),
    ("sign --backend", hardware.SIGN_BACKENDS, BACKENDS),
    ("--pin-factory", hardware.PIN_FACTORIES, FACTORY_NAMES),
    ("meters retire --reason-code", lifecycle_cmd.RETIRE_REASONS, REASONS),
    ("meters correct METER", lifecycle_cmd.CORRECTABLE_METERS, CORRECTABLE),
    ("an amount of money (argtypes.money)", argtypes.MONEY_MAX, MONEY_MAX),
    ("report keygen --key", Path(cli_paths.REPORT_KEY), signing.DEFAULT_KEY),
    (
        "report verify --public-key",
        Path(cli_paths.REPORT_PUBLIC_KEY),
        signing.public_key_path(signing.DEFAULT_KEY),
    ),
]


@pytest.mark.parametrize(("what", "light", "source"), SAME, ids=[s[0] for s in SAME])
def test_the_parsers_choices_are_their_sources(what: str, light: object, source: object) -> None:
    assert light == source, what


@pytest.mark.parametrize("env", [None, "/tmp/elsewhere/manifest.json"])
def test_the_manifest_path_is_the_self_checks(env: str | None, monkeypatch) -> None:
    if env is None:
        monkeypatch.delenv(paths.MANIFEST_ENV, raising=False)
    else:
        monkeypatch.setenv(paths.MANIFEST_ENV, env)
    assert selfcheck.default_manifest_path() == Path(paths.default_manifest_path())
    assert str(selfcheck.default_manifest_path()).endswith(env or "share/croupier/manifest.json")


def test_the_pool_name_pattern_is_the_configurations() -> None:
    from controller.cli.argtypes import POOL_NAME
    from controller.engine.pools.config import NAME_PATTERN

    assert NAME_PATTERN.pattern == POOL_NAME


def test_the_round_id_pattern_is_the_ledgers() -> None:
    from controller.books.ledger.inputs import ROUND_ID as LEDGER_ROUND_ID
    from controller.cli.argtypes import ROUND_ID

    assert LEDGER_ROUND_ID.pattern == ROUND_ID


@pytest.mark.parametrize("bad", ["\udcff", "a b", "-x", "x" * 65, ""])
def test_a_round_id_the_ledger_cannot_hold_is_a_usage_error_before_the_credential(
    bad, capsys, monkeypatch
) -> None:
    """`round show $'\\xff'` asked for the technician credential first."""
    from controller.cli.main import main

    monkeypatch.delenv("CROUPIER_CREDENTIAL", raising=False)
    for action in ("show", "settle"):
        with pytest.raises(SystemExit) as stopped:
            main(["round", action, "--", bad])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert "argument round" in err and "credential" not in err and err.count("\n") == 1


def _kinds_written() -> set[str]:
    """Every journal kind the code writes as a literal: the first argument of AppendJournal,
    JournalNote, journal_now, post_journal and the journal's write/append."""
    import ast

    root = Path(__file__).resolve().parents[3] / "controller"
    writers = {"AppendJournal", "JournalNote", "journal_now", "post_journal", "write", "append"}
    found: set[str] = set()
    for source in root.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args):
                continue
            first, func = node.args[0], node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            journal = name not in ("write", "append") or "journal" in ast.unparse(func)
            if name in writers and journal and isinstance(first, ast.Constant):
                found.add(first.value)
    return found


def test_the_journal_kinds_events_tail_suggests_are_every_kind_written() -> None:
    """`events tail --kind round.setled` said only "no entries": the CLI's list of kinds (for
    the suggestion; written in the CLI, a quick command) holds every kind the code writes."""
    from controller.books.ledger.journal import LEDGER_KINDS
    from controller.cli.events_cmd import JOURNAL_KINDS

    written = _kinds_written()
    assert {"round.settled", "transition", "shuffler-reset"} <= written  # the walk finds them
    assert sorted((written | LEDGER_KINDS) - set(JOURNAL_KINDS)) == []
    assert list(JOURNAL_KINDS) == sorted(set(JOURNAL_KINDS))
