"""The trilux-gr profile and the loader's blackjack keys (BJ-1, BJ-5..9, TRX-1, TRX-2)."""

import tomllib
from pathlib import Path

import pytest
from blackjack_support import HOUSE_VARIANT

from controller.engine.paytable import Odds
from controller.engine.profiles import available_profiles, find_profile, load_profile, parse_profile
from controller.validation import ConfigError


def test_trilux_gr_loads_with_every_option_named():
    p = load_profile("trilux-gr")
    assert p.game == "blackjack" and "trilux-gr" in available_profiles()
    assert p.seats == 7  # BJ-1
    assert p.options == {
        "decks": 6,
        "bet_min": 1000,
        "bet_max": 100000,
        "trilux_min": 100,
        "trilux_max": 5000,
        "double_on": "2-11",
        "split_same_rank_only": False,
        "enhc_loses": "all",
        "dealer_draws": "when-needed",
    }
    assert p.paytables["main"].pays == {"blackjack": Odds(3, 2), "win": Odds(1, 1)}  # BJ-5
    assert p.paytables["insurance"].pays == {"dealer-blackjack": Odds(2, 1)}  # BJ-8
    assert list(p.paytables["trilux"].pays) == [  # TRX-2, best first
        "suited-akq",
        "straight-flush",
        "three-of-a-kind",
        "straight",
        "flush",
    ]
    assert p.paytables["trilux"].pays["three-of-a-kind"] == Odds(33, 1)


def _data():
    return tomllib.loads(Path(find_profile("trilux-gr")).read_text())


def _problems(data):
    with pytest.raises(ConfigError) as info:
        parse_profile(data, "test.toml")
    return dict(info.value.problems)


def test_every_blackjack_problem_is_reported_at_once():
    data = _data()
    rules = data["rules"]
    rules.update(decks=3, trilux_max=5001, double_on="12", enhc_loses="none")
    rules.update(split_same_rank_only="no", dealer_draws="never", seats=8)
    del data["paytables"]["main"]["blackjack"]
    data["paytables"]["trilux"]["pair"] = "1:1"
    problems = _problems(data)
    assert "BJ-1" in problems["rules.decks"]
    assert "TRX-1" in problems["rules.trilux_max"] and "5000" in problems["rules.trilux_max"]
    assert "BJ-6" in problems["rules.double_on"]
    assert "not one of all, original-only" in problems["rules.enhc_loses"]
    assert "expected true or false" in problems["rules.split_same_rank_only"]
    assert "not one of when-needed, always" in problems["rules.dealer_draws"]
    assert "1..7" in problems["rules.seats"]
    assert "required" in problems["paytables.main.blackjack"]
    assert "unknown pay line" in problems["paytables.trilux.pair"]
    assert len(problems) == 9


@pytest.mark.parametrize(
    ("changes", "key", "text"),
    [
        ({"decks": 7}, "rules.decks", "4 to 6"),
        ({"bet_max": 500}, "rules.bet_max", "BJ-1: below bet_min"),
        ({"trilux_max": 50}, "rules.trilux_max", "TRX-1: below trilux_min"),
        ({"double_on": "1-11"}, "rules.double_on", "BJ-6"),
        ({"double_on": "9-30"}, "rules.double_on", "BJ-6"),
        ({"bet_min": 0}, "rules.bet_min", "positive"),
    ],
)
def test_limits(changes, key, text):
    data = _data()
    data["rules"].update(changes)
    assert text in _problems(data)[key]


@pytest.mark.parametrize("double_on", ["any", "9-11", "10-11", "2-20"])
def test_double_on_choices_of_a_house_variant(double_on):
    data = _data()
    data["profile"].update(HOUSE_VARIANT)
    data["rules"]["double_on"] = double_on
    assert parse_profile(data, "t.toml").options["double_on"] == double_on


@pytest.mark.parametrize(
    ("key", "value", "fixed"),
    [
        ("double_on", "any", "have double_on = '2-11' (a double on a first-two-card total"),
        ("double_on", "2-12", "have double_on = '2-11'"),
        ("double_on", "9-11", "have double_on = '2-11'"),
        ("over_maximum", "refuse", "have over_maximum = 'cap' (the excess over the maximum"),
    ],
)
@pytest.mark.parametrize("claims", ["name", "source"])
def test_a_file_claiming_trilux_gr_keeps_what_seed_001_fixes(key, value, fixed, claims):
    """Seed 001 doubles on a first-two-card total of 2 to 11 (BJ-6: the [interpretation] is
    how aces count, not the range) and returns the excess over the maximum (BJ-1). A file
    claiming trilux-gr by its name or by its source document keeps both."""
    data = _data()
    if claims == "source":
        data["profile"]["name"] = "my-trilux"
    else:
        data["profile"]["source"] = "the Greek poster"
    data["rules"][key] = value
    found = _problems(data)
    assert list(found) == [f"rules.{key}"]
    rule = {"double_on": "BJ-6", "over_maximum": "BJ-1"}[key]
    assert found[f"rules.{key}"].startswith(f"the Greek rules (trilux-gr) {fixed}")
    assert found[f"rules.{key}"].endswith(f"got {value!r} ({rule})")


def test_trilux_max_exactly_50x_is_allowed():
    data = _data()
    data["rules"].update(trilux_min=200, trilux_max=10000)
    assert parse_profile(data, "t.toml").options["trilux_max"] == 10000


def test_required_blackjack_keys():
    data = _data()
    for key in ("decks", "bet_min", "trilux_max"):
        del data["rules"][key]
    del data["paytables"]["insurance"]
    problems = _problems(data)
    for key in ("rules.decks", "rules.bet_min", "rules.trilux_max"):
        assert problems[key].startswith("required key is missing (")  # with its rule
    assert problems["paytables.insurance"] == "required table is missing (BJ-8)"
