"""``croupier shuffler audit --battery``: the shuffle test battery at 99% confidence
(controller/books/audit/battery.py) on whole-deck sequences, from a shuffler (``--port``:
shuffle, deal the whole deck, record, ``--shuffles`` times) or from a file of recorded
sequences (``--sequences FILE``: one shuffle a line, 52 cards as ``As Kd ...`` or a JSON
list of names or codes). Prints each test, its statistic and p-value; exit status 1 when a
test fails."""

from __future__ import annotations

import argparse

from controller.cli.argtypes import UsageError, input_file, integer
from controller.cli.output import print_json
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from pathlib import Path
    from typing import Any

DECK = 52
MAX_SHUFFLES = 100_000


def add_battery_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--battery",
        action="store_true",
        help="run the 8-test battery (99%% confidence) on whole decks (--port or --sequences"
        " run it too)",
    )
    parser.add_argument(
        "--port", help="the battery, on decks dealt from this shuffler (device, URL, usb:VID:PID)"
    )
    parser.add_argument(
        "--baud",
        type=integer(1200, 4_000_000),
        default=115200,
        help="the shuffler line's speed (default 115200)",
    )
    parser.add_argument(
        "--shuffles",
        type=integer(1, MAX_SHUFFLES),
        default=1000,
        help="whole decks to deal with --port (default 1000; the battery needs 260 or more)",
    )
    parser.add_argument(
        "--sequences",
        type=input_file,
        help="the battery, on recorded sequences: one shuffle a line",
    )


def _wire_codes(items: object) -> list[int] | None:
    """A JSON line of the shuffler's own card codes (0..51, as the protocol numbers them,
    docs/protocol.md), each card once; None when the line is written in card notation."""
    if not isinstance(items, list) or not all(
        isinstance(c, int) and not isinstance(c, bool) for c in items
    ):
        return None
    if len(items) != DECK or sorted(items) != list(range(DECK)):
        raise ValueError(f"{DECK} distinct card codes 0..{DECK - 1} expected")
    return list(items)


def read_sequences(path: Path) -> list[list[int]]:
    import json  # here: `croupier shuffler ports` and every shuffler --help skip its ~3 ms

    from controller.engine.cards import parse_cards
    from controller.files import read_regular

    try:
        lines = read_regular(path).decode("utf-8").splitlines()
    except OSError as exc:
        raise CroupierError(f"cannot read {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise CroupierError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    sequences = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            items = json.loads(line) if line.lstrip().startswith("[") else line
            sequences.append(
                _wire_codes(items)
                or [int(c) for c in parse_cards(items, count=DECK, what="the shuffle")]
            )
        except (ValueError, TypeError) as exc:
            raise CroupierError(f"{path}: line {number}: {exc}") from None
    return sequences


async def deal_sequences(port: str, baud: int, shuffles: int) -> list[list[int | None]]:
    from drivers.shuffler_client import ShufflerClient
    from drivers.transport import open_transport
    from firmware_bridge.messages import MAX_DEAL, ErrorCode

    client = ShufflerClient(open_transport(port, baud))
    await client.connect()
    sequences = []
    try:
        for n in range(1, shuffles + 1):
            await client.shuffle()
            cards: list[int | None] = []
            while len(cards) < DECK:
                reply = await client.deal(min(MAX_DEAL, DECK - len(cards)))
                if reply.status != ErrorCode.OK:
                    raise CroupierError(
                        f"shuffle {n}: the shuffler stopped the deal "
                        f"({ErrorCode(reply.status).name})"
                    )
                cards += [c.card for c in reply.cards]
            sequences.append(cards)
    finally:
        await client.close()
    return sequences


def run(args: argparse.Namespace) -> int:
    # NumPy, the battery and the shuffler's client load only when it runs (not for --help)
    import asyncio
    import logging

    from controller.books.audit.battery import MIN_SHUFFLES, run_battery
    from drivers.errors import DriverError
    from firmware_bridge.errors import LinkError

    if args.sequences:
        sequences: list = read_sequences(args.sequences)
    elif args.port:
        if not MIN_SHUFFLES <= args.shuffles <= MAX_SHUFFLES:
            raise UsageError(
                f"--shuffles: the battery needs {MIN_SHUFFLES}..{MAX_SHUFFLES} whole decks"
            )
        logging.getLogger("firmware_bridge").setLevel(logging.CRITICAL)
        logging.getLogger("drivers").setLevel(logging.CRITICAL)
        try:
            sequences = asyncio.run(deal_sequences(args.port, args.baud, args.shuffles))
        except (LinkError, DriverError) as exc:
            raise CroupierError(f"audit --battery: {exc}") from None
    else:
        raise UsageError("--battery needs --port PORT or --sequences FILE")
    report = run_battery(sequences)
    if args.json:
        print_json(report.to_json())
    else:
        print(render(report))
    return 0 if report.passed else 1


def render(report: Any) -> str:
    """A BatteryReport (controller.books.audit.battery) for the terminal."""
    out = [
        f"shuffle test battery: {report.shuffles} whole decks, "
        f"{1 - report.alpha:.0%} confidence (fail below p = {report.alpha:g})"
    ]
    for t in report.tests:
        df = f"df {t.df}" if t.df is not None else ""
        verdict = "FAIL" if t.p_value < report.alpha else "pass"
        out.append(
            f"  {t.name:<12} {t.statistic:12.3f} {df:>8}  p {t.p_value:<10.4g} {verdict}"
            f"  {t.counted}"
        )
    out.append(
        "battery: PASSED" if report.passed else f"battery: FAILED ({', '.join(report.failed)})"
    )
    return "\n".join(out)
