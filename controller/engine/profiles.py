"""Rule profiles (RULES.md section 7): named, versioned sets of rule options and pay tables.

A profile is a TOML file (``config/profiles/<name>.toml``). :func:`load_profile` validates the
whole file and either returns a complete, immutable :class:`Profile` or raises
:class:`~controller.validation.ConfigError` listing every problem with its key and reason; a
bad profile never loads half-way.

Every option RULES.md marks **[interpretation]** is a named key here with its default, so no
such choice is a hidden constant:

- ``rules.dealer_not_qualified`` (UTH-7): ``ante-pushes`` (Greek, Slovak) or ``ante-wins``
  (Italian: Ante paid 1:1, Play and Blind push); a file claiming a rule-book profile keeps its
  document's (:mod:`controller.engine.rulebook`, as for ``over_maximum`` and ``double_on`` of
  trilux-gr), a house variant chooses;
- ``rules.dealer_exposure`` (UTH, :class:`DealerExposure`): ``none`` (the document has no
  procedure: the floor decides), ``reinsert`` (MD-X3, Italian, with a shuffler: exposed dealer
  cards go back into the machine, which deals replacements) or ``after-action`` (MD-X1, Greek:
  the dealer's cards exposed after the first player action go back into the remaining cards
  and new closed cards are dealt; before it they are a misdeal, MD-S3 / MD-M6);
- with ``after-action`` only (MD-X1, refused in a profile without it):
  ``rules.dealer_exposure_replaces`` (:class:`DealerExposureReplaces`): ``exposed`` (default:
  one exposed card goes back alone) or ``both`` (the text's "two new closed cards": both go
  back); ``rules.early_exposure_counts`` (:class:`EarlyExposureCount`): ``round`` (default:
  before any player acted, the dealer's exposed cards and those the machine turned up in the
  round make MD-S3's "two or more") or ``dealer`` (his exposed cards alone);
- ``rules.community_exposure`` (UTH, :class:`CommunityExposure`): ``none`` (the floor decides)
  or ``replace`` (MD-X2, Greek: wrongly exposed community cards are collected, go back into
  the remaining cards and their positions are dealt again, closed);
- ``rules.board_exposure`` (UTH): ``none`` (the document has no such procedure: the floor
  decides; the Greek rules replace wrongly exposed community cards, MD-X2, or void the round,
  MD-S3) or ``no-play`` (MD-X4, Italian: a seat that had not acted when the board was exposed
  stays in without a Play bet, decision ``no-play``);
- ``progressive.contribution_rate`` within ``progressive.contribution_band`` (PRG-1);
- ``progressive.award``: ``winner`` or ``share-round`` (CH-9);
- ``progressive.share_scope`` (CH-9, with ``share-round``): ``link`` (default: the share runs
  over every Jumbo 7 stake accepted in the round each participating table has in play at the
  hit) or ``table`` (only the hitting table's bettors);
- ``progressive.envy_to_winner`` (PRG-4): ``false`` (default: the envy bonus goes to every
  *other* progressive seat of the table, "the winner is not paid envy on top of the pool") or
  ``true`` (the seed's literal "to the players taking part at the same table": the pool's
  winner gets it too);
- ``progressive.multiple_hits``: ``split-equally`` or ``seat-order`` (PRG-3 with several
  100% hits in one round, award ``winner``); under ``share-round`` the round's bettors share
  one jackpot by stake however many seats hit (CH-9), so ``seat-order`` is refused there and
  ``split-equally`` has no effect;
- ``rules.over_maximum`` (BJ-1, :class:`OverMaximum`, every wager of every game): ``cap``
  (default: a stake above its wager's table maximum is capped at the maximum and the excess
  recorded as returned) or ``refuse`` (the stake is refused as a whole, like one below the
  minimum: :class:`~controller.errors.StakeAboveMaximum`); doubling and splitting match the
  accepted original bet either way;
- blackjack ``rules.double_on`` (BJ-6), ``rules.split_same_rank_only`` (BJ-7),
  ``rules.enhc_loses`` (BJ-9) and ``rules.dealer_draws`` (BJ-4 when no hand is left to decide).

Each game reads its extra ``[rules]`` keys through :data:`GAME_SECTIONS`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from pathlib import Path
from typing import Any

from controller.engine.paytable import (
    BET_LINES,
    REQUIRED_LINES,
    Odds,
    PayTable,
    PoolPercent,
    parse_pay,
)
from controller.engine.rulebook import PROFILE_SECTION, check_profile_rules, tag_rule
from controller.texts import suggestion
from controller.validation import (
    ConfigError,
    Problems,
    Section,
    non_negative_int,
    parse_fraction,
    positive_int,
    read_toml_and_text,
)

DEAL_MODES = ("shuffler", "manual")
ROUNDING = ("down", "nearest")
DEALER_NOT_QUALIFIED = ("ante-pushes", "ante-wins")


class DealerExposure(StrEnum):
    """``rules.dealer_exposure``: what the table does when the dealer exposes his own cards."""

    NONE = "none"  # the document has no procedure: the floor decides
    REINSERT = "reinsert"  # MD-X3 (Italian, with a shuffler): with only the flop shown
    AFTER_ACTION = "after-action"  # MD-X1 (Greek): after the first player action


class DealerExposureReplaces(StrEnum):
    """``rules.dealer_exposure_replaces`` (MD-X1 [interpretation]): which of the dealer's cards
    go back when only one of them was exposed (the text: "two new closed cards")."""

    EXPOSED = "exposed"  # the exposed card alone; the other stays the dealer's (default)
    BOTH = "both"  # both cards go back and two new closed cards are dealt


class EarlyExposureCount(StrEnum):
    """``rules.early_exposure_counts`` (MD-X1 [interpretation]): which exposed cards make
    MD-S3's "two or more" when the dealer exposed his cards before any player acted (with a
    shuffler; dealt by hand it is MD-M6 however many)."""

    ROUND = "round"  # the dealer's and those the machine turned up in the round (default)
    DEALER = "dealer"  # the dealer's exposed cards alone


class CommunityExposure(StrEnum):
    """``rules.community_exposure``: what the table does with wrongly exposed community cards."""

    NONE = "none"  # the document has no procedure: the floor decides
    REPLACE = "replace"  # MD-X2 (Greek): collected, back into the rest, dealt again closed


class OverMaximum(StrEnum):
    """``rules.over_maximum`` (BJ-1 [interpretation], every wager of every game): what the
    table does with a stake above its wager's table maximum ("the excess is not accepted and
    is returned to the player", seed 001 poster)."""

    CAP = "cap"  # capped at the maximum, the excess recorded as returned (default)
    REFUSE = "refuse"  # refused as a whole, like a stake below the minimum


DEALER_EXPOSURE = tuple(e.value for e in DealerExposure)  # MD-X1, MD-X3
COMMUNITY_EXPOSURE = tuple(e.value for e in CommunityExposure)  # MD-X2
# MD-X1's [interpretation]s: key -> its choices and default; only with dealer_exposure =
# "after-action"
MD_X1_OPTIONS: dict[str, type[StrEnum]] = {
    "dealer_exposure_replaces": DealerExposureReplaces,
    "early_exposure_counts": EarlyExposureCount,
}
MD_X1_DEFAULTS = {
    "dealer_exposure_replaces": DealerExposureReplaces.EXPOSED,
    "early_exposure_counts": EarlyExposureCount.ROUND,
}
BOARD_EXPOSURE = ("none", "no-play")  # MD-X4
AWARD_POLICIES = ("winner", "share-round")
SHARE_SCOPES = ("link", "table")  # CH-9 [interpretation]
MULTIPLE_HITS = ("split-equally", "seat-order")
ENHC_LOSES = ("all", "original-only")
DEALER_DRAWS = ("when-needed", "always")
DECKS = (4, 6)  # BJ-1: a shoe of 4 to 6 decks
TRILUX_MAX_OVER_MIN = 50  # TRX-1: Trilux maximum at most 50x the minimum

# Pay tables each game must define (the progressive table lives in [progressive]).
GAME_PAYTABLES = {
    "uth": ("blind", "trips"),
    "casino-holdem": ("ante", "bonus"),
    "blackjack": ("main", "insurance", "trilux"),
}
GAME_PROGRESSIVE_BET = {"uth": "progressive", "casino-holdem": "jumbo7"}
MAX_SEATS = 7


@dataclass(frozen=True)
class Money:
    currency: str = "EUR"
    chip_unit: int = 1  # minor units; stakes are whole chips, winnings rounded to a chip
    rounding: str = "down"  # "down" (never overpay) or "nearest" (half up)

    def round_winnings(self, exact: Fraction) -> int:
        """Apply the rounding rule once, to the winnings of one payout (minor units)."""
        units = exact / self.chip_unit
        whole = (
            units.__floor__() if self.rounding == "down" else (units + Fraction(1, 2)).__floor__()
        )
        return whole * self.chip_unit


@dataclass(frozen=True)
class Progressive:
    """A progressive side bet's rules (PRG-1..6). Seed, reserve and cap belong to the pool
    configuration of a table, not to the rules."""

    bet: str  # wager name: "progressive" (UTH) or "jumbo7" (CH)
    stake: int  # the fixed stake set by the casino (UTH-2, CH-2), minor units
    contribution_rate: Fraction
    contribution_band: tuple[Fraction, Fraction]
    envy_bonus: int  # PRG-4, minor units per other progressive player; 0 = none
    award: str  # AWARD_POLICIES
    multiple_hits: str  # MULTIPLE_HITS
    linked: bool  # PRG-6: a wide-area pool shared by several tables
    paytable: PayTable
    share_scope: str = "link"  # CH-9 with award share-round: SHARE_SCOPES
    # PRG-4 [interpretation]: False (default) pays the envy bonus to the *other* progressive
    # seats only; True to every progressive seat of the table, the pool's winner included
    envy_to_winner: bool = False

    def jackpot_line(self) -> str | None:
        """The line paying a percentage of the pool (at most one)."""
        return next(
            (ln for ln, p in self.paytable.pays.items() if isinstance(p, PoolPercent)), None
        )

    def check_rate(self, rate: Fraction) -> str | None:
        low, high = self.contribution_band
        if not low <= rate <= high:
            return (
                f"contribution rate {float(rate):.4g} is outside the profile's band "
                f"{float(low):.4g}..{float(high):.4g} (PRG-1)"
            )
        return None


@dataclass(frozen=True)
class Profile:
    name: str
    version: int
    game: str
    source: str
    description: str
    money: Money
    seats: int
    deal: str
    burns: int
    options: dict[str, Any]  # game-specific rule options, validated
    paytables: dict[str, PayTable]
    progressive: Progressive | None
    over_maximum: OverMaximum  # BJ-1 [interpretation]: a stake above its wager's maximum
    path: str = field(default="", compare=False)
    # the file's text as read ("" for a profile not read from a file), for :attr:`sha256`
    text: str = field(default="", compare=False, repr=False)

    @property
    def sha256(self) -> str:
        """SHA-256 of the file's bytes as read ("" for a profile not read from a file): what
        the software manifest hashes for a shipped profile, and the table journals
        (rules.changed). Computed on use: reading a configuration (``config check``, ``settle``)
        does not load OpenSSL's hashlib."""
        if not self.text:
            return ""
        import hashlib

        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()  # strict UTF-8: the bytes


def _paytable(section: Section | None, bet: str) -> PayTable | None:
    if section is None:
        return None
    vocabulary = BET_LINES[bet]
    pays = {}
    for line, value in section.items():
        if line not in vocabulary:
            section.problems.add(
                section.key(line), f"unknown pay line for {bet} (known: {', '.join(vocabulary)})"
            )
            continue
        try:
            pays[line] = parse_pay(value)
        except ValueError as exc:
            section.problems.add(section.key(line), str(exc))
    if not pays:
        section.problems.add(section.path, "a pay table needs at least one line")
    for line in REQUIRED_LINES.get(bet, ()):
        if not section.has(line):
            section.problems.add(section.key(line), f"required: every {bet} table prices {line}")
    ordered = {line: pays[line] for line in vocabulary if line in pays}
    return PayTable(bet, ordered)


def _fraction(value: Any) -> str | None:
    try:
        parse_fraction(value)
    except ValueError as exc:
        return str(exc)
    return None


def _read_progressive(sec: Section, game: str) -> Progressive | None:
    bet = GAME_PROGRESSIVE_BET[game]
    stake = sec.get("stake", int, check=positive_int)
    band_raw = sec.get("contribution_band", list, default=["0", "1"])
    band: tuple[Fraction, Fraction] | None = None
    if band_raw is not None:
        try:
            low, high = (parse_fraction(x) for x in band_raw)
            if not 0 <= low <= high <= 1:
                raise ValueError("the band must satisfy 0 <= low <= high <= 1")
            band = (low, high)
        except ValueError as exc:
            sec.problems.add(sec.key("contribution_band"), f"expected [low, high]: {exc}")
    rate_raw = sec.get("contribution_rate", str, check=_fraction)
    rate = parse_fraction(rate_raw) if rate_raw is not None else None
    envy = sec.get("envy_bonus", int, default=0, check=non_negative_int)
    envy_to_winner = sec.get("envy_to_winner", bool, default=False)
    if envy_to_winner and not envy:
        sec.problems.add(sec.key("envy_to_winner"), "only with an envy_bonus (PRG-4)")
    award = sec.choice("award", AWARD_POLICIES, default="winner")
    scope = sec.choice("share_scope", SHARE_SCOPES, default="link")
    if sec.has("share_scope") and award != "share-round":
        sec.problems.add(sec.key("share_scope"), "only with award = 'share-round' (CH-9)")
    multiple = sec.choice("multiple_hits", MULTIPLE_HITS, default="split-equally")
    if multiple == "seat-order" and award == "share-round":
        sec.problems.add(
            sec.key("multiple_hits"),
            "'seat-order' only with award = 'winner': under award = 'share-round' every bettor"
            " of the round shares one jackpot by stake however many seats hit it (CH-9)",
        )
    linked = sec.get("linked", bool, default=False)
    table = _paytable(sec.section("paytable"), bet)
    if table is not None and sum(isinstance(p, PoolPercent) for p in table.pays.values()) > 1:
        sec.problems.add(sec.key("paytable"), "at most one line may pay a percentage of the pool")
    if stake is None or band is None or rate is None or table is None:
        return None
    progressive = Progressive(
        bet,
        stake,
        rate,
        band,
        envy,
        award,
        multiple,
        linked,
        table,
        scope or "link",
        bool(envy_to_winner),
    )
    reason = progressive.check_rate(rate)
    if reason:
        sec.problems.add(sec.key("contribution_rate"), reason)
    return progressive


def _read_uth_options(sec: Section) -> dict[str, Any]:
    ante_equals_blind = sec.get("ante_equals_blind", bool, default=True)
    if ante_equals_blind is False:
        sec.problems.add(
            sec.key("ante_equals_blind"), "UTH-2 requires Ante and Blind of equal amounts"
        )
    dealer_exposure = sec.choice("dealer_exposure", DEALER_EXPOSURE, "none")
    return {
        "dealer_not_qualified": sec.choice(
            "dealer_not_qualified", DEALER_NOT_QUALIFIED, "ante-pushes"
        ),
        "dealer_exposure": dealer_exposure,
        **_read_md_x1_options(sec, dealer_exposure),
        "community_exposure": sec.choice("community_exposure", COMMUNITY_EXPOSURE, "none"),
        "board_exposure": sec.choice("board_exposure", BOARD_EXPOSURE, "none"),
    }


def _read_md_x1_options(sec: Section, dealer_exposure: str | None) -> dict[str, StrEnum]:
    """MD-X1's [interpretation]s (:data:`MD_X1_OPTIONS`), as enums with their defaults; each
    refused in a profile without MD-X1, where it would mean nothing."""
    options: dict[str, StrEnum] = {}
    for key, kind in MD_X1_OPTIONS.items():
        known = len(sec.problems.items)
        options[key] = kind(sec.choice(key, tuple(kind), MD_X1_DEFAULTS[key]))
        wrong = len(sec.problems.items) > known  # one problem for the key: its value
        if sec.has(key) and not wrong and dealer_exposure != DealerExposure.AFTER_ACTION:
            sec.problems.add(
                sec.key(key),
                f"only with dealer_exposure = '{DealerExposure.AFTER_ACTION}' (MD-X1)",
            )
    return options


def parse_double_on(text: str) -> tuple[int, int] | None:
    """BJ-6 ``double_on``: ``"LOW-HIGH"`` (the first two cards' total counting aces as 1, e.g.
    the default ``"2-11"``) or ``"any"`` (None: any first two cards). ValueError with the
    reason."""
    if text == "any":
        return None
    low, sep, high = text.partition("-")
    if not (sep and low.strip().isdigit() and high.strip().isdigit()):
        raise ValueError(f"expected 'LOW-HIGH' like '2-11' or 'any', got {text!r}")
    bounds = int(low), int(high)
    if not 2 <= bounds[0] <= bounds[1] <= 20:
        raise ValueError(f"two cards total 2 to 20 counting aces as 1, got {text!r}")
    return bounds


def _canonical_double_on(text: str | None) -> str | None:
    """``double_on`` as one spelling (``" 02 - 11"`` is ``"2-11"``), so that the rule book
    compares ranges, not how they were typed; None (refused) stays None."""
    if text is None:
        return None
    bounds = parse_double_on(text)
    return "any" if bounds is None else f"{bounds[0]}-{bounds[1]}"


def _read_limits(sec: Section, low_key: str, high_key: str, rule: str) -> tuple[int, int] | None:
    low = sec.get(low_key, int, check=positive_int)
    high = sec.get(high_key, int, check=positive_int)
    if low is None or high is None:
        return None
    if high < low:
        sec.problems.add(sec.key(high_key), f"{rule}: below {low_key} ({low})")
        return None
    return low, high


def _read_blackjack_options(sec: Section) -> dict[str, Any]:
    def double_on_reason(text: str) -> str | None:
        try:
            parse_double_on(text)
        except ValueError as exc:
            return f"BJ-6: {exc}"
        return None

    decks = sec.get(
        "decks",
        int,
        check=lambda v: None if DECKS[0] <= v <= DECKS[1] else f"BJ-1: 4 to 6 decks, got {v}",
    )
    bet = _read_limits(sec, "bet_min", "bet_max", "BJ-1")
    trilux = _read_limits(sec, "trilux_min", "trilux_max", "TRX-1")
    if trilux and trilux[1] > TRILUX_MAX_OVER_MIN * trilux[0]:
        sec.problems.add(
            sec.key("trilux_max"),
            f"TRX-1: the Trilux maximum may be at most {TRILUX_MAX_OVER_MIN}x the minimum "
            f"({TRILUX_MAX_OVER_MIN * trilux[0]}), got {trilux[1]}",
        )
    return {
        "decks": decks,
        "bet_min": bet and bet[0],
        "bet_max": bet and bet[1],
        "trilux_min": trilux and trilux[0],
        "trilux_max": trilux and trilux[1],
        "double_on": _canonical_double_on(
            sec.get("double_on", str, default="2-11", check=double_on_reason)
        ),
        "split_same_rank_only": sec.get("split_same_rank_only", bool, default=False),
        "enhc_loses": sec.choice("enhc_loses", ENHC_LOSES, default="all"),
        "dealer_draws": sec.choice("dealer_draws", DEALER_DRAWS, default="when-needed"),
    }


# game -> reader of its extra [rules] keys; other games register theirs here.
GAME_SECTIONS: dict[str, Callable[[Section], dict[str, Any]]] = {
    "uth": _read_uth_options,
    "casino-holdem": lambda sec: {},
    "blackjack": _read_blackjack_options,
}


def parse_profile(data: dict[str, Any], source: str, *, text: str = "") -> Profile:
    """Validate a parsed TOML document; raise ConfigError listing every problem. ``text``:
    the file's text it was parsed from (:attr:`Profile.sha256`)."""
    problems = Problems(source)
    top = Section(data, "", problems)
    head = top.section("profile")
    money_sec = top.section("money", required=False)
    rules = top.section("rules")
    tables = top.section("paytables")
    prog_sec = top.section("progressive", required=False)

    name = version = game = None
    source_doc = description = ""
    if head:
        name = head.get("name", str)
        version = head.get("version", int, check=positive_int)
        game = head.choice("game", GAME_SECTIONS)
        source_doc = head.get("source", str, default="")
        description = head.get("description", str, default="")
        head.finish()

    money = Money()
    if money_sec:
        money = Money(
            currency=money_sec.get("currency", str, default="EUR"),
            chip_unit=money_sec.get("chip_unit", int, default=1, check=positive_int) or 1,
            rounding=money_sec.choice("rounding", ROUNDING, default="down"),
        )
        money_sec.finish()

    seats = burns = 0
    deal = "shuffler"
    over_maximum = OverMaximum.CAP
    options: dict[str, Any] = {}
    if rules:
        seats = rules.get(
            "seats",
            int,
            default=MAX_SEATS,
            check=lambda v: None if 1 <= v <= MAX_SEATS else f"must be 1..{MAX_SEATS}",
        )
        deal = rules.choice("deal", DEAL_MODES, default="shuffler")
        burns = rules.get("burns", int, default=0, check=non_negative_int)
        over_maximum = OverMaximum(rules.choice("over_maximum", tuple(OverMaximum), "cap"))
        if game in GAME_SECTIONS:
            options = GAME_SECTIONS[game](rules)
        rules.finish()

    paytables: dict[str, PayTable] = {}
    if tables and game in GAME_PAYTABLES:
        for bet in GAME_PAYTABLES[game]:
            table = _paytable(tables.section(bet), bet)
            if table is not None:
                paytables[bet] = table
        tables.finish()

    progressive = None
    if prog_sec and game in GAME_PROGRESSIVE_BET:
        progressive = _read_progressive(prog_sec, game)
        prog_sec.finish()
    top.finish()
    _check_odds_only(paytables, problems)
    _check_whole_chips(money, options, progressive, problems)
    if game in GAME_SECTIONS and not problems:
        problems.items += check_profile_rules(
            game,
            seats,
            burns,
            paytables,
            progressive,
            name=name,
            source=source_doc or "",
            deal=deal or "shuffler",
            options={**options, "over_maximum": over_maximum.value},
        )
    problems.items[:] = [(key, tag_rule(key, why, game)) for key, why in problems.items]
    problems.raise_if_any()
    # every problem raised above, so the head's required keys were read
    assert name is not None and version is not None and game is not None
    return Profile(
        name,
        version,
        game,
        source_doc,
        description,
        money,
        seats,
        deal,
        burns,
        options,
        paytables,
        progressive,
        over_maximum,
        path=source,
        text=text,
    )


def _check_whole_chips(
    money: Money, options: dict[str, Any], progressive: Progressive | None, problems: Problems
) -> None:
    """The stakes a profile sets itself are whole chips (``[money] chip_unit``), as every stake
    is (controller/engine/wagers.py): the progressive's fixed stake and the blackjack limits,
    at which a stake is capped."""
    amounts = {
        f"rules.{k}": options.get(k) for k in ("bet_min", "bet_max", "trilux_min", "trilux_max")
    }
    if progressive is not None:
        amounts["progressive.stake"] = progressive.stake
    for key, amount in amounts.items():
        if isinstance(amount, int) and amount % money.chip_unit:
            problems.add(
                key,
                f"{amount} is not a whole number of chips of {money.chip_unit} ([money] chip_unit)",
            )


def _check_odds_only(paytables: dict[str, PayTable], problems: Problems) -> None:
    """Table wagers pay odds; pool percentages and fixed amounts are for progressives."""
    for bet, table in paytables.items():
        for line, pay in table.pays.items():
            if not isinstance(pay, Odds):
                problems.add(
                    f"paytables.{bet}.{line}", f"a table wager pays odds like '3:2', not {pay}"
                )


def profile_dirs() -> list[Path]:
    """Where profiles are looked up by name, first match wins."""
    dirs = [Path(p) for p in os.environ.get("CROUPIER_PROFILE_PATH", "").split(os.pathsep) if p]
    dirs.append(Path("/etc/croupier/profiles"))
    dirs.append(Path(__file__).resolve().parents[2] / "config" / "profiles")  # source tree
    dirs.append(Path(sys.prefix) / "share" / "croupier" / "profiles")  # installed
    return dirs


def _is_path(name: str) -> bool:
    """``--profile`` names a file (``my.toml``, ``dir/x``), not a profile looked up by name."""
    return Path(name).suffix == ".toml" or os.sep in name


def find_profile(name: str) -> Path:
    candidate = Path(name)
    if _is_path(name):
        if candidate.exists():  # the reader refuses a directory or a fifo, and says so
            return candidate
        raise ConfigError(name, [("(file)", "no such profile file")])
    for directory in profile_dirs():
        path = directory / f"{name}.toml"
        if path.is_file():
            return path
    searched = ", ".join(str(d) for d in profile_dirs())
    near = suggestion(name, _installed_profiles())
    raise ConfigError(name, [("(profile)", f"unknown profile; looked in {searched}{near}")])


def _installed_profiles() -> list[str]:
    return sorted({path.stem for d in profile_dirs() if d.is_dir() for path in d.glob("*.toml")})


def load_profile(name_or_path: str) -> Profile:
    """Load and validate a profile by name (``uth-gr``) or by path to a TOML file. A file
    found by name must carry that name: ``/etc/croupier/profiles/uth-it.toml`` naming itself
    ``house-it`` would play as uth-it without claiming the Italian rules (RULES.md 7)."""
    if not isinstance(name_or_path, str) or not name_or_path.strip():
        required = "a profile name like 'uth-gr' is required"
        raise ConfigError(repr(name_or_path), [("(profile)", required)])
    path = find_profile(name_or_path)
    data, text = read_toml_and_text(path)
    profile = parse_profile(data, str(path), text=text)
    if not _is_path(name_or_path) and profile.name != name_or_path:
        found = f"found as profile {name_or_path!r}, the file names itself {profile.name!r}"
        raise ConfigError(str(path), [("profile.name", f"{found} ({PROFILE_SECTION})")])
    return profile


def available_profiles() -> list[str]:
    names: set[str] = set()
    for directory in profile_dirs():
        if directory.is_dir():
            names.update(p.stem for p in directory.glob("*.toml"))
    return sorted(names)
