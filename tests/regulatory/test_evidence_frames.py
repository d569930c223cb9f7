"""The raw shuffler frames in the jackpot evidence bundle (issue 18 point 4): the standalone
verifier decodes every frame again with its own framing decoder, and a frame changed in any
byte, a reply re-framed with another card or SEQ, or packets put in another order fail it
even when the bundle is signed again; ``croupier settle`` still settles the round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from regulatory_fixtures import SetWall, fixture_bundle, new_ledger, play_history

from controller.books import evidence_verify
from controller.books.evidence import NO_FRAMES, link_record
from controller.books.ledger.reader import LedgerReader
from controller.books.reports.signing import create_key, load_private, public_key_path, sign_json
from controller.books.surveillance import SurveillanceStore
from controller.cli.main import main
from controller.engine.cards import Card
from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.table.link_evidence import exchange_entry
from firmware_bridge.framing import encode_frame
from firmware_bridge.messages import (
    Ack,
    DealReply,
    DealRequest,
    DealtCard,
    DeckCheckReply,
    DeckCheckRequest,
)
from firmware_bridge.session import WireFrame

REPO = Path(__file__).resolve().parents[2]
WALL = 1_795_000_000.0  # the wall clock's lead over the table's clock in these exchanges


def deal(seq: int, tag: int, cards: list[str], at: float) -> dict:
    """A DEAL exchange as the link keeps it: request, ACK, reply."""
    reply = DealReply(0, tag, len(cards), tuple(DealtCard(Card.parse(c)) for c in cards))
    request = DealRequest(len(cards), tag)
    frames = (
        WireFrame(at, "tx", encode_frame(seq, DealRequest.TYPE, request.encode())),
        WireFrame(at + 0.01, "rx", encode_frame(seq, Ack.TYPE)),
        WireFrame(at + 0.2, "rx", encode_frame(seq, DealReply.TYPE, reply.encode())),
    )
    return exchange_entry("deal", "day-3", reply, frames, WALL)


def royal_exchanges(record: dict) -> list[dict]:
    """The royal example's packets in the shuffler's order (UTH-11), SEQs 4, 5, ..."""
    packets = [(0, record["community"])]
    packets += [(s["seat"], s["cards"]) for s in record["seats"]]
    packets.append((15, record["dealer"]))
    return [deal(4 + n, tag, cards, 10.0 + n) for n, (tag, cards) in enumerate(packets)]


def deck_check(seq: int, at: float) -> dict:
    reply = DeckCheckReply(52, 52, 0, (), ())
    frames = (
        WireFrame(at, "tx", encode_frame(seq, DeckCheckRequest.TYPE)),
        WireFrame(at + 0.5, "rx", encode_frame(seq, DeckCheckReply.TYPE, reply.encode())),
    )
    return exchange_entry("deck-check", None, reply, frames, WALL, "52 of 52 cards")


@pytest.fixture(scope="module")
def framed(tmp_path_factory):
    """The fixture history's jackpot round, recorded as the royal example, with its frames."""
    root = tmp_path_factory.mktemp("frames")
    wall = SetWall()
    with new_ledger(root / "ledger.sqlite3", wall) as ledger:
        play_history(ledger, wall)
    record = json.loads((REPO / "examples" / "uth-gr-royal.json").read_text())
    del record["profile"]
    result = settle(load_profile("uth-gr"), record).to_json()
    store = SurveillanceStore(root / "surveillance.sqlite3")
    store.add_round("day-3", "uth-gr", record, result, 0.0)
    store.add_deck_check(deck_check(3, 5.0), WALL + 5.5)
    store.add_deal_frames("day-3", {"model": "M"}, royal_exchanges(record), 0, WALL + 30)
    store.add_deck_check(deck_check(20, 40.0), WALL + 40.5)
    create_key(root / "key.pem")
    with LedgerReader.open(root / "ledger.sqlite3") as reader:
        bundle = fixture_bundle(reader, store, link=link_record(store, "day-3"))
        bare = fixture_bundle(reader, store)
    store.close()
    path = root / "day-3.json"
    key = load_private(root / "key.pem")
    path.write_text(json.dumps(sign_json(bundle, key), indent=1))
    return {"root": root, "path": path, "bundle": bundle, "bare": bare, "key": key}


def verify(framed, bundle, tmp_path) -> tuple[int, str]:
    """Sign ``bundle`` again with the table's key and run the standalone verifier."""
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(sign_json(bundle, framed["key"])))
    public = public_key_path(framed["root"] / "key.pem")
    return evidence_verify.main(["v", str(path), str(public)]), str(path)


def copy(bundle: dict) -> dict:
    return json.loads(json.dumps(bundle))


def test_the_bundle_holds_every_frame_and_the_deck_checks_around_the_round(framed, capsys):
    bundle = framed["bundle"]
    assert [len(p["frames"]) for p in bundle["deal_packets"]] == [3] * 5
    checks = bundle["deck_checks"]
    assert [c["frames"][0]["seq"] for c in checks["before"] + checks["after"]] == [3, 20]
    assert bundle["shuffler_identity"] == {"model": "M"} and bundle["not_recorded"] == []
    public = public_key_path(framed["root"] / "key.pem")
    assert evidence_verify.main(["v", str(framed["path"]), str(public)]) == 0
    assert "and 19 shuffler frames checked" in capsys.readouterr().out


def test_croupier_settle_still_settles_the_round(framed, capsys):
    assert main(["settle", str(framed["path"]), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    del again["currency"], again["minor_units"]
    rules = again.pop("rules")  # the fixture's history journaled no rules
    assert rules["played"] is None and rules["same_profile"] is None
    assert again == framed["bundle"]["table_settlement"]


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_frame_changed_in_any_byte_fails_even_when_signed_again(framed, tmp_path_factory, data):
    bundle = copy(framed["bundle"])
    exchanges = bundle["deal_packets"] + bundle["deck_checks"]["before"]
    frame = data.draw(st.sampled_from([f for e in exchanges for f in e["frames"]]))
    raw = bytearray.fromhex(frame["raw"])
    raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
    frame["raw"] = raw.hex()
    code, _ = verify(framed, bundle, tmp_path_factory.mktemp("byte"))
    assert code == 1
    with pytest.raises(evidence_verify.Invalid, match="frame"):
        evidence_verify.check_frames(bundle)


def reframe(exchange: dict, payload: bytes | None = None, seq: int | None = None) -> None:
    """Replace an exchange's reply frame by a well-formed one (a forger's, CRC and all)."""
    reply = exchange["frames"][-1]
    old = bytes.fromhex(reply["raw"])
    new = encode_frame(old[2] if seq is None else seq, old[3], payload or old[5:-2])
    reply.update(raw=new.hex(), seq=new[2], crc=f"0x{int.from_bytes(new[-2:], 'big'):04x}")
    exchange["payload"] = new[5:-2].hex()


def test_a_reply_reframed_with_another_card_fails(framed, tmp_path):
    bundle = copy(framed["bundle"])
    seat = bundle["deal_packets"][1]  # seat 1: Ts 5h
    payload = bytearray.fromhex(seat["payload"])
    payload[4] = Card.parse("As")
    reframe(seat, bytes(payload))
    assert verify(framed, bundle, tmp_path)[0] == 1
    with pytest.raises(evidence_verify.Invalid, match="seat 1: the frames deal As 5h"):
        evidence_verify.check_frames(bundle)


def test_a_reply_reframed_with_another_seq_fails(framed, tmp_path):
    bundle = copy(framed["bundle"])
    reframe(bundle["deal_packets"][2], seq=99)
    assert verify(framed, bundle, tmp_path)[0] == 1
    with pytest.raises(evidence_verify.Invalid, match="not of the exchange of the DEAL"):
        evidence_verify.check_frames(bundle)


def test_packets_put_in_another_order_fail(framed, tmp_path):
    bundle = copy(framed["bundle"])
    packets = bundle["deal_packets"]
    packets[1], packets[2] = packets[2], packets[1]  # the same cards to the same seats
    assert verify(framed, bundle, tmp_path)[0] == 1
    with pytest.raises(evidence_verify.Invalid, match="does not follow"):
        evidence_verify.check_frames(bundle)


def test_a_stated_field_that_its_bytes_do_not_say_fails(framed, tmp_path):
    bundle = copy(framed["bundle"])
    bundle["deal_packets"][0]["frames"][0]["seq"] = 5
    assert verify(framed, bundle, tmp_path)[0] == 1


def test_a_bundle_without_frames_says_so_and_still_verifies(framed, tmp_path):
    bare = framed["bare"]
    assert bare["deal_packets"] is None and bare["not_recorded"] == [NO_FRAMES]
    assert verify(framed, bare, tmp_path)[0] == 0


def test_a_format_1_bundle_made_before_frames_still_verifies(framed, tmp_path):
    old = copy(framed["bare"])
    payload = framed["bundle"]["deal_packets"][0]["payload"]
    old.update(format=1, deal_packets=[{"kind": "deal", "type": "0x94", "payload": payload}])
    assert verify(framed, old, tmp_path)[0] == 0


def test_a_format_2_bundle_made_before_the_replacements_still_verifies(framed, tmp_path, capsys):
    """Format 3 names the round's replaced exposed cards (none here); a bundle of format 2
    (without the key) is checked as before, and one of format 3 must have it."""
    bundle = framed["bundle"]
    assert bundle["format"] == 3 and bundle["replacements"] == []
    old = copy(bundle)
    old["format"] = 2
    del old["replacements"]
    assert verify(framed, old, tmp_path)[0] == 0
    capsys.readouterr()
    lacking = copy(bundle)
    del lacking["replacements"]
    assert verify(framed, lacking, tmp_path)[0] == 1
    assert "NOT VALID: the field replacements is missing" in capsys.readouterr().out


def test_the_verifier_reads_the_replacements_as_the_bundle_writes_them():
    """``evidence_verify.journal_replacements`` is ``evidence.replacements`` written out (the
    verifier imports nothing of Croupier): both read the same entries the same way."""
    from controller.books.evidence import replacements

    def move(seq, **data):
        return {"seq": seq, "wall": f"w{seq}", "kind": "transition", "data": json.dumps(data)}

    entries = [
        move(1, to="dealing", round="T-1", rule="MD-X1", destination="dealer", positions=[2]),
        move(2, to="verified", round="T-1"),
        move(3, to="dealing", round="T-2", rule="MD-X2", destination="community", positions=[4]),
        {"seq": 4, "wall": "w4", "kind": "exposure", "data": json.dumps({"positions": [1]})},
        move(5, to="dealing", round="T-1", rule="MD-X2", destination="community", positions=[5, 1]),
        move(6, to="dealing", round="T-1", cause="no positions"),
    ]
    written = replacements(entries, "T-1")
    assert [r["seq"] for r in written] == [1, 5]
    bundle = {"round": "T-1", "journal": {"entries": entries}}
    assert evidence_verify.journal_replacements(bundle) == written
