#!/usr/bin/env python3
"""Check a jackpot evidence bundle away from the table, with Python's standard library only.

    python3 evidence_verify.py BUNDLE.json report-key.pub.pem

This file imports nothing of Croupier: copy it alone to any machine with Python 3.8+. It
checks (docs/evidence.md):

1. the Ed25519 signature over the bundle (RFC 8032 verification, written out below) with the
   table's public key, and that the key ID the bundle names is that key's; the file holds
   ``{"report": BUNDLE, "signature": {"algorithm", "key_id", "value"}}`` and nothing else (no
   key the signature does not cover), and no object in it writes a key twice (json reads the
   last, another reader the first);
2. the journal entries: each entry's SHA-256 recomputed from its fields, each linked to the
   previous one, with no gap;
3. that the round's ``round.opened`` and closing entries are among them and name the round,
   and that the ledger's record of the round carries the stakes the opening entry recorded;
4. the shuffler's frames (``deal_packets``, ``deck_checks``), each decoded again from its
   raw bytes by the minimal framing decoder below (docs/protocol.md sec. 1): start byte,
   length, header check and CRC-16, and the SEQ, TYPE and CRC the entry states; each DEAL
   exchange's frames all carry its request's SEQ, the requests' SEQs advance (less than one
   turn of the 255 numbers in a round), each reply answers its request's destination, and
   the cards in the replies are the round record's, destination by destination, in order;
   from format 3, with the exposed cards replaced in the round (``replacements``, MD-X1,
   MD-X2, MD-X3; the journal's own transitions, one for one): the packets after the deal's
   plan are the replacements', one each, in order, their cards in the positions named;
5. the rules the round was played under (``rules``): their ``rules_sha256`` recomputed from
   the record (profile and limits), and the one the power-up before the round journaled
   (``software.at_power_up.rules_sha256``) the same. A round played before the table
   journaled its rules has none (``rules`` null or absent): the output says so.

The bundle (``-``: standard input) is held to the limits every document from outside is
held to in Croupier (``controller/validation.py``, DOCUMENT_LIMITS, repeated below): its size,
its nesting depth, the length of its numbers; the JSON inside its journal entries too. Values
from the bundle are shown escaped, on one line.

Exit status 0 when everything holds, 1 with the first problem otherwise.
"""

import base64
import hashlib
import json
import sys

CONTEXT = b"croupier-signed-document-v1\n"
ED25519_SPKI = bytes.fromhex("302a300506032b6570032100")  # DER prefix of an Ed25519 key

# --- Ed25519 verification (RFC 8032, section 6) ---------------------------------------------
P = 2**255 - 19
Q = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a, b):
    x = (a[1] - a[0]) * (b[1] - b[0]) % P
    y = (a[1] + a[0]) * (b[1] + b[0]) % P
    c = 2 * a[3] * b[3] * D % P
    d = 2 * a[2] * b[2] % P
    e, f, g, h = y - x, d - c, d + c, y + x
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _mul(s, point):
    result = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            result = _add(result, point)
        point = _add(point, point)
        s >>= 1
    return result


def _equal(a, b):
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    if (x & 1) != sign:
        x = P - x
    return x


def _decompress(data):
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
BASE = (_GX, _GY, 1, _GX * _GY % P)


def ed25519_verify(public, message, signature):
    if len(public) != 32 or len(signature) != 64:
        return False
    a = _decompress(public)
    r = _decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= Q:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public + message).digest(), "little") % Q
    return _equal(_mul(s, BASE), _add(r, _mul(h, a)))


# --- the shuffler's frames (docs/protocol.md sec. 1) -----------------------------------------
# SOF LEN SEQ TYPE HCHK PAYLOAD CRC16; HCHK = low byte of the CRC of LEN SEQ TYPE; the CRC is
# CRC-16/CCITT-FALSE over LEN..PAYLOAD, big-endian.
SOF, MAX_PAYLOAD = 0xA5, 240
DEAL, DEAL_REPLY, ANSWERS = 0x14, 0x94, (0x01, 0x02, 0x7F)  # ACK, NAK, ERROR
RANKS, SUITS, UNRECOGNISED = "23456789TJQKA", "cdhs", 0xFF
COMMUNITY_TAG, DEALER_TAG = 0, 15


def crc16(data):
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = (crc << 1) ^ 0x1021 if crc & 0x8000 else crc << 1
        crc &= 0xFFFF
    return crc


def decode_frame(raw):
    """(seq, type, payload, crc) of one whole frame, or Invalid naming what is wrong."""
    if len(raw) < 7 or raw[0] != SOF:
        raise Invalid("does not start with the start byte 0xa5")
    n, seq, kind, check = raw[1], raw[2], raw[3], raw[4]
    if n > MAX_PAYLOAD or len(raw) != 7 + n:
        raise Invalid(f"its length byte says {n} payload bytes, it has {len(raw) - 7}")
    if check != crc16(raw[1:4]) & 0xFF:
        raise Invalid("its header check byte is wrong")
    crc = int.from_bytes(raw[-2:], "big")
    if crc != crc16(raw[1:-2]):
        raise Invalid("its CRC is wrong")
    return seq, kind, raw[5:-2], crc


def check_frame(entry, where):
    try:
        seq, kind, payload, crc = decode_frame(bytes.fromhex(entry["raw"]))
    except Invalid as exc:
        raise Invalid(f"{where}: the frame {exc}") from None
    stated = (entry["seq"], entry["type"], entry["crc"])
    if stated != (seq, f"0x{kind:02x}", f"0x{crc:04x}"):
        raise Invalid(f"{where}: the frame's SEQ, TYPE or CRC is not the one stated")
    return seq, kind, payload


def card_text(code):
    return "?" if code == UNRECOGNISED else RANKS[code >> 2] + SUITS[code & 3]


def destination(tag):
    return {COMMUNITY_TAG: "community", DEALER_TAG: "dealer"}.get(tag, f"seat {tag}")


def check_exchange(exchange, n):
    """One DEAL exchange: (request SEQ, destination, the reply's cards)."""
    where = f"deal packet {n + 1}"
    frames = [
        (f["dir"], *check_frame(f, f"{where}, frame {i + 1}"))
        for i, f in enumerate(exchange["frames"])
    ]
    if not frames or frames[0][0] != "tx" or frames[0][2] != DEAL:
        raise Invalid(f"{where}: its first frame is not the DEAL request")
    _, seq, _, request = frames[0]
    replies = [p for d, s, k, p in frames if d == "rx" and k == DEAL_REPLY]
    for direction, s, kind, _ in frames:
        allowed = (DEAL,) if direction == "tx" else (*ANSWERS, DEAL_REPLY)
        if s != seq or kind not in allowed:
            raise Invalid(
                f"{where}: a frame (SEQ {s}, TYPE 0x{kind:02x}) is not of the "
                f"exchange of the DEAL with SEQ {seq}"
            )
    if len(replies) != 1 or replies[0].hex() != exchange["payload"]:
        raise Invalid(f"{where}: its frames do not hold the reply the bundle states")
    reply = replies[0]
    if len(reply) < 4 or reply[1] != request[1] or len(reply) != 4 + 2 * reply[3]:
        raise Invalid(f"{where}: the reply does not answer the request's destination")
    return seq, destination(reply[1]), [card_text(c) for c in reply[4::2]]


def normal(card):
    return card[:-1].replace("10", "T").upper() + card[-1:].lower()


def recorded_cards(record):
    cards = {"community": record.get("community", []), "dealer": record.get("dealer", [])}
    for seat in record.get("seats", []):
        cards[f"seat {seat['seat']}"] = seat["cards"]
    return {k: [normal(c) for c in v] for k, v in cards.items() if v}


def check_frames(bundle):
    """The shuffler's frames; returns how many were checked (0: the bundle has none, or is
    of format 1, which kept each deal reply's payload without its frames)."""
    version = bundle.get("format", 1)
    if version < 2:
        return 0
    deals = bundle.get("deal_packets") or []
    checks = bundle.get("deck_checks") or {}
    count = 0
    for n, entry in enumerate(checks.get("before", []) + checks.get("after", [])):
        for i, f in enumerate(entry["frames"]):
            check_frame(f, f"deck check {n + 1}, frame {i + 1}")
        count += len(entry["frames"])
    packets, previous, turn = [], None, 0
    for n, exchange in enumerate(deals):
        seq, to, cards = check_exchange(exchange, n)
        if previous is not None:  # the host numbers its requests 1..255 and round again
            step = (seq - previous) % 255
            turn += step
            if step == 0 or turn >= 255:
                raise Invalid(f"deal packet {n + 1}: its SEQ {seq} does not follow {previous}")
        previous = seq
        packets.append((to, [normal(c) for c in cards]))
        count += len(exchange["frames"])
    record = bundle.get("round_record")
    if deals and record is not None and "shoe" not in record:
        wanted = recorded_cards(record)
        if version >= 3:
            replacements = bundle["replacements"]
            dealt = replay(packets, wanted, replacements)
            replaced = {place(r["destination"]) for r in replacements}
        else:  # before the bundle carried its replacements: every packet appended
            dealt, replaced = {}, None
            for to, cards in packets:
                dealt.setdefault(to, []).extend(cards)
        for to in sorted(set(dealt) | set(wanted)):
            if dealt.get(to, []) != wanted.get(to, []):
                raise Invalid(mismatch(to, dealt.get(to, []), wanted.get(to, []), replaced))
    return count


def mismatch(to, dealt, wanted, replaced):
    """Why ``to``'s cards are not the record's. ``replaced``: the places the bundle's
    replacements name, None for a bundle of format 2 (which names none): one that deals
    more cards than the record is told that replaced cards need format 3."""
    if replaced is not None and to in replaced:
        frames = "the frames, replacements in their positions,"
    else:
        frames = "the frames"
    text = (
        f"{to}: {frames} deal {' '.join(dealt) or 'nothing'}"
        f", the round record has {' '.join(wanted) or 'nothing'}"
    )
    if replaced is None and len(dealt) > len(wanted):
        text += (
            " (more cards than the record: exposed cards replaced in the round (MD-X1, MD-X2,"
            " MD-X3) are replayed from bundle format 3 on, which names the replacements; make"
            " the bundle again with croupier evidence make)"
        )
    return text


def place(name):
    """A replacement's destination (the table's ``dealer``, ``community``, ``seat:N``) as
    the frames name it."""
    if not isinstance(name, str):
        raise Invalid(f"a replacement's destination {shown(name)} is not a place of the table")
    return "seat " + name[5:] if name.startswith("seat:") else name


def replay(packets, wanted, replacements):
    """The cards each destination holds as the table placed them (``HandFormingDeal._cards``
    in controller/table/deals.py): the packets of the deal's plan appended in order, then
    the k-th packet after them in the positions of the k-th replacement, position by
    position. The plan is the first packets that deal every place of the round record its
    cards (UTH-11: one packet a place); a replacement comes only after the deal is verified.
    ``packets``: (destination, cards) in order. Invalid when the packets after the plan are
    not one per replacement, each to its place with as many cards as positions."""
    if not isinstance(replacements, list):
        raise Invalid("the bundle's replacements are not a list")
    held, planned = {}, 0
    while planned < len(packets) and any(
        len(held.get(to, [])) < len(cards) for to, cards in wanted.items()
    ):
        to, cards = packets[planned]
        held.setdefault(to, []).extend(cards)
        planned += 1
    extra = packets[planned:]
    if len(extra) != len(replacements):
        raise Invalid(
            f"{len(extra)} deal packet(s) after the {planned} of the deal's plan, "
            f"{len(replacements)} replacement(s) of exposed cards named: "
            "each replacement is dealt by one packet"
        )
    for n, replacement in enumerate(replacements):  # no zip(strict=): Python 3.8
        to, cards = extra[n]
        where = f"deal packet {planned + n + 1} (replacement {n + 1})"
        if not isinstance(replacement, dict):
            raise Invalid(f"replacement {n + 1} is not an object")
        into, positions = place(replacement["destination"]), replacement["positions"]
        if to != into:
            raise Invalid(f"{where}: deals to the {to}, the replacement is of {into} cards")
        hand = held.get(into, [])
        if (
            not isinstance(positions, list)
            or not positions
            or not all(type(p) is int and 1 <= p <= len(hand) for p in positions)
            or len(set(positions)) != len(positions)
        ):
            raise Invalid(
                f"replacement {n + 1}: positions {shown(positions)} are not distinct cards "
                f"of the {len(hand)} the {into} holds"
            )
        if len(cards) != len(positions):
            raise Invalid(
                f"{where}: deals {len(cards)} card(s) to the {into}, "
                f"the replacement names {len(positions)} position(s) {positions}"
            )
        for k, card in enumerate(cards):
            hand[positions[k] - 1] = card
    return held


def journal_replacements(bundle):
    """The replacements the journal entries say (``replacements`` in controller/books/
    evidence.py, written out): each ``transition`` of the round back to
    ``dealing`` naming positions (an exposure taken, MD-X1..X3), in journal order."""
    found = []
    for e in bundle["journal"]["entries"]:
        if e["kind"] != "transition":
            continue
        data = load_json(e["data"])
        if (
            data.get("to") == "dealing"
            and data.get("round") == bundle["round"]
            and "positions" in data
        ):
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


def check_replacements(bundle):
    """From format 3: the bundle's ``replacements`` are the journal's, one for one; returns
    how many."""
    if bundle.get("format", 1) < 3:
        return 0
    named, journaled = bundle["replacements"], journal_replacements(bundle)
    if named != journaled:
        if not isinstance(named, list) or len(named) != len(journaled):
            raise Invalid(
                f"the bundle names {len(named) if isinstance(named, list) else 'no list of'} "
                f"replacement(s), the journal's transitions {len(journaled)}"
            )
        n = next(i for i, one in enumerate(named) if one != journaled[i])
        raise Invalid(
            f"replacement {n + 1} is not the journal's (entry {journaled[n]['seq']}: "
            f"{shown(journaled[n]['destination'])} positions {shown(journaled[n]['positions'])}, "
            f"{shown(journaled[n]['rule'])})"
        )
    return len(named)


# --- the rules the round was played under (docs/ledger.md, "The rules in the journal") -----
# rules_sha256 is the SHA-256 of the rules record's canonical JSON (``canonical`` below).
# Written out here deliberately, not imported: this file imports nothing of Croupier. The
# ledger's own definition is ``rules_digest`` in controller/books/ledger/rules.py (with the
# journal's ``canonical``); tests/regulatory/test_evidence_rules.py holds the two equal on
# random records.
RULES_RECORD_KEYS = ("profile", "limits")


def rules_digest(rules):
    """``rules_sha256`` of a rules record (its other keys, ``seq``, ``wall``..., left out)."""
    record = {key: rules.get(key) for key in RULES_RECORD_KEYS}
    return hashlib.sha256(canonical(record)).hexdigest()


def check_rules(bundle):
    """The rules record's digest recomputed, and the same as the power-up's before the
    round; returns what the last line says of them."""
    rules = bundle.get("rules")
    at_power_up = (bundle.get("software") or {}).get("at_power_up") or {}
    named = at_power_up.get("rules_sha256")
    if rules is None:
        if named is not None:
            raise Invalid(
                f"the power-up before the round names rules {shown(named)} "
                "but the bundle carries no rules record"
            )
        return "no rules journaled for the round (played before the table journaled them)"
    if not isinstance(rules, dict):
        raise Invalid("the rules record is not an object")
    digest = rules_digest(rules)
    if rules.get("rules_sha256") != digest:
        raise Invalid(
            f"the rules record's rules_sha256 {shown(rules.get('rules_sha256'))} is not the "
            f"digest of its profile and limits ({digest})"
        )
    if named is None:  # a start without rules (not the daemon's): nothing to compare
        return f"rules {digest[:16]} recomputed (the power-up before the round named none)"
    if named != digest:
        raise Invalid(
            f"the power-up before the round names rules {shown(named)}, "
            f"the bundle's rules record is {digest}"
        )
    return f"rules {digest[:16]} recomputed, as the power-up before the round named them"


# --- the bundle -----------------------------------------------------------------------------


class Invalid(Exception):
    pass


# controller.validation.DOCUMENT_LIMITS, written out (this file imports nothing of Croupier;
# tests/regulatory/test_evidence.py holds them equal)
MAX_BYTES = 1024 * 1024
MAX_DEPTH = 32
MAX_NUMBER_CHARS = 40
INT_RANGE = (-(2**63), 2**63 - 1)
BOM = b"\xef\xbb\xbf"


def _number(kind):
    def convert(text):
        value = kind(text) if len(text) <= MAX_NUMBER_CHARS else None
        if value is None or value - value != 0:  # too long to read, or not finite (1e999)
            shown_text = text[:20] + ("..." if len(text) > 20 else "")
            raise Invalid(f"the number {shown_text} is not allowed (too long, or not finite)")
        return value

    return convert


def _not_a_number(text):
    raise Invalid(f"{text} is not a JSON number")  # NaN, Infinity, -Infinity


def _check_limits(value):
    low, high = INT_RANGE
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise Invalid(f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            if any("\x00" in key for key in item):
                raise Invalid("a key with a NUL character")
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
        elif isinstance(item, str) and "\x00" in item:  # as controller.validation refuses it
            raise Invalid("a text with a NUL character (\\u0000)")
        elif isinstance(item, int) and not isinstance(item, bool) and not low <= item <= high:
            raise Invalid(f"an integer outside {low}..{high}")


def _unique_keys(pairs):
    """An object whose keys are each written once: json keeps the last of a repeated key,
    another reader (or a person) the first, so the bundle would say two things."""
    data = dict(pairs)
    if len(data) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise Invalid(
                    f"duplicate key {shown_key(key)} in the document: "
                    "ambiguous (a reader may take either value)"
                )
            seen.add(key)
    return data


def load_json(data):
    """JSON text or bytes from the bundle, within the limits above, each key of an object
    written once; Invalid naming the problem."""
    if len(data) > MAX_BYTES:
        raise Invalid(f"larger than {MAX_BYTES} bytes")
    if isinstance(data, bytes):
        try:
            data = (
                data[len(BOM) :].decode("utf-8") if data.startswith(BOM) else data.decode("utf-8")
            )
        except UnicodeDecodeError as exc:
            raise Invalid(f"not UTF-8 text (byte {exc.start})") from None
    try:
        value = json.loads(
            data,
            parse_int=_number(int),
            parse_float=_number(float),
            parse_constant=_not_a_number,
            object_pairs_hook=_unique_keys,
        )
    except RecursionError:  # the parser recurses once a level: far past MAX_DEPTH
        raise Invalid(f"nested deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:
        raise Invalid(f"not valid JSON: {exc}") from None
    _check_limits(value)
    return value


def shown(value):
    """A value from the bundle as a message shows it: a plain word as it is, anything else
    escaped (repr) and shortened."""
    plain = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_.-"
    if isinstance(value, str) and 0 < len(value) <= 64 and all(c in plain for c in value):
        return value
    text = repr(value)
    return text if len(text) <= 80 else text[:60] + "...(" + format(len(text), ",") + " characters)"


def shown_key(name):
    """A key of the bundle as a message quotes it: 'name', escaped when it is not plain."""
    text = shown(name)
    return "'" + text + "'" if text == name else text


def one_line(text):
    """A message on one line, every character that is not printable escaped."""
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= 1000 else text[:1000] + "..."


def public_key_from_pem(text):
    body = "".join(line for line in text.splitlines() if line and not line.startswith("-----"))
    der = base64.b64decode(body)
    if len(der) != 44 or not der.startswith(ED25519_SPKI):
        raise Invalid("the public key is not an Ed25519 key in PEM form")
    return der[12:]


def canonical(value):
    """The journal's one JSON spelling (``canonical`` in controller/books/ledger/journal.py,
    written out: see ``rules_digest``), in UTF-8: what is signed, and what rules_sha256 is
    the SHA-256 of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# The keys of a signed bundle and of its signature: anything else would be read by someone
# but covered by no signature
SIGNED_KEYS = ("report", "signature")
SIGNATURE_KEYS = ("algorithm", "key_id", "value")


def check_keys(found, allowed, where):
    """Invalid when ``found`` has a key outside ``allowed`` or lacks one of them."""
    names = ['"' + key + '"' for key in allowed]
    holds = ", ".join(names[:-1]) + " and " + names[-1]
    extra = [key for key in found if key not in allowed]
    if extra:
        more = " (and " + str(len(extra) - 1) + " more)" if len(extra) > 1 else ""
        raise Invalid(
            f"unsigned key {shown_key(extra[0])}{more} {where} (only {holds} belong there): "
            "no signature covers it"
        )
    missing = [key for key in allowed if key not in found]
    if missing:
        raise Invalid(f'no "{missing[0]}" {where} (it holds {holds})')


def check_signature(signed, public):
    try:
        bundle, sig = signed["report"], signed["signature"]
        if not isinstance(bundle, dict) or not isinstance(sig, dict):
            raise TypeError
    except (KeyError, TypeError):
        raise Invalid('not a signed bundle: expected {"report": ..., "signature": ...}') from None
    check_keys(signed, SIGNED_KEYS, "at the top of the document")
    check_keys(sig, SIGNATURE_KEYS, "in the signature")
    try:
        value = base64.b64decode(sig["value"], validate=True)
    except (TypeError, ValueError):
        raise Invalid(f"the signature's value is not base64 text: {shown(sig['value'])}") from None
    key_id = hashlib.sha256(public).hexdigest()[:16]
    if sig.get("algorithm") != "ed25519":
        raise Invalid(f"unsupported signature algorithm {shown(sig.get('algorithm'))}")
    if sig.get("key_id") != key_id:
        raise Invalid(
            f"signed with key {shown(sig.get('key_id'))}, not with the key given ({key_id})"
        )
    if not ed25519_verify(public, CONTEXT + canonical(bundle), value):
        raise Invalid("the signature does not match: the bundle was changed after signing")
    return bundle


def entry_hash(e):
    text = "\n".join([e["prev_hash"], str(e["seq"]), e["kind"], e["mono"], e["wall"], e["data"]])
    return hashlib.sha256(text.encode()).hexdigest()


def check_chain(bundle):
    journal = bundle["journal"]
    entries = journal["entries"]
    if not entries:
        raise Invalid("the bundle holds no journal entries")
    keyed_from = journal.get("keyed_from")
    for n, e in enumerate(entries):
        keyed = keyed_from is not None and e["seq"] >= keyed_from  # HMAC: needs the table's key
        if not keyed and entry_hash(e) != e["hash"]:
            raise Invalid(f"journal entry {e['seq']} does not match its hash")
        if n and (
            e["seq"] != entries[n - 1]["seq"] + 1 or e["prev_hash"] != entries[n - 1]["hash"]
        ):
            raise Invalid(f"journal entry {e['seq']} does not link to the entry before it")
    by_seq = {e["seq"]: e for e in entries}
    opened, closed = by_seq.get(journal["opened"]), by_seq.get(journal["closed"])
    if opened is None or closed is None:
        raise Invalid("the round's opening or closing entry is missing")
    for e, kinds in ((opened, ("round.opened",)), (closed, ("round.settled", "round.voided"))):
        if e["kind"] not in kinds or load_json(e["data"]).get("round") != bundle["round"]:
            raise Invalid(
                f"journal entry {e['seq']} is not the {kinds[0]} of round {bundle['round']}"
            )
    stakes = load_json(opened["data"])["stakes"]
    ledger_stakes = bundle["ledger_round"]["stakes"]
    for seat, wagers in stakes.items():
        if any(ledger_stakes.get(seat, {}).get(w) != a for w, a in wagers.items()):
            raise Invalid(f"seat {seat}: the ledger's stakes differ from the journal's")
    return len(entries)


class Unusable(Exception):
    """A public key or a bundle file that cannot be read: says nothing of the bundle."""


def verdict(bundle_name, key_name):
    """The verdict on the bundle in file ``bundle_name`` (``-``: standard input) under the
    public key in ``key_name``: ``{"bundle", "valid": True, "round", "table",
    "journal_entries", "shuffler_frames", "replacements", "rules"}``, or ``{"bundle",
    "valid": False, "reason"}``. Raises Unusable when the key or the file cannot be read."""
    try:  # a key that cannot be used says nothing about the bundle: not "NOT VALID"
        with open(key_name, encoding="ascii") as f:
            public = public_key_from_pem(f.read(64 * 1024))  # a PEM key is 113 bytes
    except UnicodeDecodeError as exc:  # not "'ascii' codec can't decode byte 0xff ..."
        reason = f"not a PEM key (byte {exc.start} is not ASCII text)"
        raise Unusable(f"{key_name}: cannot use this public key: {reason}") from None
    except (OSError, ValueError, Invalid) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise Unusable(f"{key_name}: cannot use this public key: {reason}") from None
    name = "(stdin)" if bundle_name == "-" else bundle_name
    try:
        if bundle_name == "-":
            text = sys.stdin.buffer.read(MAX_BYTES + 1)
        else:
            with open(bundle_name, "rb") as f:
                text = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise Unusable(f"{name}: cannot read the bundle: {exc.strerror or exc}") from None
    try:
        bundle = check_signature(load_json(text), public)
        count = check_chain(bundle)
        frames = check_frames(bundle)
        replaced = check_replacements(bundle)
        rules = check_rules(bundle)
    except KeyError as exc:
        reason = f"the field {shown(exc.args[0])} is missing"
        return {"bundle": name, "valid": False, "reason": one_line(reason)}
    except (ValueError, TypeError, AttributeError, IndexError, Invalid) as exc:
        return {"bundle": name, "valid": False, "reason": one_line(str(exc))}
    return {
        "bundle": name,
        "valid": True,
        "round": bundle["round"],
        "table": bundle["table"],
        "journal_entries": count,
        "shuffler_frames": frames,
        "replacements": replaced,
        "rules": rules,
    }


def verdict_text(found):
    """The verdict as one line, as main prints it."""
    name = found["bundle"]
    if not found["valid"]:
        return one_line(f"{name}: NOT VALID: {found['reason']}")
    replaced = found["replacements"]
    return one_line(
        f"{name}: OK: round {shown(found['round'])} of table {shown(found['table'])}, "
        f"signature and {found['journal_entries']} journal entries and "
        f"{found['shuffler_frames']} shuffler frames checked"
        + (f" (with {replaced} replacement(s) of exposed cards)" if replaced else "")
        + "; "
        + found["rules"]
    )


def main(argv):
    if len(argv) != 3:
        print("usage: evidence_verify.py BUNDLE.json PUBLIC_KEY.pem", file=sys.stderr)
        return 2
    try:
        found = verdict(argv[1], argv[2])
    except Unusable as exc:
        print(exc, file=sys.stderr)
        return 1
    print(verdict_text(found))
    return 0 if found["valid"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
