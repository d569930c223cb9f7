"""The game engine: settling rounds and computing PAR sheets for each game of a profile.

Each game plugs in by module path (imported on first use), so a command that settles a hold'em
round never imports blackjack and vice versa:

- a *settler* ``settle(profile, round_data: dict, *, table_record: bool) -> RoundResult``
  settles a recorded round given as plain data (the ``croupier settle`` JSON format of that
  game, docs/settle.md; ``table_record``: the table's own record, see :func:`settle`);
- a *PAR sheet* ``par_sheet(profile, **options) -> dict`` returns the exact PAR sheet of every
  side bet of the profile (the ``croupier par --json`` shape).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from controller.engine.games.results import RoundResult
from controller.engine.profiles import Profile
from controller.errors import RoundError

SETTLERS: dict[str, str] = {
    "uth": "controller.engine.games.holdem:settle",
    "casino-holdem": "controller.engine.games.holdem:settle",
    "blackjack": "controller.engine.games.blackjack.record:settle",
}

PAR_SHEETS: dict[str, str] = {
    "uth": "controller.engine.games.par_holdem:par_sheet",
    "casino-holdem": "controller.engine.games.par_holdem:par_sheet",
    "blackjack": "controller.engine.games.blackjack.trilux:par_sheet",
}


def _resolve(table: dict[str, str], game: str, what: str) -> Callable[..., Any]:
    try:
        module, _, attr = table[game].partition(":")
    except KeyError:
        raise RoundError(f"no {what} for game {game!r}") from None
    found: Callable[..., Any] = getattr(importlib.import_module(module), attr)
    return found


def settle(
    profile: Profile, round_data: dict[str, Any], *, table_record: bool = False
) -> RoundResult:
    """Settle a recorded round of the profile's game. ``table_record``: the round is the
    table's own record (the daemon's settlement, or its record settled again), its pool as the
    books hold it, settled as it stands even below its seed; a round file from anywhere else
    has its pool refused below its seed (PRG-5, docs/settle.md)."""
    settler = _resolve(SETTLERS, profile.game, "settlement")
    result: RoundResult = settler(profile, round_data, table_record=table_record)
    return result


def par_sheet(profile: Profile, **options: Any) -> dict[str, Any]:
    """The exact PAR sheet of every side bet of the profile."""
    sheet: dict[str, Any] = _resolve(PAR_SHEETS, profile.game, "PAR sheet")(profile, **options)
    return sheet
