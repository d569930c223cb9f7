"""The simulated table as text: what ``make demo`` shows in the terminal (pure).

:class:`Snapshot` is everything the rig saw of the table at one moment (the daemon's status,
the sign's frame read from the control socket, the lamps on the rig's pins, the last round
closed); :func:`render` lays it out in at most 80 columns:

- the sign as it would look (each LED of the 64x8 matrix, or the seven-segment digits), and
  what it reads;
- each seat: the stake on its sensor, the sensor's state (an excluded seat: why), its lamp;
- the round's state, the conditions keeping the table closed, the status lamps;
- the last round closed: settled or voided with its rule, and each seat's payments;
- the rig's last actions, and the keys.

On a terminal shorter than the whole picture, :func:`render` leaves out what is needed least
(``height``); below 80x24 (:data:`MIN_WIDTH`, :data:`MIN_HEIGHT`) the live view shows what
size it needs instead (:func:`for_terminal`, :func:`too_small`), and it redraws on every resize
(:mod:`controller.rig.demo`).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from controller.texts import pool_title
from display.geometry import SignFrame
from display.money import currency, format_money
from display.preview import art

WIDTH = 80
MIN_WIDTH, MIN_HEIGHT = 80, 24  # the smallest terminal the live view is drawn in (issue 17)
LABEL, CELL = 8, 10  # the seats' table: its row labels, then six columns of CELL + 1
# the sensor states, each in a seat's column: the longest, deliberately shortened (the stake
# row above says whose stake it is); an excluded seat shows why instead (short_reason)
SENSOR_WORDS = {"stake placed": "placed"}
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
    ``croupier meters --pool`` takes), with the wager that feeds it, as ``croupier status``
    names it; ``no pool`` without."""
    wagers = status.get("pool_wagers", {})
    return (
        ", ".join(
            f"{pool_title(name, wagers.get(name))} {money(amount, code)}"
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


def excluded_reason(reason: str | None) -> str:
    """The daemon's reason for an exclusion without the event's frame: ``seat 2: STUCK sensor
    (stake held across 1 round(s)) -> excluded`` -> ``STUCK sensor (stake held across 1
    round(s))``; after a restart the sensor core's own word (``stuck``, ``chatter``)."""
    text = (reason or "").strip()
    if text.startswith("seat ") and ": " in text:
        text = text.split(": ", 1)[1]
    return text.removesuffix("-> excluded").strip()


def short_reason(reason: str | None) -> str:
    """An exclusion in one word for the seat's column: STUCK, CHATTER (EXCLUDED when the
    daemon gave no reason)."""
    words = excluded_reason(reason).split()
    return words[0].upper()[:CELL] if words else "EXCLUDED"


def _sensor_word(seat: str, info: dict[str, Any], sensors: dict[str, str]) -> str:
    if info.get("excluded"):
        return short_reason(info["excluded"])
    state = sensors.get(seat, "?")
    return SENSOR_WORDS.get(state, state)[:CELL]


def _seats(snap: Snapshot) -> list[str]:
    status = snap.status
    seats = status.get("seats", {})
    sensors = status.get("sensors", {})
    numbers = sorted(seats, key=int)

    def row(label: str, cells: list[str]) -> str:
        return f"{label:<{LABEL}}" + "".join(f"{cell:>{CELL + 1}}" for cell in cells)

    return [
        row("seat", numbers),
        row("stake", ["ON" if seats[n]["stake"] else "-" for n in numbers]),
        row("sensor", [_sensor_word(n, seats[n], sensors) for n in numbers]),
        row("lamp", [snap.lamps.get(f"seat{n}", "?") for n in numbers]),
    ]


def _exclusions(snap: Snapshot) -> list[str]:
    """One line for each reason seats are excluded, in the daemon's words, and what clears
    it: ``seats 2, 3 excluded: STUCK sensor (stake held across 1 round(s)); x clears``."""
    by_reason: dict[str, list[str]] = {}
    for seat, info in sorted(snap.status.get("seats", {}).items(), key=lambda x: int(x[0])):
        if info.get("excluded"):
            by_reason.setdefault(excluded_reason(info["excluded"]), []).append(seat)
    lines = []
    for reason, seats in by_reason.items():
        which = f"seat {seats[0]}" if len(seats) == 1 else f"seats {', '.join(seats)}"
        lines.append(f"{which} excluded: {reason or 'sensor fault'}; x clears"[:WIDTH])
    return lines


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


def too_small(width: int, height: int) -> list[str] | None:
    """What a terminal below :data:`MIN_WIDTH` x :data:`MIN_HEIGHT` shows instead of the table
    (a cut-off view would hide seats without saying so); ``None`` for a terminal big enough.
    The keys still act: q quits; the view comes back when the terminal is made larger."""
    if width >= MIN_WIDTH and height >= MIN_HEIGHT:
        return None
    notice = [
        f"terminal too small: {width}x{height}",
        f"the live view needs at least {MIN_WIDTH}x{MIN_HEIGHT}:",
        "make the terminal larger (q quits)",
    ]
    usable = max(width - 1, 1)  # the live view leaves the last column free (for_terminal)
    return [piece for line in notice for piece in textwrap.wrap(line, usable)][:height]


def for_terminal(snap: Snapshot, *, width: int, height: int, lit: str = "#") -> list[str]:
    """What the live view draws in a terminal of ``width`` x ``height``: the table fitted to
    it (:func:`render`), or the notice of :func:`too_small`. The last column is left free:
    curses cannot write the last cell of the last line without scrolling."""
    notice = too_small(width, height)
    if notice is not None:
        return [line[: width - 1] for line in notice]
    return render(snap, lit=lit, width=width - 1, height=height)


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
        *_exclusions(snap),
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
