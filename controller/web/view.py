"""What the pages show, built from the daemon's answers (pure: dicts in, dicts out).

Card-free by construction: only the fields named here are copied from the daemon's answers,
never a whole answer, and every free text (a condition's detail, a verdict's reason, an
alert's detail) passes :func:`card_free`, which masks anything in card notation (a deck check
names the missing cards, for one). A hit keeps its hand's category (``royal-flush``), never
the cards the ledger records beside it. Amounts are integer minor units, shown as money.
"""

from __future__ import annotations

import re
from typing import Any

from display.money import currency
from display.sign_amount import spellings

# a card as the engine writes it (controller.engine.cards: rank 2-9 T J Q K A or 10, suit cdhs)
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[cdhs](?![A-Za-z0-9])")
MASK = "[card]"
MAX_TEXT = 200  # characters of any free text shown


def card_free(text: Any) -> str:
    """``text`` as a string with every card masked, cut to :data:`MAX_TEXT` characters."""
    return CARD.sub(MASK, str(text))[:MAX_TEXT]


def money(amount: int, code: str) -> str:
    """``€12,345.67`` (the sign's first spelling; display.money)."""
    return next(iter(spellings(int(amount), currency(code))))[0]


def _int(value: Any, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def table_view(
    status: dict[str, Any],
    alerts: list[dict[str, Any]],
    *,
    code: str,
    audit: dict[str, Any] | None = None,
    hits: list[dict[str, Any]] | None = None,
    pace: float | None = None,
    sign: str | None = None,
) -> dict[str, Any]:
    """The table page's model. ``status`` and ``alerts`` are the daemon's answers; ``audit``
    its shuffle audit; ``hits`` ledger hit rows; ``pace`` rounds per hour; ``sign`` the
    current sign frame's fingerprint (the picture is served apart)."""
    seats = []
    sensors = status.get("sensors") or {}
    lamps = status.get("lamps") or {}
    for seat, info in sorted((status.get("seats") or {}).items(), key=lambda kv: int(kv[0])):
        seats.append(
            {
                "seat": int(seat),
                "stake": bool(info.get("stake")),
                "locked": bool(info.get("locked")),
                "in_play": bool(info.get("in_play")),
                "excluded": card_free(info["excluded"]) if info.get("excluded") else None,
                "sensor": card_free(sensors.get(str(seat), "")) or None,
                "lamp": bool(lamps.get(f"seat{seat}", lamps.get(str(seat), False))),
            }
        )
    verdict = status.get("verdict")
    shuffler = status.get("shuffler") or {}
    return {
        "table": card_free(status.get("table", "")),
        "profile": card_free(status.get("profile", "")),
        "state": card_free(status.get("state", "")),
        "round": card_free(status["round"]) if status.get("round") else None,
        "dealt": _int(status.get("dealt")),
        "conditions": {
            card_free(k): card_free(v) for k, v in (status.get("conditions") or {}).items()
        },
        "seats": seats,
        "lamps": {card_free(k): bool(v) for k, v in lamps.items() if not k.startswith("seat")},
        "verdict": (
            {
                "status": card_free(verdict.get("status", "")),
                "rule": card_free(verdict["rule"]) if verdict.get("rule") else None,
                "reason": card_free(verdict.get("reason") or ""),
            }
            if isinstance(verdict, dict)
            else None
        ),
        "pools": [
            {"pool": card_free(name), "amount": money(_int(amount), code)}
            for name, amount in sorted((status.get("pools") or {}).items())
        ],
        "shuffler": {
            "link": "up" if shuffler.get("link") == "up" else "down",
            "model": card_free(shuffler.get("model") or "") or None,
            "firmware": card_free(shuffler.get("firmware") or "") or None,
        },
        "audit": (
            {
                "shuffles": _int(audit.get("shuffles")),
                "alarm": bool(audit.get("alarm")),
                "ready": any(t.get("ready") for t in audit.get("tests", [])),
            }
            if audit
            else None
        ),
        "alerts": [alert_view(a) for a in alerts],
        "hits": [hit_view(h, code) for h in (hits or [])],
        "pace": round(pace, 1) if pace is not None else None,
        "sign": sign,
    }


def alert_view(alert: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": _int(alert.get("id")),
        "kind": card_free(alert.get("kind", "")),
        "subject": card_free(alert.get("subject", "")),
        "detail": card_free(alert.get("detail", "")),
        "state": card_free(alert.get("state", "")),
        "raised": float(alert.get("raised") or 0.0),
        "acknowledged_by": card_free(alert["acknowledged_by"])
        if alert.get("acknowledged_by")
        else None,
    }


def hit_view(hit: dict[str, Any], code: str) -> dict[str, Any]:
    """A hit: the hand's category only (the ledger keeps the cards after it)."""
    hand = str(hit.get("hand") or "").split()
    return {
        "round": card_free(hit.get("round_id", "")),
        "seat": _int(hit.get("seat")),
        "pool": card_free(hit.get("pool", "")),
        "line": card_free(hit.get("line") or ""),
        "hand": card_free(hand[0]) if hand else "",
        "amount": money(_int(hit.get("amount")), code),
        "wall": card_free(hit.get("wall", "")),
    }


def tile_view(name: str, online: bool, page: dict[str, Any] | None, age: float | None) -> dict:
    """One table on the floor page."""
    if page is None:
        return {"name": name, "online": online, "state": "unknown", "alerts": 0, "age": age}
    unacked = [a for a in page["alerts"] if a["state"] != "acknowledged"]
    return {
        "name": name,
        "table": page["table"],
        "online": online,
        "state": page["state"] if online else "offline",
        "round": page["round"],
        "alerts": len(unacked),
        "alert_kinds": sorted({a["kind"] for a in unacked}),
        "pools": page["pools"],
        "pace": page["pace"],
        "age": age,
    }
