"""``croupier eval CARD...``: the best five of 5 to 7 cards (POK-2)."""

from __future__ import annotations

import argparse

from controller.cli.argtypes import UsageError
from controller.cli.main import add_command
from controller.cli.output import add_json_errors, add_json_flag, print_json
from controller.errors import CardError

EXAMPLES = {
    "eval": [
        "croupier eval As Ks Qs Js 10s 2c 3d",
        "croupier eval 7h 7d 7c 2s 2h --json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "eval")
    p.add_argument("cards", nargs="+", metavar="CARD", help="cards like As Kd 10h (5 to 7)")
    add_json_flag(p)
    add_json_errors(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.engine.cards import format_cards, parse_cards
    from controller.engine.poker import evaluate, longest_straight_flush

    try:
        cards = parse_cards(" ".join(args.cards), count=(5, 6, 7), what="hand")
    except CardError as exc:
        raise UsageError(str(exc)) from exc
    result = evaluate(cards)
    run_length = longest_straight_flush(cards)
    if args.json:
        print_json(
            {
                "cards": [str(c) for c in cards],
                "hand": result.category.label,
                "best_five": [str(c) for c in result.cards],
                "strength": result.strength,
                "straight_flush_run": run_length,
            }
        )
    else:
        print(f"{result.category.label}: {format_cards(result.cards)}")
        if run_length > 5:
            print(f"{run_length}-card straight flush (CH-8)")
    return 0
