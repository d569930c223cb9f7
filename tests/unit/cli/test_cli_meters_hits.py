"""``croupier meters hits`` shows the same lines from the daemon's answer as from the ledger's
file: one formatter over the hits as JSON (controller.books.ledger.records.HitRecord)."""

from __future__ import annotations

import json

from controller.books.ledger.records import HitRecord
from controller.cli import meters_cmd
from controller.cli.main import main

ROYAL = HitRecord(7, "main", "SIM-1-000042", 3, "royal-flush", "As Ks Qs Js Ts",
                  100, 1_234_567, 1_234_567, 0, 0, 1, "2026-11-27T09:00:00+00:00")  # fmt: skip
ENVY = HitRecord(8, "main", "SIM-1-000042", 5, None, None, 100, 10_000, 0, 0, 10_000, 1,
                 "2026-11-27T09:00:00+00:00")  # fmt: skip


def test_hits_from_the_daemon_are_shown_as_money(monkeypatch, capsys):
    asked = []

    def daemon(args, cmd, **kwargs):
        asked.append((cmd, kwargs))
        return {"hits": [ROYAL.to_json(), ENVY.to_json()], "currency": "EUR"}

    monkeypatch.setattr(meters_cmd, "from_daemon", daemon)
    assert main(["meters", "hits", "-n", "2", "--pool", "main"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert asked == [("meters.hits", {"pool": "main", "n": 2})]
    # every column labelled, every amount with its currency (issue 17: "(pool 0.00)" and
    # two bare full-house columns)
    assert lines == [
        "2026-11-27T09:00:00+00:00  pool main  round SIM-1-000042  seat 3  line royal-flush"
        "  paid EUR 12,345.67 (from the pool EUR 12,345.67)  hand As Ks Qs Js Ts",
        "2026-11-27T09:00:00+00:00  pool main  round SIM-1-000042  seat 5  line -"
        "  paid EUR 100.00 (from the pool EUR 0.00, envy EUR 100.00)",
    ]
    assert main(["meters", "hits", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown[0] == {**ROYAL.to_json(), "currency": "EUR", "minor_units": 2}


def test_more_hits_than_one_answer_holds_are_read_from_the_file(monkeypatch, capsys):
    def daemon(args, cmd, **kwargs):
        raise AssertionError("asked the daemon for more than it sends")

    monkeypatch.setattr(meters_cmd, "from_daemon", daemon)
    assert main(["meters", "hits", "-n", "10001"]) == 1  # the default ledger: none here
    assert "no ledger at" in capsys.readouterr().err
