"""Settlement of Ultimate Texas Hold'em and Casino Hold'em rounds (UTH-4..10, CH-3..9,
PRG-2..4).

:func:`settle` takes a recorded round as plain data (see
:mod:`controller.engine.games.holdem_round`) and returns every wager of every seat with its
stake, result, amount paid (returned stake plus winnings, minor units) and the rule that
decided it. Odds are exact fractions; the profile's rounding rule is applied once per payout
(:meth:`controller.engine.profiles.Money.round_winnings`).

A seat without a decision is settled for what the table senses by itself: its progressive
stake (and nothing else may be staked). That is what the daemon does at showdown before the
dealer enters the main stakes.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from typing import Any

from controller.engine.cards import Card, format_cards
from controller.engine.games.holdem_round import HoldemRound, PoolInput, SeatInput, parse_round
from controller.engine.games.results import LOSE, PUSH, WIN, RoundResult, SeatResult, Wager
from controller.engine.paytable import Odds, category_lines
from controller.engine.poker import (
    Category,
    HandResult,
    evaluate,
    is_community_royal,
    is_pair_of_aces_or_better,
    longest_straight_flush,
)
from controller.engine.pools.awards import ProgressiveOutcome, resolve_awards
from controller.engine.profiles import Profile
from controller.errors import RoundError

FOUR = 2  # rank index of the four (CH-4: the dealer qualifies with a pair of 4s or better)
RUN_LINES = {
    7: "seven-card-straight-flush",
    6: "six-card-straight-flush",
    5: "five-card-straight-flush",
}


class _Payer:
    """Pays table wagers by odds with the profile's rounding rule."""

    def __init__(self, profile: Profile) -> None:
        self.money = profile.money

    def win(self, stake: int, odds: Fraction, rule: str, line: str | None = None) -> Wager:
        return Wager(stake, WIN, stake + self.money.round_winnings(stake * odds), rule, line)

    def by_table(
        self, profile: Profile, bet: str, stake: int, satisfied: list[str], rule: str
    ) -> Wager:
        """Win at the best listed line, or lose when no line is satisfied."""
        hit = profile.paytables[bet].lookup(satisfied)
        if hit is None:
            return Wager(stake, LOSE, 0, rule)
        line, pay = hit
        assert isinstance(pay, Odds)  # the profile loader allows only odds on table wagers
        return self.win(stake, pay.ratio, rule, line)


def _check_multiple_of_ante(seat: SeatInput, name: str, multiple: int, rule: str) -> None:
    """A recorded Play (UTH-4) or Call (CH-3) must be ``multiple`` x the Ante: the accepted
    Ante, or the Ante as put down when it was capped (its excess is then returned too)."""
    if name not in seat.stakes:
        return
    ante = seat.stakes.get("ante", 0)
    offered = ante + seat.returned.get("ante", 0)
    if seat.stakes[name] not in (ante * multiple, offered * multiple):
        raise RoundError(
            f"seat {seat.seat}: {name.capitalize()} stake {seat.stakes[name]} does not match"
            f" the decision: must be {multiple}x Ante = {ante * multiple}",
            rule,
        )


def _with_returned(seat: SeatInput, wagers: dict[str, Wager], multiple: int) -> None:
    """Record on each wager the excess over the table maximum returned to the player (BJ-1);
    a Play or Call put down on a capped Ante returns its own excess."""
    for name, wager in wagers.items():
        excess = seat.returned.get(name, 0)
        if name in ("play", "call") and name in seat.stakes:
            excess = seat.stakes[name] - seat.stakes.get("ante", 0) * multiple
        if excess:
            wagers[name] = replace(wager, returned=excess)


def _push(stake: int, rule: str) -> Wager:
    return Wager(stake, PUSH, stake, rule)


def _lose(stake: int, rule: str) -> Wager:
    return Wager(stake, LOSE, 0, rule)


# --- Ultimate Texas Hold'em ------------------------------------------------------------------


def _settle_uth_seat(
    profile: Profile, payer: _Payer, seat: SeatInput, hand: HandResult, dealer: HandResult
) -> dict[str, Wager]:
    stakes, decision = seat.stakes, seat.decision
    ante, blind = stakes.get("ante", 0), stakes.get("blind", 0)
    wagers: dict[str, Wager] = {}
    if decision is None:
        return wagers
    play = ante * decision.multiple
    _check_multiple_of_ante(seat, "play", decision.multiple, "UTH-4")
    satisfied = category_lines(hand.category)
    qualifies = dealer.category >= Category.PAIR  # UTH-5
    if decision.folded:  # UTH-4: fold loses Ante and Blind
        wagers["ante"] = _lose(ante, "UTH-4")
        wagers["blind"] = _lose(blind, "UTH-4")
    elif not qualifies and profile.options["dealer_not_qualified"] == "ante-wins":
        # UTH-7 Italian: the Ante is paid 1:1, the dealer withdraws, Play and Blind push
        wagers["play"] = _push(play, "UTH-7")
        wagers["ante"] = payer.win(ante, Fraction(1), "UTH-7")
        wagers["blind"] = _push(blind, "UTH-7")
    else:
        # UTH-6 when the dealer qualifies; UTH-7 otherwise: the Ante pushes and Play and
        # Blind are still decided against the dealer's hand
        rule = "UTH-6" if qualifies else "UTH-7"
        if hand.strength > dealer.strength:
            wagers["play"] = payer.win(play, Fraction(1), rule)
            wagers["ante"] = payer.win(ante, Fraction(1), rule) if qualifies else _push(ante, rule)
            blind_pay = profile.paytables["blind"].lookup(satisfied)
            wagers["blind"] = (
                payer.by_table(profile, "blind", blind, satisfied, "UTH-8")
                if blind_pay
                else _push(blind, "UTH-8")  # below a straight the Blind pushes
            )
        elif hand.strength == dealer.strength:
            wagers["play"] = _push(play, rule)
            wagers["ante"] = _push(ante, rule)
            wagers["blind"] = _push(blind, rule)
        else:
            wagers["play"] = _lose(play, rule)
            wagers["ante"] = _lose(ante, rule) if qualifies else _push(ante, rule)
            wagers["blind"] = _lose(blind, rule)
    if "trips" in stakes:  # UTH-9: on the player's own hand, whatever happened
        wagers["trips"] = payer.by_table(profile, "trips", stakes["trips"], satisfied, "UTH-9")
    ordered: dict[str, Wager] = {
        name: wagers[name]
        for name in ("play", "ante", "trips", "blind")
        if name in wagers and wagers[name].stake > 0
    }
    _with_returned(seat, ordered, decision.multiple)
    return ordered


def _check_uth_stakes(profile: Profile, seat: SeatInput) -> None:
    s = seat.stakes
    main = {"ante", "blind", "play", "trips"} & set(s)
    if seat.decision is None:
        if main:
            raise RoundError(
                f"seat {seat.seat}: stakes {sorted(main)} need a decision (4x 3x 2x 1x fold)",
                "UTH-4",
            )
        return
    if "ante" not in s:
        what = "a Play bet" if seat.decision.multiple else "a decision"
        raise RoundError(f"seat {seat.seat}: {what} without an Ante", "UTH-2")
    # UTH-2: equal amounts as the player put them down (before any cap, BJ-1)
    ante = s["ante"] + seat.returned.get("ante", 0)
    blind = s.get("blind", 0) + seat.returned.get("blind", 0)
    if blind != ante:
        raise RoundError(
            f"seat {seat.seat}: Blind {{blind}} must equal Ante {{ante}}",
            "UTH-2",
            amounts={"blind": blind, "ante": ante},
        )


# --- Casino Hold'em --------------------------------------------------------------------------


def _ch_dealer_qualifies(dealer: HandResult) -> bool:
    """CH-4: a pair of 4s or better."""
    return dealer.category > Category.PAIR or (
        dealer.category == Category.PAIR and (dealer.strength >> 16) & 15 >= FOUR
    )


def _bonus_lines(first_five: list[Card]) -> list[str]:
    """CH-7 lines satisfied by the first five cards (2 hole + 3 flop)."""
    five = evaluate(first_five)
    if not is_pair_of_aces_or_better(five.strength):
        return []
    if five.category == Category.PAIR:
        return ["pair-of-aces"]
    return [*category_lines(five.category)[:-2], "pair-of-aces"]


def _settle_ch_seat(
    profile: Profile,
    payer: _Payer,
    seat: SeatInput,
    hand: HandResult,
    dealer: HandResult,
    community: tuple[Card, ...],
) -> dict[str, Wager]:
    stakes, decision = seat.stakes, seat.decision
    wagers: dict[str, Wager] = {}
    if decision is None:
        return wagers
    ante = stakes["ante"]
    call = 2 * ante if not decision.folded else 0
    _check_multiple_of_ante(seat, "call", 0 if decision.folded else 2, "CH-3")
    satisfied = category_lines(hand.category)
    if decision.folded:  # CH-5: fold loses the Ante; CH-7: a folded hand's Bonus loses
        wagers["ante"] = _lose(ante, "CH-5")
        if "bonus" in stakes:
            wagers["bonus"] = _lose(stakes["bonus"], "CH-7")
        _with_returned(seat, wagers, 0)
        return wagers
    if not _ch_dealer_qualifies(dealer):  # CH-5: Ante per CH-6, Call pushes
        wagers["call"] = _push(call, "CH-5")
        wagers["ante"] = payer.by_table(profile, "ante", ante, satisfied, "CH-6")
    elif hand.strength > dealer.strength:
        wagers["call"] = payer.win(call, Fraction(1), "CH-5")
        wagers["ante"] = payer.by_table(profile, "ante", ante, satisfied, "CH-6")
    elif hand.strength == dealer.strength:
        wagers["call"] = _push(call, "CH-5")
        wagers["ante"] = _push(ante, "CH-5")
    else:
        wagers["call"] = _lose(call, "CH-5")
        wagers["ante"] = _lose(ante, "CH-5")
    if "bonus" in stakes:
        lines = _bonus_lines([*seat.cards, *community[:3]])
        wagers["bonus"] = payer.by_table(profile, "bonus", stakes["bonus"], lines, "CH-7")
    _with_returned(seat, wagers, 2)
    return wagers


def _check_ch_stakes(seat: SeatInput) -> None:
    s = seat.stakes
    if "bonus" in s and "ante" not in s:
        raise RoundError(f"seat {seat.seat}: a Bonus bet needs an Ante", "CH-2")
    if seat.decision is None:
        main = {"ante", "bonus", "call"} & set(s)
        if main:
            raise RoundError(
                f"seat {seat.seat}: stakes {sorted(main)} need a decision (play or fold)", "CH-3"
            )
    elif "ante" not in s:
        raise RoundError(f"seat {seat.seat}: a decision without an Ante", "CH-2")


# --- progressive (PRG-2..4, CH-8, CH-9) ------------------------------------------------------


def progressive_lines(
    game: str, hole: tuple[Card, ...], community: tuple[Card, ...], hand: HandResult
) -> list[str]:
    """The progressive lines a seat's seven cards satisfy, best first (PRG-3 or CH-8)."""
    if game == "uth":
        if hand.category == Category.ROYAL_FLUSH:
            top = "community-royal" if is_community_royal(community) else "royal-flush"
            return [top, *category_lines(Category.STRAIGHT_FLUSH)]
        return category_lines(hand.category)
    run = longest_straight_flush((*hole, *community))
    runs = [RUN_LINES[n] for n in (7, 6, 5) if n <= run]
    return runs + category_lines(min(hand.category, Category.FOUR_OF_A_KIND))


def _settle_progressive(
    profile: Profile, rnd: HoldemRound, hands: dict[int, HandResult]
) -> tuple[dict[int, dict[str, Wager]], dict[str, Any]]:
    prog = profile.progressive
    bettors = [s for s in rnd.seats if prog and prog.bet in s.stakes]
    if not bettors:
        return {}, {}
    assert prog is not None
    rules = {"progressive": ("PRG-3", "PRG-4"), "jumbo7": ("CH-8", "CH-9")}[prog.bet]
    for s in bettors:
        if s.stakes[prog.bet] % prog.stake:
            raise RoundError(
                f"seat {s.seat}: {prog.bet} stake {s.stakes[prog.bet]} is not a multiple of the"
                f" fixed stake {prog.stake}",
                "UTH-2" if profile.game == "uth" else "CH-2",
            )
    hits = {}
    for s in bettors:
        lines = progressive_lines(profile.game, s.cards, rnd.community, hands[s.seat])
        hits[s.seat] = prog.paytable.lookup(lines)
    pool = rnd.pools.get(prog.bet)
    jackpot = prog.jackpot_line()
    if pool is None and any(h and h[0] == jackpot for h in hits.values()):
        raise RoundError(
            f"pools.{prog.bet}: the pool amount is needed to pay the {jackpot} line", rules[0]
        )
    pool = pool or PoolInput(0, None)
    jackpot_hits = sum(1 for h in hits.values() if h and h[0] == jackpot)
    if pool.seed is None and jackpot_hits > 1 and prog.multiple_hits == "seat-order":
        raise RoundError(
            f"pools.{prog.bet}: several jackpot hits in seat order need the pool's seed"
            ' ({"amount": N, "seed": N})',
            "PRG-5",
        )
    if pool.link and not (prog.award == "share-round" and prog.share_scope == "link"):
        raise RoundError(
            f"pools.{prog.bet}.link: profile {profile.name} shares no jackpot across the link"
            f" (award {prog.award!r}, share_scope {prog.share_scope!r})",
            "CH-9",
        )
    for table, rid, seat in pool.link:
        if pool.link[(table, rid, seat)] % prog.stake:
            raise RoundError(
                f"pools.{prog.bet}.link: {table} {rid} seat {seat}: stake is not a multiple of"
                f" the fixed stake {prog.stake}",
                "CH-2",
            )
    outcome = resolve_awards(
        hits=hits,
        stakes={s.seat: s.stakes[prog.bet] for s in bettors},
        pool=pool.amount,
        seed=pool.seed or 0,
        unit_stake=prog.stake,
        award=prog.award,
        multiple_hits=prog.multiple_hits,
        envy_bonus=prog.envy_bonus,
        envy_to_winner=prog.envy_to_winner,
        others=pool.link,
    )
    return _progressive_wagers(prog.bet, outcome, rules, jackpot, prog.award), _pool_report(
        prog.bet, outcome, pool
    )


def _progressive_wagers(
    bet: str, outcome: ProgressiveOutcome, rules: tuple[str, str], jackpot: str | None, award: str
) -> dict[int, dict[str, Wager]]:
    line_rule, extra_rule = rules
    wagers: dict[int, dict[str, Wager]] = {}
    for seat, a in outcome.awards.items():
        shared = award == "share-round" and a.line == jackpot
        rule = extra_rule if shared else line_rule
        # a seat that hit the jackpot line won the pool (PRG-3, CH-9), even a pool that held 0
        won = bool(a.amount) or seat in outcome.order
        own = Wager(a.stake, WIN if won else LOSE, a.amount, rule, a.line if won else None)
        wagers[seat] = {bet: own}
        if a.envy:
            wagers[seat]["envy"] = Wager(0, WIN, a.envy, "PRG-4")
        if a.share:
            wagers[seat]["jackpot-share"] = Wager(0, WIN, a.share, "CH-9")
    return wagers


def _pool_report(bet: str, outcome: ProgressiveOutcome, pool: PoolInput) -> dict[str, Any]:
    report: dict[str, Any] = {"before": outcome.pool_before, "jackpot_paid": outcome.jackpot_paid}
    if pool.seed is not None or not outcome.resets:
        report["after"] = outcome.pool_after
    if outcome.order:
        report["jackpot_seats"] = outcome.order
    if outcome.link_shares:  # CH-9: fixed at the hit, paid by each table at its settlement
        report["link_shares"] = [
            {"table": table, "round": rid, "seat": seat, "share": share}
            for (table, rid, seat), share in sorted(outcome.link_shares.items())
        ]
    return {bet: report}


# --- the round -------------------------------------------------------------------------------


def settle(profile: Profile, data: dict[str, Any], *, table_record: bool = False) -> RoundResult:
    """Settle a recorded UTH or Casino Hold'em round (see the module docstring);
    ``table_record``: the table's own record of its live pool (see
    :func:`~controller.engine.games.holdem_round.parse_round`)."""
    rnd = parse_round(profile, data, table_record=table_record)
    payer = _Payer(profile)
    dealer = evaluate((*rnd.dealer, *rnd.community))
    hands = {s.seat: evaluate((*s.cards, *rnd.community)) for s in rnd.seats}
    if profile.game == "uth":
        qualifies = dealer.category >= Category.PAIR  # UTH-5
        for s in rnd.seats:
            _check_uth_stakes(profile, s)
    else:
        qualifies = _ch_dealer_qualifies(dealer)  # CH-4
        for s in rnd.seats:
            _check_ch_stakes(s)
    progressive, pools = _settle_progressive(profile, rnd, hands)
    seats = []
    for s in rnd.seats:
        if profile.game == "uth":
            wagers = _settle_uth_seat(profile, payer, s, hands[s.seat], dealer)
        else:
            wagers = _settle_ch_seat(profile, payer, s, hands[s.seat], dealer, rnd.community)
        wagers.update(progressive.get(s.seat, {}))
        bet = profile.progressive.bet if profile.progressive else ""
        if bet in wagers and s.returned.get(bet):  # over the fixed stake (UTH-2, BJ-1)
            wagers[bet] = replace(wagers[bet], returned=s.returned[bet])
        seats.append(
            SeatResult(
                s.seat, hands[s.seat].category.label, wagers, [str(c) for c in hands[s.seat].cards]
            )
        )
    if profile.game == "uth":
        seats.sort(key=lambda r: -r.seat)  # UTH-10: seats are settled right to left
    return RoundResult(
        game=profile.game,
        profile=profile.name,
        dealer={
            "hand": dealer.category.label,
            "qualifies": qualifies,
            "cards": format_cards(dealer.cards).split(),
        },
        seats=seats,
        pools=pools,
    )
