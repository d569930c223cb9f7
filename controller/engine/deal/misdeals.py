"""Which misdeal a dealer may declare (RULES.md section 6), pure: the one place the rule IDs,
their deal mode and their timing are known.

A shuffler's own verdicts (MD-S1..S3) come from the deal validator; a dealer may also
declare a misdeal with its rule (``croupier round misdeal RULE``). A declaration voids the
round, so it is taken only where its rule's text applies:

- **Deal mode.** The MD-S rules are written for a shuffler or card-dispensing machine (a
  hand-forming shuffler, a blackjack shoe), the MD-M rules for a deal by hand. A rule of the
  other mode is refused, naming the rule that applies instead: with a shuffler a single
  exposed card is no misdeal (MD-S3 needs two), so MD-M2 ("one or more cards exposed") is not
  a way round it.
- **Game.** Blackjack deals every card face up (BJ-2): MD-S3 is refused there.
- **Timing.** MD-M2, MD-M4, MD-M6 and MD-M7 are written for the initial deal ("during the
  deal", "during the initial deal", "before any player acted"); once a player has acted
  they are refused: the dealer's cards exposed then are MD-X1, wrong community cards MD-X2,
  neither a misdeal. A declared MD-S3 likewise [interpretation]: the Greek text, which has
  MD-S3, says exposures after the first player action are "not a misdeal" (MD-X1, MD-X2),
  and a table dealt by hand refuses MD-M2 and MD-M6 then. The machine's own MD-S3 (the
  validator's, from the face-up cards it delivers) stays as the validator counts it, also
  for a replacement packet delivered face up after a player acted. MD-M1, MD-M3 and
  MD-M5 say nothing of the moment (MD-M3 is written for after the initial deal).

:func:`declaration_refusal` says why a declaration is refused (or ``None``); the control
socket checks the ID with :func:`is_misdeal_rule` and the round machine the rest, so both read
this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class DealMode(StrEnum):
    """How a round's cards come to the table."""

    SHUFFLER = "shuffler"  # a shuffler / card-dispensing machine (hand-forming, shoe)
    MANUAL = "manual"  # dealt by hand (profile ``deal = "manual"``)


@dataclass(frozen=True)
class MisdealRule:
    """One misdeal rule: its deal mode, whether its text limits it to the initial deal
    (before any player acted), and what applies instead with the other deal mode
    (``elsewhere``) or once a player has acted (``after_action``)."""

    rule: str
    mode: DealMode
    text: str
    elsewhere: str
    initial_deal_only: bool = False
    after_action: str = ""


_S, _M = DealMode.SHUFFLER, DealMode.MANUAL
_WRONG_COUNT = "a wrong number of cards is MD-S1"

MISDEAL_RULES: dict[str, MisdealRule] = {
    r.rule: r
    for r in (
        MisdealRule(
            "MD-S1",
            _S,
            "a wrong number of cards to a player or the dealer",
            "by hand a wrong number of cards is MD-M3 (a player), MD-M4 (the initial deal)"
            " or MD-M5 (the dealer)",
        ),
        MisdealRule(
            "MD-S2",
            _S,
            "a malfunction of the shuffler",
            "a table dealt by hand has no shuffler: MD-M1..M7 apply (call the floor)",
        ),
        MisdealRule(
            "MD-S3",
            _S,
            "two or more cards exposed face up",
            "by hand a card exposed during the deal is MD-M2",
            initial_deal_only=True,
            after_action=(
                "exposed dealer cards are MD-X1 (MD-X3 with only the flop shown, Italian) and"
                " wrong community cards MD-X2, not a misdeal (where the profile has no such"
                " procedure, call the floor)"
            ),
        ),
        MisdealRule(
            "MD-M1",
            _M,
            "cards not shuffled or not cut before the deal",
            "with a shuffler there is no cut (UTH-11) and a shuffle that failed is MD-S2",
        ),
        MisdealRule(
            "MD-M2",
            _M,
            "one or more cards exposed face up during the deal",
            "with a shuffler two or more exposed cards are MD-S3 (one is not a misdeal)",
            initial_deal_only=True,
            after_action=(
                "exposed dealer cards are MD-X1 and wrong community cards MD-X2, not a misdeal"
            ),
        ),
        MisdealRule(
            "MD-M3",
            _M,
            "a player has a wrong number of cards after the initial deal",
            f"with a shuffler {_WRONG_COUNT}",
        ),
        MisdealRule(
            "MD-M4",
            _M,
            "a player skipped, or one card too many to every player, in the initial deal",
            f"with a shuffler {_WRONG_COUNT}",
            initial_deal_only=True,
            after_action="a wrong number of cards that cannot be corrected is MD-M3",
        ),
        MisdealRule(
            "MD-M5",
            _M,
            "the dealer dealt himself a wrong number of cards",
            f"with a shuffler {_WRONG_COUNT}",
        ),
        MisdealRule(
            "MD-M6",
            _M,
            "the dealer exposed his own cards before any player acted",
            "with a shuffler two or more exposed cards are MD-S3",
            initial_deal_only=True,
            after_action=(
                "the dealer's cards exposed now are MD-X1, not a misdeal: they are shuffled"
                " back and two new cards dealt"
            ),
        ),
        MisdealRule(
            "MD-M7",
            _M,
            "a card fell off the table during the initial deal",
            f"with a shuffler {_WRONG_COUNT} and two or more exposed cards MD-S3",
            initial_deal_only=True,
            after_action="a hand left with a wrong number of cards is MD-M3",
        ),
    )
}


def is_misdeal_rule(rule: str) -> bool:
    """``rule`` is the ID of a misdeal rule (MD-S1..S3, MD-M1..M7), of any deal mode."""
    return rule in MISDEAL_RULES


def rule_ids() -> str:
    """The misdeal rule IDs, for a message: ``MD-S1..MD-S3 or MD-M1..MD-M7``."""
    by_mode = [[r for r in MISDEAL_RULES.values() if r.mode is mode] for mode in DealMode]
    return " or ".join(f"{rules[0].rule}..{rules[-1].rule}" for rules in by_mode)


def rule_text(rule: str) -> str:
    """What misdeal ``rule`` says, in short (for the journal)."""
    return MISDEAL_RULES[rule].text


# Games that deal every card face up, and the rule that says so: "two or more cards exposed"
# (MD-S3) cannot happen there [interpretation]
FACE_UP_GAMES = {"blackjack": "BJ-2"}


def declaration_refusal(
    rule: str, mode: DealMode, *, player_acted: bool, game: str = "uth"
) -> str | None:
    """Why a dealer may not declare misdeal ``rule`` in a round of ``game`` dealt by ``mode``
    (one line naming what applies instead), or ``None`` when the declaration voids the round.
    ``player_acted``: a player's decision is in for the round."""
    found = MISDEAL_RULES.get(rule)
    if found is None:
        return f"{rule} is not a misdeal rule ({rule_ids()})"
    if rule == "MD-S3" and game in FACE_UP_GAMES:
        return (
            f"MD-S3 does not apply: {game} deals every card face up ({FACE_UP_GAMES[game]});"
            " a wrong number of cards is MD-S1, a malfunction of the shoe MD-S2"
        )
    if found.mode is not mode:
        kind = "manual-deal" if found.mode is DealMode.MANUAL else "shuffler"
        return f"{rule} is a {kind} rule; {found.elsewhere}"
    if found.initial_deal_only and player_acted:
        return (
            f"{rule} applies to the initial deal only and a player has acted: {found.after_action}"
        )
    return None
