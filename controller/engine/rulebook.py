"""What RULES.md allows, as data, and the check of a profile against it.

A profile (config/profiles/*.toml) may choose only what the rule book leaves open: an
**[interpretation]** option, a value inside a band the rules give, or a casino setting (stakes,
limits, money). Everything the rule book fixes is checked here, each problem naming the key
and the rule, e.g. ``paytables.main.blackjack: BJ-5 pays 3:2, this profile pays 6:5 (BJ-5)``.

A profile file also claims one profile of RULES.md section 7 (:data:`RULEBOOK_PROFILES`), by
the rule document its ``[profile] source`` names or by carrying its name; what the rule book
fixes for that profile beyond its game (the deal and its burns, UTH-11; the settlement when
the dealer does not qualify, UTH-7; the procedures for exposed cards, the Greek MD-X1 and
MD-X2, the Italian MD-X3 and MD-X4; seed 001's double on 2 to 11, BJ-6, and its return of
the excess over a maximum, BJ-1) must be that profile's, e.g. ``rules.burns: the Slovak
rules (uth-sk) burn 2 cards (...), got 3 (UTH-11)``. A source names a document by its hash
in any case or its seed number; a name is read in any case with ``_`` for ``-``. The
**[interpretation]** options stay the file's: MD-X1's
``dealer_exposure_replaces`` and ``early_exposure_counts`` too, which the Greek text leaves
open (uth-gr) and the profiles without MD-X1 refuse (:mod:`controller.engine.profiles`).

Pay tables are compared by what they *pay*, not by how they are written: every hand a bet can
see (each class of lines it satisfies, best first) must be paid exactly as the rule book pays
it, so ``high-card = "1:1"`` and ``straight = "1:1"`` + ``high-card = "1:1"`` are the same Ante
table (CH-6 "straight or lower 1:1"), while a missing line, an extra line or another price is
refused.

:func:`tag_rule` gives every other profile problem its rule ID too (the loader calls it for
each problem), so no profile error is without one.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from controller.engine.paytable import BET_LINES, Odds, Pay, PayTable, parse_pay

PROFILE_SECTION = "RULES.md 7"  # where profiles themselves are described

# The pay tables of the rule book, spelled as profiles spell them. Fixed Jumbo 7 amounts are
# in minor units per unit stake (CH-8 gives them in currency units; the currency has cents).
RULE_PAYTABLES: dict[str, tuple[str, dict[str, Any]]] = {
    "blind": ("UTH-8", {"royal-flush": "500:1", "straight-flush": "50:1",
                        "four-of-a-kind": "10:1", "full-house": "3:1", "flush": "3:2",
                        "straight": "1:1"}),
    "trips": ("UTH-9", {"royal-flush": "50:1", "straight-flush": "40:1",
                        "four-of-a-kind": "30:1", "full-house": "8:1", "flush": "7:1",
                        "straight": "4:1", "three-of-a-kind": "3:1"}),
    "ante": ("CH-6", {"royal-flush": "100:1", "straight-flush": "20:1",
                      "four-of-a-kind": "10:1", "full-house": "3:1", "flush": "2:1",
                      "high-card": "1:1"}),
    "bonus": ("CH-7", {"royal-flush": "100:1", "straight-flush": "50:1",
                       "four-of-a-kind": "40:1", "full-house": "30:1", "flush": "20:1",
                       "straight": "7:1", "three-of-a-kind": "7:1", "two-pair": "7:1",
                       "pair-of-aces": "7:1"}),
    "progressive": ("PRG-3", {"royal-flush": "100%", "community-royal": "1000:1",
                              "straight-flush": "300:1", "four-of-a-kind": "100:1",
                              "full-house": "10:1"}),
    "jumbo7": ("CH-8", {"seven-card-straight-flush": "100%",
                        "six-card-straight-flush": {"fixed": 500000},
                        "five-card-straight-flush": {"fixed": 25000},
                        "four-of-a-kind": {"fixed": 5000}, "full-house": {"fixed": 500},
                        "flush": {"fixed": 400}, "straight": {"fixed": 200}}),
    "main": ("BJ-5", {"blackjack": "3:2", "win": "1:1"}),
    "insurance": ("BJ-8", {"dealer-blackjack": "2:1"}),
    "trilux": ("TRX-2", {"suited-akq": "100:1", "straight-flush": "35:1",
                         "three-of-a-kind": "33:1", "straight": "10:1", "flush": "5:1"}),
}  # fmt: skip

# Rules of the table settings, by game.
# (most seats, rule, why): CH-1 allows any number; 7 is the most this controller seats
MAX_SEATS_RULE = {
    "uth": (6, "UTH-1", "UTH-1 allows at most 6"),
    "casino-holdem": (7, "CH-1", "CH-1 allows any number, this controller seats at most 7"),
    "blackjack": (7, "BJ-1", "BJ-1 allows at most 7"),
}
BURNS_RULE = {
    "uth": ((0, 2, 3), "UTH-11"),
    "casino-holdem": ((0,), "CH-3"),
    "blackjack": ((0,), "BJ-2"),
}


@dataclass(frozen=True)
class RuleBookProfile:
    """A profile of RULES.md section 7: its game, its rule document (``seeds/<document>.txt``)
    and what the rule book fixes for it beyond its game's rules. A profile file claims one by
    its ``[profile] source`` naming the document, or by carrying its name."""

    name: str
    game: str
    document: str
    rules_of: str  # "the Greek rules"
    burns: int = 0  # UTH-11: the burn cards of a deal by hand
    burn_points: str = ""
    deals: tuple[str, ...] = ("shuffler", "manual")  # UTH-11: the deals the document has
    # [rules] options fixed by a rule of this profile's document: key -> (value, rule, why)
    options: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    @property
    def seed(self) -> int:
        """The document's number: 4 for ``004_c8c14ad3d28c0129``."""
        return int(self.document.split("_")[0])

    @property
    def digest(self) -> str:
        """The document's hash: ``c8c14ad3d28c0129`` for ``004_c8c14ad3d28c0129``."""
        return self.document.split("_")[1]


_NO_PLAY = "leaving a seat in without a Play bet when the board was exposed early is Italian"
# UTH-7: the Greek and Slovak texts return the Ante and decide Play and Blind; the Italian pays
# the Ante 1:1 (its "Play and Blind push" is the [interpretation] the value names)
_ANTE_PUSHES = (
    "ante-pushes",
    "UTH-7",
    "the Ante is returned, Play and Blind are decided against the dealer's hand",
)
_NOT_GREEK = "replacing wrongly exposed community cards is Greek"
_SILENT = "the Slovak rules have no procedure for exposed cards"
RULEBOOK_PROFILES: dict[str, RuleBookProfile] = {
    p.name: p
    for p in (
        RuleBookProfile(
            "uth-gr",
            "uth",
            "000_c1b9c501f051b6d4",
            "the Greek rules",
            burns=0,
            burn_points="neither the manual deal nor the shuffler's burns one",
            options={
                "dealer_not_qualified": _ANTE_PUSHES,
                "dealer_exposure": (
                    "after-action",
                    "MD-X1",
                    "the dealer's cards exposed after the first player action are replaced",
                ),
                "community_exposure": (
                    "replace",
                    "MD-X2",
                    "wrongly exposed community cards are replaced",
                ),
                "board_exposure": ("none", "MD-X4", _NO_PLAY),
            },
        ),
        RuleBookProfile(
            "uth-sk",
            "uth",
            "002_6e0a4e62d6ebb134",
            "the Slovak rules",
            burns=2,
            burn_points="before the flop, before the turn and river",
            deals=("manual",),
            options={
                "dealer_not_qualified": _ANTE_PUSHES,
                "dealer_exposure": ("none", "MD-X1", _SILENT),
                "community_exposure": ("none", "MD-X2", _SILENT),
                "board_exposure": ("none", "MD-X4", _NO_PLAY),
            },
        ),
        RuleBookProfile(
            "uth-it",
            "uth",
            "004_c8c14ad3d28c0129",
            "the Italian rules",
            burns=3,
            burn_points="by hand: before the flop, the turn and the river",
            options={
                "dealer_not_qualified": (
                    "ante-wins",
                    "UTH-7",
                    "the Ante is paid 1:1 to every player still in",
                ),
                "dealer_exposure": ("reinsert", "MD-X3", "the Shuffler Mate procedure"),
                "community_exposure": ("none", "MD-X2", _NOT_GREEK),
                "board_exposure": ("no-play", "MD-X4", "players who had not acted stay in"),
            },
        ),
        RuleBookProfile("ch-bg", "casino-holdem", "003_ee7d03a150f977a3", "the Bulgarian rules"),
        RuleBookProfile(
            "trilux-gr",
            "blackjack",
            "001_f3a4b69a38d0bb93",
            "the Greek rules",
            options={
                # the seed's poster: the excess over the maximum is returned, the rest plays
                "over_maximum": ("cap", "BJ-1", "the excess over the maximum is returned"),
                # the [interpretation] is how the total counts (aces as 1), not its range
                "double_on": (
                    "2-11",
                    "BJ-6",
                    "a double on a first-two-card total of 2 to 11, aces counting 1",
                ),
            },
        ),
    )
}


# A source names a seed document by its hash (any case) or as "seed(s) NNN" / "seeds/NNN_...":
# "seeds/004_c8c14ad3d28c0129.txt", "C8C14AD3D28C0129", "seed 004 (Italian)", "seed-4"
_SEED_NUMBER = re.compile(r"\bseeds?\W{0,3}(\d{1,3})(?!\d)")


def _documents_named(source: str) -> list[RuleBookProfile]:
    """The rule-book profiles whose seed document ``source`` names, in section 7's order."""
    text = source.lower()
    numbers = {int(n) for n in _SEED_NUMBER.findall(text)}
    return [p for p in RULEBOOK_PROFILES.values() if p.digest in text or p.seed in numbers]


def rulebook_name(name: str | None) -> str:
    """A profile name as the rule book spells it: ``" UTH_IT"`` is ``uth-it``."""
    return (name or "").strip().lower().replace("_", "-")


def claimed_profile(
    name: str | None, source: str
) -> tuple[RuleBookProfile | None, list[tuple[str, str]]]:
    """The rule-book profile a profile file claims (by its source document, else by its
    name, in any case and with ``_`` for ``-``) and the problem when its source names two
    documents, or its name and its source claim two different profiles."""
    documents = _documents_named(source)
    by_source = documents[0] if documents else None
    by_name = RULEBOOK_PROFILES.get(rulebook_name(name))
    if len(documents) > 1:
        named = ", ".join(f"seeds/{p.document}.txt ({p.name})" for p in documents)
        return by_source, [
            ("profile.source", f"names {named}: a profile follows one ({PROFILE_SECTION})")
        ]
    if by_source and by_name and by_source is not by_name:
        return by_source, [
            (
                "profile.source",
                f"profile {by_name.name} follows seeds/{by_name.document}.txt, this file names"
                f" seeds/{by_source.document}.txt ({by_source.name}) ({PROFILE_SECTION})",
            )
        ]
    return by_source or by_name, []


def check_variant(
    claimed: RuleBookProfile, game: str, deal: str, burns: int, options: Mapping[str, Any]
) -> list[tuple[str, str]]:
    """What the rule book fixes for the claimed profile (RULES.md section 7) and the file
    states otherwise: its game, its deals and burns (UTH-11), the [rules] options its document
    fixes (UTH-7, MD-X1..MD-X4, BJ-1, BJ-6). The [interpretation] options stay the file's
    choice."""
    if game != claimed.game:
        return [
            (
                "profile.game",
                f"{claimed.name} (seeds/{claimed.document}.txt) is a {claimed.game} profile, got"
                f" {game!r} ({PROFILE_SECTION})",
            )
        ]
    problems: list[tuple[str, str]] = []
    if game == "uth":
        problems += _check_deal(claimed, deal, burns)
    for key, (want, rule, why) in claimed.options.items():
        got = options.get(key)
        if got != want:
            problems.append(
                (
                    f"rules.{key}",
                    f"{claimed.rules_of} ({claimed.name}) have {key} = {want!r} ({why}),"
                    f" got {got!r} ({rule})",
                )
            )
    return problems


def _check_deal(claimed: RuleBookProfile, deal: str, burns: int) -> list[tuple[str, str]]:
    """UTH-11: the deals the claimed document has, and the burn cards of its deal by hand."""
    problems: list[tuple[str, str]] = []
    if deal not in claimed.deals:
        allowed = " or ".join(repr(d) for d in claimed.deals)
        problems.append(
            (
                "rules.deal",
                f"{claimed.rules_of} ({claimed.name}) deal {allowed}, got {deal!r} (UTH-11)",
            )
        )
    if burns != claimed.burns:
        problems.append(
            (
                "rules.burns",
                f"{claimed.rules_of} ({claimed.name}) burn {claimed.burns} cards"
                f" ({claimed.burn_points}), got {burns} (UTH-11)",
            )
        )
    return problems


PRG1_GREEK_BAND = (Fraction(15, 100), Fraction(20, 100))  # PRG-1: the casino retains 15%..20%
PRG4_GREEK_ENVY = 10000  # PRG-4: EUR 100 in cents
GAME_AWARD = {"uth": ("winner", "PRG-3"), "casino-holdem": ("share-round", "CH-9")}

# Rule of each profile key (prefix match, longest first), by game where it differs.
_KEY_RULES: dict[str, str | dict[str, str]] = {
    "rules.seats": {"uth": "UTH-1", "casino-holdem": "CH-1", "blackjack": "BJ-1"},
    "rules.deal": {"uth": "UTH-11", "casino-holdem": "CH-3", "blackjack": "BJ-2"},
    "rules.burns": "UTH-11",
    "rules.over_maximum": "BJ-1",  # its [interpretation] reaches every wager of every game
    "rules.ante_equals_blind": "UTH-2",
    "rules.dealer_not_qualified": "UTH-7",
    "rules.dealer_exposure": "MD-X3",
    "rules.dealer_exposure_replaces": "MD-X1",
    "rules.early_exposure_counts": "MD-X1",
    "rules.community_exposure": "MD-X2",
    "rules.board_exposure": "MD-X4",
    "rules.decks": "BJ-1",
    "rules.bet_": "BJ-1",
    "rules.trilux_": "TRX-1",
    "rules.double_on": "BJ-6",
    "rules.split_same_rank_only": "BJ-7",
    "rules.enhc_loses": "BJ-9",
    "rules.dealer_draws": "BJ-4",
    "progressive.stake": {"uth": "UTH-2", "casino-holdem": "CH-2"},
    "progressive.contribution": "PRG-1",
    "progressive.envy_bonus": "PRG-4",
    "progressive.envy_to_winner": "PRG-4",
    "progressive.award": {"uth": "PRG-3", "casino-holdem": "CH-9"},
    "progressive.share_scope": "CH-9",
    "progressive.multiple_hits": "PRG-3",
    "progressive.linked": "PRG-6",
    "progressive.paytable": {"uth": "PRG-3", "casino-holdem": "CH-8"},
    "paytables.blind": "UTH-8",
    "paytables.trips": "UTH-9",
    "paytables.ante": "CH-6",
    "paytables.bonus": "CH-7",
    "paytables.main": "BJ-5",
    "paytables.insurance": "BJ-8",
    "paytables.trilux": "TRX-2",
    "progressive": "PRG-1",
}
_RULE_ID = re.compile(r"\b(?:POK|UTH|CH|BJ|TRX|PRG|MD)-[A-Z]?\d+\b|RULES\.md")


def rule_of_key(key: str, game: str | None) -> str:
    """The RULES.md ID a profile key answers to (``RULES.md 7`` for keys of the profile
    format itself: name, version, money)."""
    for prefix in sorted(_KEY_RULES, key=len, reverse=True):
        if key.startswith(prefix):
            rule = _KEY_RULES[prefix]
            if isinstance(rule, dict):
                return rule.get(game or "", PROFILE_SECTION)
            return rule
    return PROFILE_SECTION


def tag_rule(key: str, reason: str, game: str | None) -> str:
    """``reason`` with its rule ID appended, unless it names one already."""
    if _RULE_ID.search(reason):
        return reason
    return f"{reason} ({rule_of_key(key, game)})"


# Bets whose lines are exact classes (a hand satisfies one line), not "at least" lines.
EXACT_LINES = ("main", "insurance", "trilux")


def _probes(bet: str) -> list[tuple[str, ...]]:
    """Every class of lines a hand can satisfy on ``bet``, best first: for "at least" lines
    each run from a line down to the bottom of the vocabulary, for exact lines each line
    alone (and the runs, which cover a hand in two classes such as suited trips, TRX-2)."""
    lines = BET_LINES[bet]
    runs = [lines[i:] for i in range(len(lines))]
    return [(line,) for line in lines] + runs if bet in EXACT_LINES else runs


def _same(a: Pay | None, b: Pay | None) -> bool:
    if isinstance(a, Odds) and isinstance(b, Odds):
        return a.ratio == b.ratio
    return a == b


def _shown(pay: Pay | None) -> str:
    return "nothing" if pay is None else str(pay)


def rule_paytable(bet: str) -> PayTable:
    pays = RULE_PAYTABLES[bet][1]
    return PayTable(bet, {line: parse_pay(v) for line, v in pays.items()})


def check_paytable(key: str, table: PayTable) -> list[tuple[str, str]]:
    """Problems of ``table`` against the rule book, one per line that pays otherwise."""
    rule, _ = RULE_PAYTABLES[table.bet]
    book = rule_paytable(table.bet)
    problems: dict[str, str] = {}
    for probe in _probes(table.bet):
        want, got = book.lookup(probe), table.lookup(probe)
        want_pay, got_pay = want and want[1], got and got[1]
        if _same(want_pay, got_pay):
            continue
        line = probe[0]
        problems.setdefault(
            f"{key}.{line}",
            f"the rule book pays {_shown(want_pay)} for {line}, this profile pays"
            f" {_shown(got_pay)} ({rule})",
        )
    return list(problems.items())


def check_profile_rules(
    game: str,
    seats: int,
    burns: int,
    paytables: Mapping[str, PayTable],
    progressive: Any,
    *,
    name: str | None = None,
    source: str = "",
    deal: str = "shuffler",
    options: Mapping[str, Any] | None = None,
) -> list[tuple[str, str]]:
    """Everything RULES.md fixes that a profile of ``game`` states: seats, burns, every pay
    table, the progressive's contribution band (PRG-1), envy (PRG-4), award (PRG-3, CH-9) and
    Jumbo 7's wide-area link (PRG-6); and, for a file claiming a profile of section 7 (its
    ``source`` document or its ``name``), that profile's deal, burns and the [rules] options
    its document fixes (:func:`check_variant`)."""
    claimed, problems = claimed_profile(name, source)
    if claimed is not None:
        problems += check_variant(claimed, game, deal, burns, options or {})
        if claimed.game != game:
            return problems
    most, rule, why = MAX_SEATS_RULE[game]
    if seats > most:
        problems.append(("rules.seats", f"at most {most} seats, got {seats}: {why} ({rule})"))
    allowed, rule = BURNS_RULE[game]
    if burns not in allowed and not (claimed and game == "uth"):  # checked: the claimed count
        counts = " or ".join(str(n) for n in allowed)
        problems.append(("rules.burns", f"{counts} burn cards, got {burns} ({rule})"))
    for bet, table in paytables.items():
        problems += check_paytable(f"paytables.{bet}", table)
    if progressive is None:
        return problems
    problems += check_paytable("progressive.paytable", progressive.paytable)
    if game == "uth":
        if progressive.contribution_band != PRG1_GREEK_BAND:
            low, high = progressive.contribution_band
            problems.append(
                (
                    "progressive.contribution_band",
                    f"the casino retains 15% to 20% of the stake, got {float(low):.4g}.."
                    f"{float(high):.4g} (PRG-1)",
                )
            )
        if progressive.envy_bonus != PRG4_GREEK_ENVY:
            problems.append(
                (
                    "progressive.envy_bonus",
                    f"the envy bonus is EUR 100 ({PRG4_GREEK_ENVY}), got "
                    f"{progressive.envy_bonus} (PRG-4)",
                )
            )
    else:
        if progressive.envy_bonus:
            problems.append(("progressive.envy_bonus", "Jumbo 7 has no envy bonus (CH-9)"))
        if not progressive.linked:
            problems.append(
                (
                    "progressive.linked",
                    "Jumbo 7 is a wide-area pool linked across tables and casinos (PRG-6, CH-9)",
                )
            )
    award, rule = GAME_AWARD[game]
    if progressive.award != award:
        problems.append(
            ("progressive.award", f"the award is {award!r}, got {progressive.award!r} ({rule})")
        )
    return problems
