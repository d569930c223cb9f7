"""Evidence of a round whose exposed cards were replaced (MD-X1, MD-X2, MD-X3): the bundle of
the real daemon carries the replacements from the journal, and the standalone verifier
places each replacement packet's cards in the positions that went back into the shuffler,
as the table did, so the genuine bundle is VALID."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from controller.books import evidence_verify
from controller.books.reports.signing import load_private, public_key_path, sign_json
from controller.cli.main import main
from controller.engine.cards import parse_cards
from controller.table.tableconfig import load_table_config

HIL = Path(__file__).resolve().parents[1] / "hil"
DECK = ["Ks", "Qd", "7c", "4h", "2s", "As", "Ad", "Kh", "Kc"]  # community, seat 2, dealer

pytestmark = pytest.mark.integration


def play(t, destination: str, positions: list[int], *, decide_first: bool) -> str:
    """One round at seat 2, the exposure of ``destination``'s ``positions`` replaced."""
    t.call("round.stake", seat=2, stakes={"ante": 1000, "blind": 1000})
    t.emulate("arrange", cards=[int(c) for c in parse(DECK)], now=False)
    t.tap("lock")
    t.wait_for_state("verified")
    if decide_first:  # MD-X1 needs a player to have acted
        t.call("round.decide", seat=2, action="4x")
    t.call("round.expose", destination=destination, positions=positions)
    t.wait_until(lambda: replaced(t.journal("transition")), "the replacement packet counted")
    if not decide_first:
        t.call("round.decide", seat=2, action="4x")
    t.tap("confirm")
    return t.wait_for_state("settled")["round"]


def replaced(moves: list[dict]) -> bool:
    """The exposure taken (back to DEALING with its rule) and the deal verified again."""
    return any("rule" in m for m in moves) and moves[-1]["to"] == "verified"


def parse(cards: list[str]):
    return parse_cards(" ".join(cards), unique=False)


def report_key(t) -> Path:
    return load_table_config(t.config_path).resolve_report_key(t.state_dir)


def bundle_of(t, round_id: str) -> tuple[dict, str, Path]:
    made = t.call("evidence.make", privileged=True, round=round_id)
    return made["bundle"]["report"], made["file"], public_key_path(report_key(t))


@pytest.mark.parametrize(
    ("rule", "config", "destination", "positions", "decide_first"),
    [
        ("MD-X1", None, "dealer", [1, 2], True),
        ("MD-X2", None, "community", [4, 5], False),
        ("MD-X3", HIL / "tables" / "sim-uth-it.toml", "dealer", [2], False),
    ],
)
def test_a_round_with_replaced_cards_verifies(
    make_sim_table, capsys, rule, config, destination, positions, decide_first
):
    t = make_sim_table(**({"config": config} if config else {}))
    round_id = play(t, destination, positions, decide_first=decide_first)
    bundle, path, public = bundle_of(t, round_id)
    assert evidence_verify.main(["v", str(path), str(public)]) == 0, capsys.readouterr().out
    assert "(with 1 replacement(s) of exposed cards)" in capsys.readouterr().out
    (replacement,) = bundle["replacements"]
    assert (replacement["rule"], replacement["destination"]) == (rule, destination)
    assert replacement["positions"] == positions
    assert len(bundle["deal_packets"]) == 4  # community, seat 2, dealer, the replacement
    # and croupier settle settles the round again as the table did, replacements and all
    assert main(["settle", path, "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again["seats"] == bundle["table_settlement"]["seats"]


@pytest.fixture
def community(make_sim_table, tmp_path):
    """The MD-X2 round's bundle (the turn and river replaced) and a verifier of a changed
    copy signed again with the table's key."""
    t = make_sim_table()
    round_id = play(t, "community", [4, 5], decide_first=False)
    bundle, path, public = bundle_of(t, round_id)
    key = load_private(report_key(t))

    def verify(changed: dict) -> tuple[int, str]:
        out = tmp_path / "changed.json"
        out.write_text(json.dumps(sign_json(changed, key)))
        return evidence_verify.main(["v", str(out), str(public)]), str(out)

    return {"bundle": bundle, "path": path, "public": public, "verify": verify}


def changed(bundle: dict, **replacement) -> dict:
    copy = json.loads(json.dumps(bundle))
    copy["replacements"][0].update(replacement)
    return copy


CHANGES = [  # a replacement changed, and what the verifier says of it
    ({"positions": [5, 4]}, "community: the frames, replacements in their positions, deal"),
    ({"positions": [3, 4]}, "deal Ks Qd Tc 4s 2s, the round record has Ks Qd 7c Tc 4s"),
    ({"positions": [5]}, "deals 2 card(s) to the community, the replacement names 1"),
    ({"destination": "dealer"}, "deals to the community, the replacement is of dealer"),
    ({"positions": [4, 6]}, "positions [4, 6] are not distinct cards of the 5"),
    ({"positions": [4, 4]}, "positions [4, 4] are not distinct cards of the 5"),
]


def test_a_replacement_changed_is_not_valid(community, capsys):
    for change, reason in CHANGES:
        bundle = changed(community["bundle"], **change)
        with pytest.raises(evidence_verify.Invalid, match=re.escape(reason)):
            evidence_verify.check_frames(bundle)
        code, _ = community["verify"](bundle)
        assert code == 1 and reason in capsys.readouterr().out, change


def test_a_replacement_dropped_or_added_is_not_valid(community, capsys):
    dropped = json.loads(json.dumps(community["bundle"]))
    extra = dropped["replacements"].pop()
    reason = "1 deal packet(s) after the 3 of the deal's plan, 0 replacement(s)"
    with pytest.raises(evidence_verify.Invalid, match=re.escape(reason)):
        evidence_verify.check_frames(dropped)
    assert community["verify"](dropped)[0] == 1 and reason in capsys.readouterr().out
    added = json.loads(json.dumps(community["bundle"]))
    added["replacements"].append(extra)
    with pytest.raises(evidence_verify.Invalid, match=re.escape("2 replacement(s)")):
        evidence_verify.check_frames(added)
    assert community["verify"](added)[0] == 1


def test_the_replacements_are_the_journals(community, capsys):
    """Replacements that replay to the record's cards but are not what the journal says
    (another rule named) are not valid."""
    bundle = changed(community["bundle"], rule="MD-X3")
    assert evidence_verify.check_frames(bundle) == 10  # the frames alone hold
    code, _ = community["verify"](bundle)
    assert code == 1
    assert "replacement 1 is not the journal's (entry" in capsys.readouterr().out


def test_a_format_2_bundle_with_replaced_cards_says_it_needs_format_3(community, capsys):
    old = json.loads(json.dumps(community["bundle"]))
    old["format"] = 2
    del old["replacements"]
    code, _ = community["verify"](old)
    out = capsys.readouterr().out
    assert code == 1 and "NOT VALID: community: the frames deal Ks Qd 7c 4h 2s Tc 4s" in out
    assert "replayed from bundle format 3 on" in out
