"""Cards exposed that are not a misdeal (RULES.md 6): which procedure a profile has for the
dealer's or the community's exposed cards, and why the table refuses one (pure).

The procedures (each a profile key, :mod:`controller.engine.profiles`):

- MD-X1 (Greek, ``dealer_exposure = "after-action"``): the dealer's hole cards exposed at the
  wrong time *after* the first player action go back into the remaining cards and new closed
  cards are dealt. Before any player acted the exposure is a misdeal instead: with a shuffler
  two or more exposed cards are MD-S3, dealt by hand MD-M6; the dealer declares it
  (``croupier round misdeal``), the table does not decide it for him.
- MD-X2 (Greek, ``community_exposure = "replace"``): wrongly exposed community cards (flop
  1-3, turn 4, river 5) are collected, go back into the remaining cards and their positions
  are dealt again, closed.
- MD-X3 (Italian, ``dealer_exposure = "reinsert"``, with a shuffler only): the dealer's cards
  exposed with only the flop shown go back into the machine, which deals replacements. Once a
  decision of the river is entered on the verified deal (1x, a fold, or MD-X4's no-play: the
  board exposed, UTH-4) the turn and river are shown and the table refuses it (the floor
  decides).

With a shuffler the cards go back into the machine (REINSERT) and the replacement packet is
asked for and checked like any packet (:meth:`controller.table.deals.HandFormingDeal.
replace_exposed`); dealt by hand the dealer does it and enters the new cards
(:meth:`controller.table.deals.ManualDeal.replace_exposed`).

[interpretation]s, none of them a choice the documents make:

- "after the first player action": the table knows that a player acted once a decision has
  been entered for the round (``round stake --decision``, ``round decide``); that is a lower
  bound (a player may have acted before the dealer entered it), so a dealer who saw a player
  act enters the decision first.
- MD-X1 on one exposed card (``rules.dealer_exposure_replaces``): ``exposed`` (default) only
  that card goes back and one new card is dealt, the card not exposed stays the dealer's;
  ``both`` (the text speaks of both cards and "two new closed cards") both go back and two
  are dealt (with a shuffler two replacements; by hand the dealer's place is entered again).
- Before a player acted, with a shuffler (``rules.early_exposure_counts``): ``round``
  (default) the dealer's exposed cards count towards MD-S3 together with the cards the
  machine delivered face up in the round, a card both did counting once; ``dealer`` his
  exposed cards alone. Fewer than two is no misdeal (MD-S3 needs two) and no MD-X1: the floor
  decides.
- MD-X3's "with only the flop shown": the table cannot see the flop turned (a check is not
  entered: after an all-check preflop no decision is in), so it takes MD-X3 until a decision
  of the river is entered once the deal is verified (a decision entered earlier, with the
  stakes, says what the player will do, not what is shown).
- MD-X1 and MD-X2 apply to a deal by shuffler and by hand alike (the Greek text lists them
  apart from both misdeal lists); MD-X3 is the Italian shuffler procedure only.
- MD-X2: any of the five positions, any number of them, at any time after the verified deal
  and before the showdown; the dealer's exposure of community cards is not counted towards
  MD-S3 (which counts the cards the machine delivers face up).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from controller.engine.deal.validator import COMMUNITY, DEALER
from controller.engine.profiles import (
    CommunityExposure,
    DealerExposure,
    DealerExposureReplaces,
    EarlyExposureCount,
    Profile,
)

# The cards each place holds in a hold'em deal (UTH-3): the positions an exposure may name.
HELD = {DEALER: 2, COMMUNITY: 5}


@dataclass(frozen=True)
class ExposureProcedure:
    """A profile's procedure for exposed cards of one place (``destination``)."""

    rule: str  # MD-X1, MD-X2, MD-X3
    destination: str  # dealer or community
    after_first_action: bool = False  # MD-X1: only once a player acted
    shuffler_only: bool = False  # MD-X3: the Shuffler Mate procedure
    before_river: bool = False  # MD-X3: "with only the flop shown"
    replaces_whole_place: bool = False  # MD-X1 "both": every card of the place goes back
    # MD-X1 before a player acted: the machine's face-up cards count towards MD-S3 too
    counts_machine_exposed: bool = True

    def replaced(self, positions: tuple[int, ...]) -> tuple[int, ...]:
        """The positions whose cards go back for ``positions`` exposed."""
        if self.replaces_whole_place:
            return tuple(range(1, HELD[self.destination] + 1))
        return positions

    def counted(self, machine_exposed: int) -> int:
        """Of the cards the machine turned up in the round, those counted towards MD-S3."""
        return machine_exposed if self.counts_machine_exposed else 0

    @property
    def cause(self) -> str:
        """The journal's cause of the move back to DEALING."""
        return f"{self.destination} cards exposed: back into the shuffler, replacements dealt"


_DEALER = {
    DealerExposure.REINSERT: ExposureProcedure(
        "MD-X3", DEALER, shuffler_only=True, before_river=True
    ),
    DealerExposure.AFTER_ACTION: ExposureProcedure("MD-X1", DEALER, after_first_action=True),
}
_COMMUNITY = {CommunityExposure.REPLACE: ExposureProcedure("MD-X2", COMMUNITY)}

# What the table says when the profile has no procedure: the rules that have one
_NONE = {
    DEALER: ("exposed dealer cards", "MD-X1 is Greek, MD-X3 Italian", "MD-X1"),
    COMMUNITY: ("wrongly exposed community cards", "MD-X2 is Greek", "MD-X2"),
}


def exposure_procedure(profile: Profile, destination: str) -> ExposureProcedure | None:
    """The procedure ``profile`` has for exposed cards of ``destination``, or None."""
    if destination == DEALER:
        procedure = _DEALER.get(profile.options.get("dealer_exposure", DealerExposure.NONE))
        return _md_x1_options(profile, procedure)
    if destination == COMMUNITY:
        return _COMMUNITY.get(profile.options.get("community_exposure", CommunityExposure.NONE))
    return None


def _md_x1_options(
    profile: Profile, procedure: ExposureProcedure | None
) -> ExposureProcedure | None:
    """MD-X1 with the profile's [interpretation]s (``dealer_exposure_replaces``,
    ``early_exposure_counts``); any other procedure as it is."""
    if procedure is None or procedure.rule != "MD-X1":
        return procedure
    options = profile.options
    replaces = options.get("dealer_exposure_replaces", DealerExposureReplaces.EXPOSED)
    counts = options.get("early_exposure_counts", EarlyExposureCount.ROUND)
    return replace(
        procedure,
        replaces_whole_place=replaces == DealerExposureReplaces.BOTH,
        counts_machine_exposed=counts == EarlyExposureCount.ROUND,
    )


def no_procedure(profile: Profile, destination: str) -> tuple[str, str]:
    """(why, rule): the refusal of an exposure ``profile`` has no procedure for."""
    what, whose, rule = _NONE.get(destination, (f"exposed {destination} cards", "", "MD-X1"))
    rules = f" ({whose})" if whose else ""
    return f"profile {profile.name} has no procedure for {what}{rules}: call the floor", rule


def exposure_refusal(profile: Profile, destination: str) -> str | None:
    """Why ``profile`` cannot replace exposed cards of ``destination``, or None when it can."""
    if exposure_procedure(profile, destination) is not None:
        return None
    return no_procedure(profile, destination)[0]


def before_first_action(positions: int, *, manual: bool, machine_exposed: int) -> str:
    """MD-X1 refused: no player acted yet; which misdeal the dealer declares instead (MD-M6
    dealt by hand; MD-S3 with a shuffler when ``positions`` and the ``machine_exposed`` cards
    counted (:meth:`ExposureProcedure.counted`, none of them among ``positions``) make two
    or more), or that one card alone is none."""
    early = (
        "no player has acted yet (no decision entered): the dealer's cards exposed before the"
        " first player action are not MD-X1"
    )
    if manual:
        return f"{early}: a misdeal dealt by hand: declare MD-M6 (croupier round misdeal)"
    if positions + machine_exposed >= 2:
        return f"{early}: two or more cards exposed: declare MD-S3 (croupier round misdeal)"
    return f"{early}, and one exposed card is no misdeal (MD-S3 needs two): call the floor"


def river_shown(rule: str) -> str:
    """MD-X3 (``rule``) refused: a decision of the river is in, so the turn and river are
    shown."""
    return (
        "a decision of the river is entered (1x, a fold or no-play): the turn and river are"
        f" shown, and {rule} is for the dealer's cards exposed with only the flop shown: call"
        " the floor"
    )
