"""The work of ``croupier shuffler info|status|deck-check|shuffle|deal|reset --port PORT``
(controller/cli/shuffler_cmd.py): its own module, so that the command's parser (``--help``, a
usage error, ``shuffler ports``) imports neither asyncio nor the shuffler's client and codec."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from controller.cli.argtypes import UsageError
from controller.cli.output import print_json
from controller.engine.cards import card_name
from controller.errors import CroupierError
from drivers.errors import DriverError
from drivers.shuffler_client import ShufflerClient
from drivers.transport import open_transport, port_problem
from firmware_bridge.codes import ErrorCode
from firmware_bridge.errors import LinkError
from firmware_bridge.messages import (
    Capability,
    DealReply,
    DeckCheckReply,
    DeviceState,
    IdentifyReply,
    ShuffleMode,
    StatusReply,
)


def talk(args: argparse.Namespace) -> int:
    """One request to the shuffler on ``--port``; its reply printed (exit 1 when not OK)."""
    logging.getLogger("firmware_bridge").setLevel(logging.CRITICAL)  # one line, not a log
    logging.getLogger("drivers").setLevel(logging.CRITICAL)
    problem = port_problem(args.port)
    if problem:  # a value the command line got wrong: a usage error, before any opening
        raise UsageError(f"--port: {problem}")
    try:
        reply = asyncio.run(_talk(args))
    except (LinkError, DriverError, ValueError) as exc:
        raise CroupierError(f"{args.action}: {exc}") from exc
    data, text = FORMATTERS[args.action](reply)
    if args.json:
        print_json(data)
    else:
        print(text)
    return 0 if _is_ok(reply) else 1


async def _talk(args: argparse.Namespace) -> Any:
    client = ShufflerClient(open_transport(args.port, args.baud))
    await client.connect()
    try:
        calls: dict[str, Callable[[], Awaitable[Any]]] = {
            "info": client.identify,
            "status": client.status,
            "deck-check": client.deck_check,
            "shuffle": lambda: client.shuffle(ShuffleMode.SHOE if args.shoe else 0),
            "deal": lambda: client.deal(args.count, args.tag),
            "reset": lambda: client.reset(args.level),
        }
        return await calls[args.action]()
    finally:
        await client.close()


def _is_ok(reply: Any) -> bool:
    if isinstance(reply, DeckCheckReply):
        return reply.is_ok
    if isinstance(reply, DealReply):
        return reply.status == ErrorCode.OK and reply.count == reply.requested
    return True


def _card(card: int | None) -> str:
    return "??" if card is None else card_name(card)


def _tally(pairs: tuple[tuple[int, int], ...]) -> str:
    return " ".join(card_name(c) + (f" x{n}" if n > 1 else "") for c, n in pairs)


def format_identity(r: IdentifyReply) -> tuple[dict, str]:
    caps = [c.name.lower().replace("_", " ") for c in Capability if r.has(c)]
    data = {
        "model": r.model,
        "serial": r.serial,
        "firmware": r.fw_version,
        "firmware_sha256": r.fw_sha256.hex(),
        "protocol": r.protocol,
        "capabilities": caps,
        "decks": r.decks,
        "max_decks": r.max_decks,
        "boot_id": f"{r.boot_id:08x}",
    }
    text = (
        f"{r.model}, serial {r.serial}\n"
        f"firmware {r.fw_version}, sha256 {r.fw_sha256.hex()}\n"
        f"protocol {r.protocol}; {r.decks} deck(s) loaded, capacity {r.max_decks}; "
        f"capabilities: {', '.join(caps) or 'none'}"
    )
    return data, text


def format_status(r: StatusReply) -> tuple[dict, str]:
    state = DeviceState(r.state).name
    fault = ErrorCode(r.fault).name if r.fault else None
    data = {
        "state": state,
        "door_open": bool(r.door_open),
        "fault": fault,
        "cards_loaded": r.cards_loaded,
        "cards_ready": r.cards_ready,
        "packets": r.packets,
    }
    text = (
        f"state {state}, door {'OPEN' if r.door_open else 'closed'}, "
        f"{'fault ' + fault if fault else 'no fault'}; {r.cards_loaded} cards loaded, "
        f"{r.cards_ready} ready, {r.packets} packet(s) since the shuffle"
    )
    return data, text


def format_deck(r: DeckCheckReply) -> tuple[dict, str]:
    data = {
        "ok": r.is_ok,
        "expected": r.expected,
        "counted": r.counted,
        "foreign": r.foreign,
        "missing": {card_name(c): n for c, n in r.missing},
        "duplicate": {card_name(c): n for c, n in r.duplicate},
    }
    problems = []
    if r.missing:
        problems.append("missing " + _tally(r.missing))
    if r.duplicate:
        problems.append("duplicate " + _tally(r.duplicate))
    if r.foreign:
        problems.append(f"{r.foreign} foreign card(s)")
    text = f"deck check: {r.counted} cards, " + ("; ".join(problems) or "OK")
    return data, text


def format_deal(r: DealReply) -> tuple[dict, str]:
    cards = [
        {"card": None if c.card is None else card_name(c.card), "face_up": c.face_up}
        for c in r.cards
    ]
    status = ErrorCode(r.status).name
    data = {
        "status": status,
        "tag": r.tag,
        "requested": r.requested,
        "count": r.count,
        "face_up": r.face_up,
        "cards": cards,
    }
    shown = " ".join(_card(c.card) + ("(face up)" if c.face_up else "") for c in r.cards)
    if r.status != ErrorCode.OK:
        text = f"deal stopped by {status} after {r.count} of {r.requested} cards: {shown}"
    else:
        text = f"dealt {r.count} of {r.requested} to tag {r.tag}: {shown}"
        if r.count != r.requested:
            text += " -- WRONG COUNT (MD-S1)"
    if r.face_up >= 2:
        text += f" -- {r.face_up} cards exposed (MD-S3)"
    return data, text


FORMATTERS: dict[str, Callable[[Any], tuple[dict, str]]] = {
    "info": format_identity,
    "status": format_status,
    "deck-check": format_deck,
    "shuffle": lambda r: (
        {"cards": r.cards, "mode": ShuffleMode(r.mode).name},
        f"shuffled {r.cards} cards ({ShuffleMode(r.mode).name.lower().replace('_', ' ')})",
    ),
    "deal": format_deal,
    "reset": lambda r: (
        {"state": DeviceState(r.state).name},
        f"reset: state {DeviceState(r.state).name}",
    ),
}
