"""Trilux blackjack settlement audited against RULES.md (BJ-1..9, TRX-1..2) and seed 001 by an
outside lab's hand: every round below was worked out from the rule text before it was run
through ``croupier settle --json``; the figures are the lab's, not the engine's.

Shoe order (BJ-2, docs/blackjack-round.md): the first card to each seat left to right, the
dealer's up card, the second card to each seat, then each seat's hands in play order, then the
dealer's cards. Profile trilux-gr unless a case changes ``[rules]``: bet 1000..100000, Trilux
100..5000, 6 decks, double_on 2-11 (aces as 1), split_same_rank_only false, enhc_loses all,
dealer_draws when-needed, winnings rounded down to the cent.

Each case: (id, rule, what it checks, round, expected), expected being
``{"wagers": {(seat, wager): (result, stake, paid[, returned])}, "dealer": [cards]}`` (returned
is 0 when left out) or ``{"error": (rule, words)}`` for a refusal (one line, exit status 1);
``"profile"`` changes keys of the profile's ``[rules]``."""

from __future__ import annotations

from pathlib import Path

import pytest
from blackjack_support import HOUSE_VARIANT
from rules_settle_support import bj, profile_file, refused, seat_of, settled
from rules_settle_support import bj_seat as seat

S = ["stand"]
CASES = [
    # --- BJ-5 naturals ------------------------------------------------------------------
    (
        "N01",
        "BJ-5",
        "BJ v 9: 3:2 on 2000, dealer draws nothing",
        bj("As 9c Kd", seat(1, 2000)),
        {"wagers": {(1, "main"): ("win", 2000, 5000)}, "dealer": ["9c"]},
    ),
    (
        "N02",
        "BJ-5",
        "BJ 3:2 on odd 1555 = 2332.5 rounded down (profile rounding=down)",
        bj("Kd 7c Ah", seat(1, 1555)),
        {"wagers": {(1, "main"): ("win", 1555, 1555 + 2332)}},
    ),
    (
        "N03",
        "BJ-5",
        "BJ v T up: one card drawn (9s), no dealer BJ -> 3:2",
        bj("Ah Tc Kd 9s", seat(1, 1000)),
        {"wagers": {(1, "main"): ("win", 1000, 2500)}, "dealer": ["Tc", "9s"]},
    ),
    (
        "N04",
        "BJ-5",
        "BJ v dealer BJ: stand-off",
        bj("Ah Kc Td Ad", seat(1, 1000)),
        {"wagers": {(1, "main"): ("push", 1000, 1000)}},
    ),
    (
        "N05",
        "BJ-5",
        "BJ v A up, insurance declined, dealer A7: 3:2",
        bj("As Ac Qd 7h", seat(1, 1000)),
        {"wagers": {(1, "main"): ("win", 1000, 2500)}, "dealer": ["Ac", "7h"]},
    ),
    (
        "N06",
        "BJ-5",
        "BJ beats a dealer 3-card 21; other seat's 19 loses",
        bj("As Th 5c Kd 9h 6d Ts", seat(1, 1000), seat(2, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("win", 1000, 2500), (2, "main"): ("lose", 1000, 0)}},
    ),
    (
        "N07",
        "BJ-5",
        "player 3-card 21 v dealer 3-card 21: push",
        bj("5h 6c 6h Th 5d Ts", seat(1, 1000, {"main": ["hit"]})),
        {"wagers": {(1, "main"): ("push", 1000, 1000)}},
    ),
    (
        "N08",
        "BJ-5",
        "20 v 19: 1:1",
        bj("Th 9c Qd Ts", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("win", 1000, 2000)}},
    ),
    (
        "N09",
        "BJ-5",
        "18 v 18: push",
        bj("Th 8c 8d Td", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("push", 1000, 1000)}},
    ),
    (
        "N10",
        "BJ-3",
        "bust loses though the dealer busts; other seat wins (seats listed 2,1)",
        bj("Th Ts 6c 5d 7d Kh Tc 9h", seat(2, 1000, {"main": S}), seat(1, 1000, {"main": ["hit"]})),
        {"wagers": {(1, "main"): ("lose", 1000, 0), (2, "main"): ("win", 1000, 2000)}},
    ),
    (
        "N11",
        "BJ-5",
        "dealer BJ beats player 20 (T up, A drawn)",
        bj("Th Tc Qd As", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("lose", 1000, 0)}},
    ),
    # --- BJ-4 dealer --------------------------------------------------------------------
    (
        "D01",
        "BJ-4",
        "dealer A6 soft 17 stands; 18 wins",
        bj("Ts Ah 8d 6c", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("win", 1000, 2000)}, "dealer": ["Ah", "6c"]},
    ),
    (
        "D02",
        "BJ-4",
        "dealer A5 soft 16 draws K (hard 16) draws 3 = 19; 19 pushes",
        bj("Ts Ah 9d 5c Ks 3d", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("push", 1000, 1000)}, "dealer": ["Ah", "5c", "Ks", "3d"]},
    ),
    (
        "D03",
        "BJ-4",
        "dealer 2-A-4 soft 17 (3 cards) stands; 18 wins",
        bj("Th 2d 8s Ac 4h", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("win", 1000, 2000)}, "dealer": ["2d", "Ac", "4h"]},
    ),
    (
        "D04",
        "BJ-4",
        "dealer T6 draws on 16 -> 18; 17 loses",
        bj("Ts Tc 7d 6h 2s", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("lose", 1000, 0)}, "dealer": ["Tc", "6h", "2s"]},
    ),
    (
        "D05",
        "BJ-4",
        "every hand bust: dealer draws nothing (when-needed)",
        bj("Ts 9c 5d Kh", seat(1, 1000, {"main": ["hit"]})),
        {"wagers": {(1, "main"): ("lose", 1000, 0)}, "dealer": ["9c"]},
    ),
    (
        "D06",
        "MD-S1",
        "every hand bust + a dealer card recorded: refused, card not due",
        bj("Ts 9c 5d Kh 7s", seat(1, 1000, {"main": ["hit"]})),
        {"error": ("MD-S1", "left in the shoe")},
    ),
    (
        "D07",
        "BJ-4",
        "dealer_draws=always: dealer draws to 17 though the seat busted",
        bj("Ts 9c 5d Kh 7s 2c", seat(1, 1000, {"main": ["hit"]})),
        {
            "profile": {"dealer_draws": "always"},
            "wagers": {(1, "main"): ("lose", 1000, 0)},
            "dealer": ["9c", "7s", "2c"],
        },
    ),
    (
        "D08",
        "BJ-4",
        "dealer 12 draws, busts at 22; 12 stands and wins",
        bj("Ts 6c 2d Tc 6h", seat(1, 1000, {"main": S})),
        {"wagers": {(1, "main"): ("win", 1000, 2000)}},
    ),
    # --- BJ-6 double ----------------------------------------------------------------------
    (
        "B01",
        "BJ-6",
        "double on 11 -> 21 v 17",
        bj("6h Tc 5d Ts 7c", seat(1, 1000, {"main": ["double"]})),
        {"wagers": {(1, "main"): ("win", 2000, 4000)}},
    ),
    (
        "B02",
        "BJ-6",
        "double on A-A (total 2 with aces as 1) -> A A 9 = 21 v 17",
        bj("Ah 7c Ad 9s Tc", seat(1, 1000, {"main": ["double"]})),
        {"wagers": {(1, "main"): ("win", 2000, 4000)}},
    ),
    (
        "B03",
        "BJ-6",
        "double on soft 19 A-8 (counts 9 with the ace as 1) -> soft 21 v 17",
        bj("As 9c 8d 2h 8h", seat(1, 1000, {"main": ["double"]})),
        {"wagers": {(1, "main"): ("win", 2000, 4000)}},
    ),
    (
        "B04",
        "BJ-6",
        "double refused on hard 12",
        bj("9h 7c 3d 8s", seat(1, 1000, {"main": ["double"]})),
        {"error": ("BJ-6", "counts 12")},
    ),
    (
        "B05",
        "BJ-6",
        "double refused on three cards",
        bj("2h 7c 3d 4s 5s", seat(1, 1000, {"main": ["hit", "double"]})),
        {"error": ("BJ-6", "first two cards")},
    ),
    (
        "B06",
        "BJ-6",
        "double lost: 5 5 + 2 = 12 v 18",
        bj("5h Tc 5d 2s 8h", seat(1, 1000, {"main": ["double"]})),
        {"wagers": {(1, "main"): ("lose", 2000, 0)}},
    ),
    (
        "B07",
        "BJ-6",
        "double push: 4 6 + 8 = 18 v 18",
        bj("4h Tc 6d 8s 8h", seat(1, 1000, {"main": ["double"]})),
        {"wagers": {(1, "main"): ("push", 2000, 2000)}},
    ),
    (
        "B08",
        "BJ-6",
        "hit after the double's card refused",
        bj("6h 9c 5d Ts 4d 8s", seat(1, 1000, {"main": ["double", "hit"]})),
        {"error": ("BJ-6", "double takes one card")},
    ),
    (
        "B09",
        "BJ-6",
        "double_on=any: 9+3=12 doubles, 20 v 17",
        bj("9h 7c 3d 8s Tc", seat(1, 1000, {"main": ["double"]})),
        {
            "profile": {"double_on": "any"},
            "house": True,  # BJ-6 fixes 2 to 11 for a file claiming trilux-gr
            "wagers": {(1, "main"): ("win", 2000, 4000)},
        },
    ),
    (
        "B10",
        "BJ-6",
        "A-K counts 11 with the ace as 1, but it is a blackjack: no decision, a double is"
        " refused as an action after the hand ended",
        bj("Ah 7c Kd", seat(1, 1000, {"main": ["double"]})),
        {"error": ("BJ-5", "blackjack")},
    ),
    # --- BJ-7 split ----------------------------------------------------------------------
    (
        "P01",
        "BJ-7",
        "8-8 split: 18 pushes v 18, 15 loses",
        bj("8h 6c 8d Th 7s Kc 2d", seat(1, 1000, {"main": ["split", "stand"], "main.2": S})),
        {"wagers": {(1, "main"): ("push", 1000, 1000), (1, "main.2"): ("lose", 1000, 0)}},
    ),
    (
        "P02",
        "BJ-7",
        "split aces: A+K = 21 pays 1:1 (not BJ); A+5 soft 16 loses v 19",
        bj("As 9h Ad Kc 5d Th", seat(1, 1000, {"main": ["split"]})),
        {"wagers": {(1, "main"): ("win", 1000, 2000), (1, "main.2"): ("lose", 1000, 0)}},
    ),
    (
        "P03",
        "BJ-7",
        "hit on a split ace refused",
        bj("As 9h Ad 5c 5d Th", seat(1, 1000, {"main": ["split", "hit"]})),
        {"error": ("BJ-7", "split ace takes one card")},
    ),
    (
        "P04",
        "BJ-7",
        "third split refused (at most two)",
        bj("8s 9h 8d 8c 8h", seat(1, 1000, {"main": ["split", "split", "split"]})),
        {"error": ("BJ-7", "at most two splits")},
    ),
    (
        "P05",
        "BJ-7",
        "resplit to 3 hands; play order main, main.3, main.2",
        bj(
            "8s 7h 8d 8c Th 2c 9s Tc",
            seat(1, 1000, {"main": ["split", "split", "stand"], "main.3": S, "main.2": S}),
        ),
        {
            "wagers": {
                (1, "main"): ("win", 1000, 2000),
                (1, "main.3"): ("lose", 1000, 0),
                (1, "main.2"): ("push", 1000, 1000),
            }
        },
    ),
    (
        "P06",
        "BJ-7",
        "T-J split (same value): 19 pushes v 19, split 21 (J+A) wins 1:1",
        bj("Ts 9h Jd 9c Ac Th", seat(1, 1000, {"main": ["split", "stand"]})),
        {"wagers": {(1, "main"): ("push", 1000, 1000), (1, "main.2"): ("win", 1000, 2000)}},
    ),
    (
        "P07",
        "BJ-7",
        "split of 9-T refused (not the same value)",
        bj("9s 7h Td", seat(1, 1000, {"main": ["split"]})),
        {"error": ("BJ-7", "not of the same value")},
    ),
    (
        "P08",
        "BJ-6",
        "double after split on both hands: 4+7 D 9 = 20, 4+6 D A = 21 v 17",
        bj(
            "4h 9c 4d 7s 9h 6s Ad 8c",
            seat(1, 1000, {"main": ["split", "double"], "main.2": ["double"]}),
        ),
        {"wagers": {(1, "main"): ("win", 2000, 4000), (1, "main.2"): ("win", 2000, 4000)}},
    ),
    (
        "P09",
        "BJ-5",
        "split 21s (T+A, T+A) lose to a dealer blackjack",
        bj("Ts Tc Td Ah Ac As", seat(1, 1000, {"main": ["split"]})),
        {"wagers": {(1, "main"): ("lose", 1000, 0), (1, "main.2"): ("lose", 1000, 0)}},
    ),
    (
        "P10",
        "BJ-7",
        "split_same_rank_only=true refuses T-J split",
        bj("Ts 9h Jd 9c Ac Th", seat(1, 1000, {"main": ["split", "stand"]})),
        {"profile": {"split_same_rank_only": True}, "error": ("BJ-7", "same rank")},
    ),
    (
        "P11",
        "BJ-7",
        "split aces, each gets an ace: no resplit (A-A on a split ace)",
        bj("As 9h Ad Ac Qd Th", seat(1, 1000, {"main": ["split", "split"]})),
        {"error": ("BJ-7", "split ace takes one card")},
    ),
    # --- BJ-8 insurance ----------------------------------------------------------------
    (
        "I01",
        "BJ-8",
        "insurance 700 on 3000 wins 2:1 on a dealer BJ; 20 loses",
        bj("Th Ah Td Kc", seat(1, 3000, {"main": S}, insurance=700)),
        {"wagers": {(1, "insurance"): ("win", 700, 2100), (1, "main"): ("lose", 3000, 0)}},
    ),
    (
        "I02",
        "BJ-8",
        "insurance lost without dealer BJ (A8 = 19); 20 wins",
        bj("Th Ah Td 8c", seat(1, 3000, {"main": S}, insurance=700)),
        {"wagers": {(1, "insurance"): ("lose", 700, 0), (1, "main"): ("win", 3000, 6000)}},
    ),
    (
        "I03",
        "BJ-8",
        "insurance 499 below half the 1000 minimum refused",
        bj("Th Ah Td 8c", seat(1, 3000, {"main": S}, insurance=499)),
        {"error": ("BJ-8", "below the minimum 500")},
    ),
    (
        "I04",
        "BJ-8",
        "insurance 500 = half the min = half the bet accepted",
        bj("Th Ah Td Kc", seat(1, 1000, {"main": S}, insurance=500)),
        {"wagers": {(1, "insurance"): ("win", 500, 1500), (1, "main"): ("lose", 1000, 0)}},
    ),
    (
        "I05",
        "BJ-8",
        "insurance 800 on 1000 capped at 500, 300 returned",
        bj("Th Ah Td Kc", seat(1, 1000, {"main": S}, insurance=800)),
        {"wagers": {(1, "insurance"): ("win", 500, 1500, 300)}},
    ),
    (
        "I06",
        "BJ-8",
        "insurance against a K up card refused",
        bj("Th Kc Td 8c", seat(1, 1000, {"main": S}, insurance=500)),
        {"error": ("BJ-8", "only against an ace")},
    ),
    (
        "I07",
        "BJ-8",
        "'even money': BJ + insurance 500 v dealer BJ: 1500 + stand-off 1000",
        bj("As Ac Kd Qh", seat(1, 1000, insurance=500)),
        {"wagers": {(1, "insurance"): ("win", 500, 1500), (1, "main"): ("push", 1000, 1000)}},
    ),
    (
        "I08",
        "BJ-8",
        "seat busts, insurance alive: dealer draws one card (K) = BJ, ins 1500",
        bj("Th Ah 6d 9s Kc", seat(1, 1000, {"main": ["hit"]}, insurance=500)),
        {
            "wagers": {(1, "insurance"): ("win", 500, 1500), (1, "main"): ("lose", 1000, 0)},
            "dealer": ["Ah", "Kc"],
        },
    ),
    (
        "I09",
        "BJ-8",
        "limits main min 3000: insurance min 1500; 1400 refused",
        bj(
            "Th Ah Td Kc",
            seat(1, 4000, {"main": S}, insurance=1400),
            limits={"main": {"min": 3000, "max": 100000}},
        ),
        {"error": ("BJ-8", "below the minimum 1500")},
    ),
    # --- BJ-9 ----------------------------------------------------------------------------
    (
        "E01",
        "BJ-9",
        "double then dealer BJ: enhc_loses=all takes 2000",
        bj("6h Th 5d 9s Ac", seat(1, 1000, {"main": ["double"]})),
        {"wagers": {(1, "main"): ("lose", 2000, 0)}},
    ),
    (
        "E02",
        "BJ-9",
        "double then dealer BJ: original-only returns the doubling (1000)",
        bj("6h Th 5d 9s Ac", seat(1, 1000, {"main": ["double"]})),
        {"profile": {"enhc_loses": "original-only"}, "wagers": {(1, "main"): ("lose", 2000, 1000)}},
    ),
    (
        "E03",
        "BJ-9",
        "split then dealer BJ, original-only: main lost, main.2 pushes",
        bj("8h Th 8d 9s 9c Ac", seat(1, 1000, {"main": ["split", "stand"], "main.2": S})),
        {
            "profile": {"enhc_loses": "original-only"},
            "wagers": {(1, "main"): ("lose", 1000, 0), (1, "main.2"): ("push", 1000, 1000)},
        },
    ),
    # --- BJ-1 limits -----------------------------------------------------------------------
    (
        "L01",
        "BJ-1",
        "main 150000 over max 100000: capped, 50000 returned, BJ pays on 100000",
        bj("As 9c Kd", seat(1, 150000)),
        {"wagers": {(1, "main"): ("win", 100000, 250000, 50000)}},
    ),
    (
        "L02",
        "BJ-1",
        "main 999 below min refused",
        bj("As 9c Kd", seat(1, 999)),
        {"error": ("BJ-1", "below the table minimum 1000")},
    ),
    (
        "L03",
        "BJ-1",
        "seat 8 refused (7 seats)",
        bj("As 9c Kd", seat(8, 1000)),
        {"error": ("BJ-1", "not a seat")},
    ),
    (
        "L04",
        "BJ-1",
        "decks 7 refused",
        bj("As 9c Kd", seat(1, 1000), decks=7),
        {"error": ("BJ-1", "4 to 6 decks")},
    ),
    (
        "L05",
        "BJ-1",
        "round limits main 2000..5000: 8000 capped 5000, double 10000",
        bj(
            "6h 9c 5d Ts 8s",
            seat(1, 8000, {"main": ["double"]}),
            limits={"main": {"min": 2000, "max": 5000}},
        ),
        {"wagers": {(1, "main"): ("win", 10000, 20000, 3000)}},
    ),
    (
        "L06",
        "BJ-1",
        "round limits main min 2000: 1500 refused",
        bj("As 9c Kd", seat(1, 1500), limits={"main": {"min": 2000, "max": 5000}}),
        {"error": ("BJ-1", "below the table minimum 2000")},
    ),
    (
        "L07",
        "BJ-8",
        "capped main 100000: insurance 60000 capped at 50000 (10000 returned)",
        bj("Th Ah Td Kc", seat(1, 150000, {"main": S}, insurance=60000)),
        {
            "wagers": {
                (1, "insurance"): ("win", 50000, 150000, 10000),
                (1, "main"): ("lose", 100000, 0, 50000),
            }
        },
    ),
    (
        "L08",
        "BJ-1",
        "split on a capped bet: each hand 100000 (split 8s: 18 and 18 v 17)",
        bj("8h 7c 8d Th Ts Tc", seat(1, 120000, {"main": ["split", "stand"], "main.2": S})),
        {
            "wagers": {
                (1, "main"): ("win", 100000, 200000, 20000),
                (1, "main.2"): ("win", 100000, 200000),
            }
        },
    ),
    (
        "L09",
        "TRX-1",
        "Trilux 6000 over max 5000: capped, 1000 returned (flush 5:1 on 5000)",
        bj("2h Kh 9h 7c", seat(1, 1000, {"main": S}, trilux=6000)),
        {"wagers": {(1, "trilux"): ("win", 5000, 30000, 1000), (1, "main"): ("lose", 1000, 0)}},
    ),
    (
        "L10",
        "TRX-1",
        "Trilux 50 below min 100 refused",
        bj("As 9c Kd", seat(1, 1000, trilux=50)),
        {"error": ("TRX-1", "below the table minimum 100")},
    ),
    (
        "L11",
        "TRX-1",
        "limits trilux 100..6000 (60x) refused",
        bj("As 9c Kd", seat(1, 1000), limits={"trilux": {"min": 100, "max": 6000}}),
        {"error": ("TRX-1", "50x")},
    ),
    (
        "L12",
        "BJ-1",
        "stake on a wager not offered (progressive) refused",
        bj("As 9c Kd", seat(1, 1000, progressive=100)),
        {"error": ("BJ-1", "progressive")},
    ),
    # --- TRX-2 --------------------------------------------------------------------------------
    (
        "T01",
        "TRX-2",
        "suited A-K-Q 100:1 on 200; BJ v Q pays 3:2",
        bj("Ah Qh Kh 9c", seat(1, 1000, trilux=200)),
        {"wagers": {(1, "trilux"): ("win", 200, 20200), (1, "main"): ("win", 1000, 2500)}},
    ),
    (
        "T02",
        "TRX-2",
        "7-8-9 suited straight flush 35:1",
        bj("7s 9s 8s 8d", seat(1, 1000, {"main": S}, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 3600), (1, "main"): ("lose", 1000, 0)}},
    ),
    (
        "T03",
        "TRX-2",
        "A-2-3 suited straight flush (A low) 35:1",
        bj("Ad 3d 2d Tc 9c", seat(1, 1000, {"main": S}, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 3600), (1, "main"): ("win", 1000, 2000)}},
    ),
    (
        "T04",
        "TRX-2",
        "three 5s 33:1 on 300",
        bj("5c 5h 5d Ts Kd", seat(1, 1000, {"main": S}, trilux=300)),
        {"wagers": {(1, "trilux"): ("win", 300, 10200), (1, "main"): ("win", 1000, 2000)}},
    ),
    (
        "T05",
        "TRX-2",
        "suited trips Qs Qs Qs: three of a kind 33:1 (better than flush)",
        bj("Qs Qs Qs 7c", seat(1, 1000, {"main": S}, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 3400), (1, "main"): ("win", 1000, 2000)}},
    ),
    (
        "T06",
        "TRX-2",
        "J-Q-K offsuit straight 10:1",
        bj("Jh Qc Kd 8s", seat(1, 1000, {"main": S}, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 1100), (1, "main"): ("win", 1000, 2000)}},
    ),
    (
        "T07",
        "TRX-2",
        "Q-K-A offsuit straight 10:1 (A high); BJ v Q draws 7",
        bj("Kh Qc As 7h", seat(1, 1000, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 1100), (1, "main"): ("win", 1000, 2500)}},
    ),
    (
        "T08",
        "TRX-2",
        "K-A-2 is no straight: lost",
        bj("Kh 2c As", seat(1, 1000, trilux=100)),
        {"wagers": {(1, "trilux"): ("lose", 100, 0), (1, "main"): ("win", 1000, 2500)}},
    ),
    (
        "T09",
        "TRX-2",
        "flush 5:1",
        bj("2h Kh 9h 7c", seat(1, 1000, {"main": S}, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 600), (1, "main"): ("lose", 1000, 0)}},
    ),
    (
        "T10",
        "TRX-2",
        "A-K-Q mixed suits: straight 10:1, not 100:1; dealer Q then 5 = 15 stops",
        bj("Ah Qc Kh 5d", seat(1, 1000, trilux=100)),
        {"wagers": {(1, "trilux"): ("win", 100, 1100), (1, "main"): ("win", 1000, 2500)}},
    ),
    (
        "T11",
        "TRX-2",
        "a pair is nothing",
        bj("7h 9c 7d 9d", seat(1, 1000, {"main": S}, trilux=100)),
        {"wagers": {(1, "trilux"): ("lose", 100, 0), (1, "main"): ("lose", 1000, 0)}},
    ),
    (
        "T12",
        "TRX-2",
        "two seats: each own two cards + dealer's first card (6-7-8 straight, "
        "seat 2 9h 9c 8c nothing)",
        bj(
            "6h 9h 8c 7d 9c Ts",
            seat(1, 1000, {"main": S}, trilux=100),
            seat(2, 1000, {"main": S}, trilux=100),
        ),
        {
            "wagers": {
                (1, "trilux"): ("win", 100, 1100),
                (2, "trilux"): ("lose", 100, 0),
                (1, "main"): ("lose", 1000, 0),
                (2, "main"): ("push", 1000, 1000),
            }
        },
    ),
    # --- MD / malformed ---------------------------------------------------------------------
    (
        "M01",
        "MD-S1",
        "shoe ends before the dealer's card",
        bj("Ts 9c", seat(1, 1000)),
        {"error": ("MD-S1", "ends after 2 cards")},
    ),
    (
        "M02",
        "BJ-1",
        "a 7th 2c in a 6-deck shoe",
        bj("2c 9c 2c 2c 2c 2c 2c 2c", seat(1, 1000, {"main": ["hit"] * 6})),
        {"error": ("BJ-1", "6 decks")},
    ),
    (
        "M03",
        "BJ-1",
        "a 5th As in a 4-deck shoe",
        bj("As 9c As As As As", seat(1, 1000, {"main": ["hit"] * 3}), decks=4),
        {"error": ("BJ-1", "4 decks")},
    ),
    (
        "M04",
        None,
        "bad card 1x in the shoe",
        bj("As 9c 1x", seat(1, 1000)),
        {"error": (None, "shoe")},
    ),
    (
        "M05",
        "BJ-3",
        "surrender is not a decision of the rule book",
        bj("Ts 9c 6d", seat(1, 1000, {"main": ["surrender"]})),
        {"error": ("BJ-3", "surrender")},
    ),
    (
        "M06",
        "BJ-7",
        "actions for a hand that does not exist",
        bj("Ts 9c 8d 9h", seat(1, 1000, {"main": S, "main.2": S})),
        {"error": ("BJ-7", "main.2")},
    ),
    (
        "M07",
        "BJ-3",
        "missing decision",
        bj("Ts 9c 6d", seat(1, 1000)),
        {"error": ("BJ-3", "no further action")},
    ),
    (
        "M08",
        "BJ-5",
        "hit on a blackjack",
        bj("As 9c Kd 5d", seat(1, 1000, {"main": ["hit"]})),
        {"error": ("BJ-5", "blackjack")},
    ),
    (
        "M09",
        None,
        "unknown top-level key",
        {**bj("As 9c Kd", seat(1, 1000)), "dealr": ["9c"]},
        {"error": (None, "dealr")},
    ),
    (
        "M10",
        None,
        "main as a string",
        bj("As 9c Kd", {"seat": 1, "stakes": {"main": "1000"}}),
        {"error": (None, "seats[0].stakes.main")},
    ),
    (
        "M11",
        None,
        "negative main",
        bj("As 9c Kd", {"seat": 1, "stakes": {"main": -5}}),
        {"error": (None, "seats[0].stakes.main")},
    ),
    (
        "M12",
        None,
        "main 1000.5 (float)",
        bj("As 9c Kd", {"seat": 1, "stakes": {"main": 1000.5}}),
        {"error": (None, "main")},
    ),
    ("M13", "BJ-1", "no seats", bj("As 9c Kd"), {"error": ("BJ-1", "no seat")}),
    (
        "M14",
        "BJ-1",
        "seat listed twice",
        bj("As Ad 9c Kd Kh", seat(1), seat(1)),
        {"error": ("BJ-1", "twice")},
    ),
    ("M15", None, "decks 'six'", bj("As 9c Kd", seat(1), decks="six"), {"error": (None, "decks")}),
    ("M16", None, "game uth", bj("As 9c Kd", seat(1), game="uth"), {"error": (None, "game")}),
    (
        "M17",
        "BJ-3",
        "hit after stand",
        bj("Ts 9c 8d 9h 2c", seat(1, 1000, {"main": ["stand", "hit"]})),
        {"error": ("BJ-3", "stood")},
    ),
    ("M18", None, "seat 0", bj("As 9c Kd", seat(0)), {"error": (None, "seat")}),
    (
        "M19",
        None,
        "missing main",
        bj("As 9c Kd", {"seat": 1, "stakes": {"trilux": 100}}),
        {"error": (None, "main")},
    ),
    (
        "M20",
        None,
        "shoe as a list with a number",
        bj(["As", 9, "Kd"], seat(1)),
        {"error": (None, "shoe")},
    ),
    (
        "M21",
        "MD-S1",
        "card after a player's 21 and the dealer standing: leftover",
        bj("Ts 9c 8d 9h 2c", seat(1, 1000, {"main": S})),
        {"error": ("MD-S1", "left in the shoe")},
    ),
    (
        "M22",
        "BJ-1",
        "more cards than a 4-deck shoe holds of one rank-suit via split hands",
        bj("8s 9c 8s 8s 8s 8s", seat(1, 1000, {"main": ["split", "split", "hit"]}), decks=4),
        {"error": ("BJ-1", "4 decks")},
    ),
]

CASES += [
    (
        "X01",
        "BJ-2",
        "seven seats: BJ, 17, double 21, split+double/stand, 18, bust, 16 v dealer 6 Q 2 = 18",
        bj(
            "As Th 5c 8d 9c Tc 2s 6h Kc 7h 6c 8h 9d 6d 3h Td 3s 9s Ts Jc 4c 7d Qs 2d",
            seat(1),
            seat(2, 1000, {"main": S}, trilux=100),
            seat(3, 1000, {"main": ["double"]}),
            seat(4, 1000, {"main": ["split", "double"], "main.2": S}),
            seat(5, 1000, {"main": S}),
            seat(6, 1000, {"main": ["hit"]}),
            seat(7, 1000, {"main": ["hit", "hit", "stand"]}),
        ),
        {
            "wagers": {
                (1, "main"): ("win", 1000, 2500),
                (2, "trilux"): ("win", 100, 600),
                (2, "main"): ("lose", 1000, 0),
                (3, "main"): ("win", 2000, 4000),
                (4, "main"): ("win", 2000, 4000),
                (4, "main.2"): ("push", 1000, 1000),
                (5, "main"): ("push", 1000, 1000),
                (6, "main"): ("lose", 1000, 0),
                (7, "main"): ("lose", 1000, 0),
            },
            "dealer": ["6h", "Qs", "2d"],
        },
    ),
    (
        "X02",
        "BJ-8",
        "three seats v ace: two insure, dealer A9 (no BJ): insurances lost",
        bj(
            "Th As Tc Ad Qh Ks 5s 9h 9d",
            seat(1, 1000, {"main": S}, insurance=500),
            seat(2),
            seat(3, 2000, {"main": ["hit"]}, insurance=1000),
        ),
        {
            "wagers": {
                (1, "main"): ("push", 1000, 1000),
                (1, "insurance"): ("lose", 500, 0),
                (2, "main"): ("win", 1000, 2500),
                (3, "main"): ("lose", 2000, 0),
                (3, "insurance"): ("lose", 1000, 0),
            },
            "dealer": ["Ad", "9d"],
        },
    ),
    (
        "I10",
        "BJ-8",
        "bet 1001 at a 1001 minimum: insurance 501 capped to 500 < min 501: refused",
        bj(
            "Th Ah Td Kc",
            seat(1, 1001, {"main": S}, insurance=501),
            limits={"main": {"min": 1001, "max": 100000}},
        ),
        {"error": ("BJ-8", "below the minimum 501")},
    ),
]


@pytest.mark.parametrize(
    ("rule", "what", "data", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_hand_worked_round(tmp_path: Path, rule: str, what: str, data: dict, expected: dict):
    extra: tuple[str, ...] = ()
    if "profile" in expected:
        house = {"profile": HOUSE_VARIANT} if expected.get("house") else {}
        path = profile_file(tmp_path, "trilux-gr", rules=expected["profile"], **house)
        extra = ("--profile", path)
    if "error" in expected:
        want_rule, words = expected["error"]
        error = refused(data, *extra)
        assert error["rule"] == want_rule, error
        assert words.lower() in error["message"].lower(), error
        return
    result = settled(data, *extra)
    for (number, name), want in expected["wagers"].items():
        wager = seat_of(result, number)["wagers"][name]
        got = (wager["result"], wager["stake"], wager["paid"], wager.get("returned", 0))
        assert got == (*want, 0)[:4], (number, name, wager)
    if "dealer" in expected:
        assert result["dealer"]["cards"] == expected["dealer"]


def test_every_bj_and_trx_rule_has_a_case():
    assert {c[1] for c in CASES} >= {f"BJ-{n}" for n in range(1, 10)} | {"TRX-1", "TRX-2"}
