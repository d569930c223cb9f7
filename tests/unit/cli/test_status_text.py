"""``croupier status`` as a person reads it: a blackjack table's shoe (its cut card,
controller/table/shoe.py), and a table without one says nothing of a shoe."""

from __future__ import annotations

import argparse

import pytest

from controller.cli import status_cmd

STATUS = {
    "table": "T-BJ",
    "profile": "trilux-gr",
    "state": "closed",
    "round": None,
    "conditions": {"shoe": "the cut card came (70 of 312 cards left): shuffling the shoe"},
    "verdict": None,
    "shuffler": {"link": "up", "model": "EMU", "firmware": "1.0", "deck": "312 cards"},
    "currency": "EUR",
    "pools": {},
    "seats": {"1": {"stake": False, "locked": False, "in_play": False, "excluded": None}},
}


@pytest.mark.parametrize("shoe", [{"left": 70, "size": 312, "cut": 78}, None])
def test_the_shoe_is_shown_with_its_cut(monkeypatch, capsys, shoe):
    data = STATUS | ({"shoe": shoe} if shoe else {})
    monkeypatch.setattr(status_cmd, "call", lambda args, command: data)
    assert status_cmd.status(argparse.Namespace(json=False)) == 0
    out = capsys.readouterr().out
    assert "closed by shoe: the cut card came (70 of 312 cards left)" in out
    shown = "shoe: 70 of 312 cards left, shuffled at 78\n" in out
    assert shown is (shoe is not None)
