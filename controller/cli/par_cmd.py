"""``croupier par --profile NAME [--decks N]``: the exact PAR sheet of every side bet of a profile.

The numbers come from ``controller.engine.games.par_sheet`` (one module per game, docs/par.md); this
module only prints them: a table per bet for people, the same document with ``--json``; on a
terminal without ``--json``, a progress bar of the long part (the Blind's showdowns, seconds).
"""

from __future__ import annotations

import argparse

from controller.cli.argtypes import UsageError, integer
from controller.cli.main import add_command
from controller.cli.output import add_json_errors, add_json_flag, print_json
from controller.errors import ParError, ProfileError

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any

COLUMNS = ("hand", "pays", "combinations", "probability", "contribution")


EXAMPLES = {
    "par": [
        "croupier par --profile uth-gr",
        "croupier par --profile trilux-gr --decks 6 --json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "par")
    p.add_argument("--profile", required=True, metavar="NAME", help="profile name or TOML path")
    p.add_argument(
        "--decks",
        type=integer(1, 8),
        metavar="N",
        help="decks in the shoe (games dealt from a shoe only)",
    )
    add_json_flag(p)
    add_json_errors(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.cli.progress import progress_to
    from controller.engine.games import par_sheet
    from controller.engine.profiles import load_profile
    from controller.validation import ConfigError

    options = {} if args.decks is None else {"decks": args.decks}
    try:
        profile = load_profile(args.profile)
        with progress_to(args, unit="", what=f"PAR {profile.name}") as progress:
            sheet = par_sheet(profile, progress=progress, **options)
    except (
        ConfigError,
        ProfileError,
        ParError,
    ) as exc:  # the profile or options named on the command line
        raise UsageError(str(exc)) from exc
    if args.json:
        print_json(sheet)
    else:
        print(render(sheet))
    return 0


def render(sheet: dict[str, Any]) -> str:
    """The human PAR sheet: one table per bet, then its totals and assumptions."""
    out = [f"PAR sheet of profile {sheet['profile']}"]
    for bet in sheet["bets"].values():
        out += ["", bet.get("title", ""), f"  counted: {bet['space']}"]
        rows = [COLUMNS] + [_row(line) for line in bet["lines"]]
        widths = [max(len(r[i]) for r in rows) for i in range(len(COLUMNS))]
        for row in rows:
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
            cells += [cell.rjust(w) for cell, w in zip(row[2:], widths[2:], strict=True)]
            out.append("  " + "  ".join(cells))
        totals = (
            f"  return {bet['return']:.8f}   house edge {bet['house_edge']:.4%}   "
            f"hit frequency {bet['hit_frequency']:.4%}"
        )
        out.append(totals)
        if "jackpot_probability" in bet:
            p = bet["jackpot_probability"]
            out.append(f"  jackpot probability {p:.6g} (1 in {1 / p:,.0f}), not in the return")
        out += [f"  - {note}" for note in bet.get("notes", [])]
    return "\n".join(out)


def _row(line: dict[str, Any]) -> tuple[str, ...]:
    contribution = line["contribution"]
    return (
        line["hand"],
        line["pays"],
        f"{line['combinations']:,}",
        f"{line['probability']:.8f}",
        "pool" if contribution is None else f"{contribution:.8f}",
    )
