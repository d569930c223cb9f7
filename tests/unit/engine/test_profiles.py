"""Profile loading and validation (RULES.md section 7)."""

import tomllib
from fractions import Fraction
from pathlib import Path

import pytest

from controller.engine.paytable import FixedPerUnit, Odds, PoolPercent, parse_pay
from controller.engine.profiles import (
    DealerExposureReplaces,
    EarlyExposureCount,
    available_profiles,
    find_profile,
    load_profile,
    parse_profile,
)
from controller.validation import ConfigError

SHIPPED = ["ch-bg", "uth-gr", "uth-it", "uth-sk"]


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profiles_load(name):
    profile = load_profile(name)
    assert profile.name == name
    assert name in available_profiles()


def test_greek_profile_values():
    p = load_profile("uth-gr")
    assert p.paytables["blind"].pays["flush"] == Odds(3, 2)  # UTH-8
    assert p.paytables["trips"].pays["three-of-a-kind"] == Odds(3, 1)  # UTH-9
    prog = p.progressive
    assert prog.paytable.pays["royal-flush"] == PoolPercent(Fraction(100))  # PRG-3
    assert prog.paytable.pays["community-royal"] == Odds(1000, 1)
    assert prog.contribution_band == (Fraction(15, 100), Fraction(20, 100))  # PRG-1
    assert prog.envy_bonus == 10000  # PRG-4
    assert p.options["dealer_not_qualified"] == "ante-pushes"  # UTH-7


def test_italian_dealer_not_qualified_option():
    assert load_profile("uth-it").options["dealer_not_qualified"] == "ante-wins"


def test_each_profile_has_its_documents_procedure_for_exposed_dealer_cards():
    assert load_profile("uth-it").options["dealer_exposure"] == "reinsert"  # MD-X3
    assert load_profile("uth-gr").options["dealer_exposure"] == "after-action"  # MD-X1
    assert load_profile("uth-sk").options["dealer_exposure"] == "none"  # silent


def test_the_greek_profile_states_md_x1s_interpretations_with_their_defaults():
    options = load_profile("uth-gr").options
    assert options["dealer_exposure_replaces"] is DealerExposureReplaces.EXPOSED
    assert options["early_exposure_counts"] is EarlyExposureCount.ROUND
    data = _greek()
    for key in ("dealer_exposure_replaces", "early_exposure_counts"):
        del data["rules"][key]
    assert parse_profile(data, "test.toml").options == options  # the defaults


def test_md_x1s_interpretations_are_read_as_enums():
    data = _greek()
    data["rules"]["dealer_exposure_replaces"] = "both"
    data["rules"]["early_exposure_counts"] = "dealer"
    options = parse_profile(data, "test.toml").options
    assert options["dealer_exposure_replaces"] is DealerExposureReplaces.BOTH
    assert options["early_exposure_counts"] is EarlyExposureCount.DEALER


@pytest.mark.parametrize("key", ["dealer_exposure_replaces", "early_exposure_counts"])
def test_a_wrong_md_x1_option_is_one_problem_naming_the_key(key):
    data = _greek()
    data["rules"][key] = "all"
    problems = _problems(data)
    assert list(problems) == [f"rules.{key}"]
    assert "'all' is not one of" in problems[f"rules.{key}"]
    assert "(MD-X1)" in problems[f"rules.{key}"]


@pytest.mark.parametrize(
    ("name", "key", "value"),
    [
        ("uth-it", "dealer_exposure_replaces", "both"),  # MD-X3, not MD-X1
        ("uth-sk", "early_exposure_counts", "round"),  # no procedure, even the default
    ],
)
def test_md_x1_options_are_refused_without_md_x1(name, key, value):
    data = tomllib.loads(Path(find_profile(name)).read_text())
    data["rules"][key] = value
    problems = _problems(data)
    assert problems == {f"rules.{key}": "only with dealer_exposure = 'after-action' (MD-X1)"}


def test_only_the_greek_profile_replaces_wrongly_exposed_community_cards():
    assert load_profile("uth-gr").options["community_exposure"] == "replace"  # MD-X2
    assert load_profile("uth-it").options["community_exposure"] == "none"
    assert load_profile("uth-sk").options["community_exposure"] == "none"  # silent


def test_only_the_italian_profile_leaves_seats_in_without_a_play_bet():
    assert load_profile("uth-it").options["board_exposure"] == "no-play"  # MD-X4
    assert load_profile("uth-gr").options["board_exposure"] == "none"  # MD-X2, MD-S3
    assert load_profile("uth-sk").options["board_exposure"] == "none"  # silent


def test_jumbo7_profile():
    prog = load_profile("ch-bg").progressive
    assert prog.award == "share-round"  # CH-9
    assert prog.jackpot_line() == "seven-card-straight-flush"
    assert prog.paytable.pays["six-card-straight-flush"] == FixedPerUnit(500000)


@pytest.mark.parametrize(
    ("text", "pay"),
    [
        ("3:2", Odds(3, 2)),
        (" 500:1 ", Odds(500, 1)),
        ("100%", PoolPercent(Fraction(100))),
        ({"fixed": 500}, FixedPerUnit(500)),
    ],
)
def test_parse_pay(text, pay):
    assert parse_pay(text) == pay


@pytest.mark.parametrize(
    "bad",
    ["0:1", "3:0", "-1:1", "1.5:1", "abc", "150%", "0%", 3, {"fixed": 0}, {"fixed": 1, "x": 2}],
)
def test_parse_pay_rejects(bad):
    with pytest.raises(ValueError):
        parse_pay(bad)


def _greek():
    return tomllib.loads(Path(find_profile("uth-gr")).read_text())


def _problems(data):
    with pytest.raises(ConfigError) as info:
        parse_profile(data, "test.toml")
    return dict(info.value.problems)


def test_every_problem_is_reported_at_once_with_key_and_reason():
    data = _greek()
    data["rules"]["seatz"] = 6
    data["paytables"]["blind"]["flush"] = "3:0"
    data["paytables"]["trips"]["pair-of-kings"] = "1:1"
    data["progressive"]["contribution_rate"] = "25%"
    data["rules"]["ante_equals_blind"] = False
    problems = _problems(data)
    assert problems["rules.seatz"] == "unknown key (RULES.md 7)"
    assert "positive ratio" in problems["paytables.blind.flush"]
    assert "unknown pay line" in problems["paytables.trips.pair-of-kings"]
    assert "outside the profile's band" in problems["progressive.contribution_rate"]
    assert "UTH-2" in problems["rules.ante_equals_blind"]
    assert len(problems) == 5


def test_missing_sections_and_wrong_types():
    data = _greek()
    del data["paytables"]["trips"]
    data["rules"]["seats"] = "six"
    data["money"]["chip_unit"] = 0
    problems = _problems(data)
    assert problems["paytables.trips"] == "required table is missing (UTH-9)"
    assert "expected a whole number" in problems["rules.seats"]
    assert "positive" in problems["money.chip_unit"]


def test_table_wager_cannot_pay_a_pool_percentage():
    data = _greek()
    data["paytables"]["trips"]["royal-flush"] = "100%"
    assert "pays odds" in _problems(data)["paytables.trips.royal-flush"]


def test_two_pool_percentage_lines_rejected():
    data = _greek()
    data["progressive"]["paytable"]["community-royal"] = "10%"
    assert "at most one line" in _problems(data)["progressive.paytable"]


def test_unknown_profile_and_syntax_error(tmp_path):
    with pytest.raises(ConfigError, match="unknown profile"):
        load_profile("uth-xx")
    bad = tmp_path / "bad.toml"
    bad.write_text("[profile\nname=1")
    with pytest.raises(ConfigError, match="syntax"):
        load_profile(str(bad))


def test_bool_is_not_an_int():
    data = _greek()
    data["rules"]["seats"] = True
    assert "expected a whole number" in _problems(data)["rules.seats"]


def test_seat_order_is_refused_where_the_round_shares_the_jackpot():
    # CH-9: under award "share-round" every bettor shares one jackpot by stake, however many
    # seats hit it; "seat-order" (PRG-3/PRG-5 with award "winner") would be ignored there
    data = tomllib.loads(Path(find_profile("ch-bg")).read_text())
    data["progressive"]["multiple_hits"] = "seat-order"
    problem = _problems(data)["progressive.multiple_hits"]
    assert "award = 'share-round'" in problem and problem.endswith("(CH-9)")
    assert "\n" not in problem
    data["progressive"]["multiple_hits"] = "split-equally"
    parse_profile(data, "ch.toml")
    greek = _greek()
    greek["progressive"]["multiple_hits"] = "seat-order"  # award "winner": meaningful
    assert parse_profile(greek, "gr.toml").progressive.multiple_hits == "seat-order"
