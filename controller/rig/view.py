"""The simulated table as text: what ``make demo`` shows in the terminal (pure).

:class:`Snapshot` is everything the rig saw of the table at one moment (the daemon's status,
the sign's frame read from the control socket, the lamps on the rig's pins, the last round
closed); :func:`render` lays it out in at most 80 columns:

- the sign as it would look (each LED of the 64x8 matrix, or the seven-segment digits), and
  what it reads;
- each seat: the stake on its sensor, the sensor's state, its lamp;
- the round's state, the conditions keeping the table closed, the status lamps;
- the last round closed: settled or voided with its rule, and each seat's payments;
- the rig's last actions, and the keys.

On a terminal shorter than the whole picture, :func:`render` leaves out what is needed least
(``height``); the live view (:mod:`controller.rig.live_screen`) redraws on every resize.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from display.geometry import SignFrame
from display.money import currency, format_money
from display.preview import art

WIDTH = 80
KEYS = (
    "keys: 1-6 stake on/off, l LOCK, c CONFIRM, f arm a fault, r a royal, a autoplay,",
    "      j jackpot ack, t reset the shuffler, x clear seats, k kill -9, q quit",
)


@dataclass
class Snapshot:
    status: dict[str, Any]
    frame: SignFrame | None = None
    sign_text: str | None = None
    lamps: dict[str, str] = field(default_factory=dict)  # lamp -> on / off / blink
    last: dict[str, Any] | None = None  # round.last
    currency: str = "EUR"
    armed: str = ""  # the fault or deck the rig will use in the next round
    autoplay: str = ""  # e.g. "on, round 12 of 20"
    messages: list[str] = field(default_factory=list)  # the rig's last actions


def money(amount: int, code: str, *, with_code: bool = True) -> str:
    return format_money(amount, currency(code), code=with_code)


def pools_text(status: dict[str, Any], code: str) -> str:
    """``pool main (progressive wager) EUR 5,000.45``: each pool by its ledger name (what
    ``croupier meters --pool`` takes), with the wager that feeds it; ``none`` without."""
    wagers = status.get("pool_wagers", {})
    return (
        ", ".join(
            f"pool {name}"
            + (f" ({wagers[name]} wager)" if wagers.get(name, name) != name else "")
            + f" {money(amount, code)}"
            for name, amount in status["pools"].items()
        )
        or "no pool"
    )


def sign_lines(frame: SignFrame | None, lit: str = "#") -> list[str]:
    if frame is None:
        return ["(no sign frame yet)"]
    rows = art(frame)
    if frame.kind == "matrix":
        rows = [row.replace("#", lit).replace(".", " ") for row in rows]
    width = max(len(r) for r in rows)
    return ["+" + "-" * width + "+", *(f"|{r:<{width}}|" for r in rows), "+" + "-" * width + "+"]


def _seats(snap: Snapshot) -> list[str]:
    status = snap.status
    seats = status.get("seats", {})
    sensors = status.get("sensors", {})
    numbers = sorted(seats, key=int)
    head = "seat      " + "".join(f"{n:>10}" for n in numbers)
    stake = "stake     " + "".join(f"{'ON' if seats[n]['stake'] else '-':>10}" for n in numbers)
    sensor = "sensor    " + "".join(f"{sensors.get(n, '?')[:9]:>10}" for n in numbers)
    lamp = "lamp      " + "".join(f"{snap.lamps.get(f'seat{n}', '?'):>10}" for n in numbers)
    return [head, stake, sensor, lamp]


def _wager(name: str, w: dict[str, Any], code: str) -> str:
    if w["result"] == "lose":
        return f"{name} lost"
    if w["result"] == "push":
        return f"{name} push"
    why = w.get("line") or w["rule"]
    return f"{name} {money(w['paid'], code)} ({why})"  # the currency, as the paid total has


def wrapped(head: str, items: list[str], indent: int = 4) -> list[str]:
    """``head`` then the items separated by commas, over as many lines as it takes."""
    lines, line = [], head
    for n, item in enumerate(items):
        piece = item + ("," if n < len(items) - 1 else "")
        if len(line) + 1 + len(piece) > WIDTH and line.strip():
            lines.append(line)
            line = " " * indent + piece
        else:
            line = f"{line} {piece}" if line else piece
    return [*lines, line]


def _last_round(snap: Snapshot) -> list[str]:
    last, code = snap.last, snap.currency
    if last is None:
        return ["last round: none yet"]
    head = f"last round {last['round_id']}: {last['state']}"
    by_seat = sorted(last["paid"].items(), key=lambda x: int(x[0]))
    if last["state"] == "voided":
        head += f" ({last['rule']}: {last['cause']})"
        returned = [f"seat {s} {money(sum(w.values()), code)}" for s, w in by_seat]
        return [head[:WIDTH], *wrapped("  stakes returned:", returned or ["none"])]
    lines = [head + f", paid {money(last['paid_total'] or 0, code)}"]
    dealer = last.get("dealer")
    if dealer:
        q = {True: ", qualifies", False: ", does not qualify"}.get(dealer.get("qualifies"), "")
        lines.append(f"  dealer: {dealer.get('hand')}{q}")
    for seat in last.get("seats", []):
        wagers = [_wager(n, w, code) for n, w in seat["wagers"].items()]
        lines += wrapped(f"  seat {seat['seat']} {seat.get('hand') or ''}:", wagers)
    if "seats" not in last:  # settled before this daemon started: the ledger's amounts
        for s, w in by_seat:
            lines += wrapped(f"  seat {s}:", [f"{k} {money(v, code)}" for k, v in w.items()])
    return lines


def render(
    snap: Snapshot,
    *,
    lit: str = "#",
    width: int = WIDTH,
    height: int | None = None,
    keys: bool = True,
) -> list[str]:
    """The picture of the table, at most ``width`` columns and, with ``height``, at most
    ``height`` lines: on a short terminal the blank separators go first, then the parts a
    technician needs least (the sign's LEDs, the last round's detail, the rig's messages), so
    that the state, the sign's amount, the seats and the keys stay on screen. ``keys``: the
    keyboard's legend (False where nobody types: the demo without a terminal)."""
    sections = _sections(snap, lit)
    if not keys:
        sections = [(keep, part) for keep, part in sections if keep != KEEP_KEYS]
    if height is not None:
        sections = _fit(sections, height)
    lines = [line for _, part in sections for line in part]
    return [line[:width] for line in lines[:height]]


# What stays on a short terminal: the higher, the longer it stays.
KEEP_TITLE, KEEP_TABLE, KEEP_ROUND, KEEP_KEYS, KEEP_DETAIL, KEEP_SIGN, KEEP_BLANK = (
    9,
    8,
    7,
    6,
    4,
    3,
    0,
)


def _sections(snap: Snapshot, lit: str) -> list[tuple[int, list[str]]]:
    status, code = snap.status, snap.currency
    state = status["state"].upper()
    title = f"Croupier simulated table {status['table']} ({status['profile']})"
    rnd = f"round {status['round']}" if status.get("round") else "no round in play"
    blank = (KEEP_BLANK, [""])
    status_lamps = "  ".join(f"{n} {snap.lamps.get(n, '?')}" for n in ("green", "red", "beacon"))
    shuffler = status.get("shuffler", {})
    table = [
        *_seats(snap),
        f"status lamps: {status_lamps}",
        f"shuffler: link {shuffler.get('link')}, deck {shuffler.get('deck') or '?'}"[:WIDTH],
    ]
    closed = [
        f"CLOSED by {name}: {detail}"[:WIDTH]
        for name, detail in status.get("conditions", {}).items()
    ]
    verdict = status.get("verdict")
    if verdict:
        rule = f" {verdict['rule']}" if verdict.get("rule") else ""
        closed.append(f"verdict: {verdict['status']}{rule}: {verdict['reason']}"[:WIDTH])
    last = _last_round(snap)
    nxt = []
    if snap.armed or snap.autoplay:
        nxt.append(f"next round: {snap.armed or 'no fault'}    autoplay: {snap.autoplay or 'off'}")
    return [
        (KEEP_TITLE, [f"{title}  {state}  {rnd}"[:WIDTH]]),
        blank,
        (KEEP_SIGN, sign_lines(snap.frame, lit)),
        (
            KEEP_TITLE,
            [f"the sign reads: {snap.sign_text or '...'}    {pools_text(status, code)}"[:WIDTH]],
        ),
        blank,
        (KEEP_TABLE, table),
        (KEEP_ROUND, closed),
        blank,
        (KEEP_ROUND, last[:1]),
        (KEEP_DETAIL, last[1:]),
        blank,
        (KEEP_ROUND, nxt),
        (KEEP_DETAIL, [f"> {m}"[:WIDTH] for m in snap.messages[-4:]]),
        (KEEP_KEYS, list(KEYS)),
    ]


def _fit(sections: list[tuple[int, list[str]]], height: int) -> list[tuple[int, list[str]]]:
    """Drop whole sections, the least needed first, until the rest fits ``height`` lines."""
    kept = list(sections)
    for level in sorted({keep for keep, _ in sections}):
        if sum(len(part) for _, part in kept) <= height:
            break
        kept = [(keep, part) for keep, part in kept if keep > level]
    return kept
