"""Which misdeal a dealer may declare (RULES.md section 6): a rule of the round's deal mode
(MD-S* from a shuffler or shoe, MD-M* by hand), and the initial deal's rules (MD-M2, M4, M6,
M7) only before any player acted."""

from __future__ import annotations

import pytest

from controller.engine.deal.misdeals import (
    MISDEAL_RULES,
    DealMode,
    declaration_refusal,
    is_misdeal_rule,
    rule_ids,
)

SHUFFLER, MANUAL = DealMode.SHUFFLER, DealMode.MANUAL
INITIAL_DEAL_ONLY = {"MD-M2", "MD-M4", "MD-M6", "MD-M7", "MD-S3"}


def test_the_table_holds_rules_section_6_and_nothing_else():
    assert set(MISDEAL_RULES) == {f"MD-S{n}" for n in range(1, 4)} | {
        f"MD-M{n}" for n in range(1, 8)
    }
    assert rule_ids() == "MD-S1..MD-S3 or MD-M1..MD-M7"
    assert not is_misdeal_rule("MD-X1")  # an exposure that is not a misdeal
    assert not is_misdeal_rule("md-s1")


@pytest.mark.parametrize("rule", sorted(MISDEAL_RULES))
def test_a_rule_of_the_rounds_deal_mode_is_taken_before_any_player_acted(rule):
    mode = SHUFFLER if rule.startswith("MD-S") else MANUAL
    assert declaration_refusal(rule, mode, player_acted=False) is None


def test_md_m2_on_a_shuffler_round_is_refused_naming_md_s3():
    why = declaration_refusal("MD-M2", SHUFFLER, player_acted=False)
    assert why == (
        "MD-M2 is a manual-deal rule; with a shuffler two or more exposed cards are MD-S3"
        " (one is not a misdeal)"
    )


@pytest.mark.parametrize("rule", sorted(MISDEAL_RULES))
def test_a_rule_of_the_other_deal_mode_is_refused_naming_what_applies(rule):
    mode = MANUAL if rule.startswith("MD-S") else SHUFFLER
    why = declaration_refusal(rule, mode, player_acted=False)
    assert why is not None and why.startswith(f"{rule} is a ")
    wanted = "MD-M" if mode is MANUAL else "MD-S"
    assert wanted in why.removeprefix(rule)  # the rule that applies instead
    assert "\n" not in why


@pytest.mark.parametrize("rule", sorted(INITIAL_DEAL_ONLY))
def test_the_initial_deals_rules_are_refused_once_a_player_acted(rule):
    mode = SHUFFLER if rule.startswith("MD-S") else MANUAL
    why = declaration_refusal(rule, mode, player_acted=True)
    assert why is not None and "a player has acted" in why


def test_md_m6_after_a_player_acted_is_md_x1_not_a_misdeal():
    why = declaration_refusal("MD-M6", MANUAL, player_acted=True)
    assert why is not None and "MD-X1, not a misdeal" in why


def test_md_s3_after_a_player_acted_is_md_x1_or_md_x2_not_a_misdeal():
    """The Greek text: exposures after the first player action are "not a misdeal"; a table
    with a shuffler voided the round (Play included) on a declared MD-S3 then."""
    why = declaration_refusal("MD-S3", SHUFFLER, player_acted=True)
    assert why is not None
    assert "exposed dealer cards are MD-X1 (MD-X3 with only the flop shown" in why
    assert "wrong community cards MD-X2, not a misdeal" in why


def test_md_s3_is_refused_at_blackjack_where_every_card_is_dealt_face_up():
    """The audit's D5: a declared MD-S3 voided a blackjack round (BJ-2 deals face up)."""
    why = declaration_refusal("MD-S3", SHUFFLER, player_acted=False, game="blackjack")
    assert why == (
        "MD-S3 does not apply: blackjack deals every card face up (BJ-2); a wrong number of"
        " cards is MD-S1, a malfunction of the shoe MD-S2"
    )
    assert declaration_refusal("MD-S2", SHUFFLER, player_acted=False, game="blackjack") is None


@pytest.mark.parametrize("rule", ["MD-M1", "MD-M3", "MD-M5", "MD-S1", "MD-S2"])
def test_rules_without_a_moment_are_taken_after_a_player_acted(rule):
    mode = SHUFFLER if rule.startswith("MD-S") else MANUAL
    assert declaration_refusal(rule, mode, player_acted=True) is None


def test_an_unknown_rule_is_refused():
    assert declaration_refusal("MD-X1", MANUAL, player_acted=False) == (
        "MD-X1 is not a misdeal rule (MD-S1..MD-S3 or MD-M1..MD-M7)"
    )
