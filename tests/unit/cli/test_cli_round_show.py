"""``croupier round show`` for a person (issue 17): it printed the recorded round as one raw
JSON line (``"stakes": {"ante": 1000, ...}, "pools": {"progressive": {"amount": 500000...``);
now the cards, each seat's stakes as money and the pool by its ledger name. ``--json`` keeps
the record as it is (minor units)."""

from __future__ import annotations

import json

from controller.cli import round_cmd
from controller.cli.main import main

RECORD = {
    "profile": "uth-gr",
    "dealer": ["4s", "9d"],
    "community": ["Ac", "7s", "5s", "9h", "Qh"],
    "seats": [
        {
            "seat": 1,
            "cards": ["Th", "5h"],
            "stakes": {"ante": 1000, "blind": 1000, "progressive": 100},
            "decision": "4x",
        },
        {
            "seat": 2,
            "cards": ["3s", "Js"],
            "stakes": {"ante": 500, "blind": 500},
            "decision": "fold",
        },
    ],
    "pools": {"progressive": {"amount": 500015, "seed": 500000}},
    "limits": {"ante": {"min": 500, "max": 5000}},
}


def test_round_show_writes_the_record_with_money_as_money(monkeypatch, capsys):
    from controller.engine.games import settle
    from controller.engine.profiles import load_profile

    result = settle(load_profile("uth-gr"), RECORD, table_record=True).to_json()
    reply = {
        "round": "SIM-1-000001",
        "profile": "uth-gr",
        "record": RECORD,
        "result": result,
        "pool_wagers": {"main": "progressive"},
    }
    monkeypatch.setattr(round_cmd, "call", lambda *args, **kwargs: reply)
    assert main(["round", "show", "last"]) == 0
    out = capsys.readouterr().out
    assert '"stakes"' not in out and "500015" not in out  # no raw record
    lines = out.splitlines()
    assert lines[0] == "round SIM-1-000001 (profile uth-gr)"
    assert "  dealer: 4s 9d" in lines and "  community: Ac 7s 5s 9h Qh" in lines
    assert (
        "  seat 1: cards Th 5h; stakes ante EUR 10.00, blind EUR 10.00, progressive EUR 1.00;"
        ' decision "4x"' in lines
    )
    assert (
        "  pool main (progressive wager) at the round: amount EUR 5,000.15, seed EUR 5,000.00"
        in lines
    )
    assert "  limits ante: EUR 5.00 .. EUR 50.00" in lines
    assert main(["round", "show", "last", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["record"] == RECORD
