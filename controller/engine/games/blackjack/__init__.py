"""Trilux blackjack (RULES.md BJ-1..9, TRX-1..2): European no-hole-card blackjack played out
from the shoe, the Trilux side bet and its exact PAR sheet.

- :mod:`.engine` -- the round as a sans-I/O state machine (cards in, decisions in, what it
  waits for out);
- :mod:`.settlement` -- paying Trilux, insurance and every hand;
- :mod:`.record` -- the recorded-round JSON (docs/blackjack-round.md) behind ``croupier settle``;
- :mod:`.trilux` -- three-card classes and the PAR sheet behind ``croupier par``;
- :mod:`.strategy` -- basic strategy, for simulated players (bench, rig).
"""

from controller.engine.games.blackjack.engine import (
    ACTIONS,
    BlackjackRound,
    Phase,
    SeatBet,
    Spot,
    Turn,
    wager_name,
)
from controller.engine.games.blackjack.hand import Hand
from controller.engine.games.blackjack.record import settle
from controller.engine.games.blackjack.rules import BlackjackRules
from controller.engine.games.blackjack.settlement import round_result, trilux_wagers
from controller.engine.games.blackjack.trilux import par_sheet, trilux_lines

__all__ = [
    "ACTIONS",
    "BlackjackRound",
    "BlackjackRules",
    "Hand",
    "Phase",
    "SeatBet",
    "Spot",
    "Turn",
    "par_sheet",
    "round_result",
    "settle",
    "trilux_lines",
    "trilux_wagers",
    "wager_name",
]
