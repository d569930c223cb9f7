"""Profiles are checked against RULES.md: what the rule book fixes cannot be changed by a
profile, and every profile error names its rule."""

import copy
import re
import tomllib

import pytest
import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.profiles import (
    available_profiles,
    find_profile,
    load_profile,
    parse_profile,
)
from controller.validation import ConfigError

RULE_ID = re.compile(r"\b(POK|UTH|CH|BJ|TRX|PRG|MD)-[A-Z]?\d+\b|\(RULES\.md 7\)$")
SHIPPED = ["ch-bg", "trilux-gr", "uth-gr", "uth-it", "uth-sk"]


def data_of(name):
    return tomllib.loads(find_profile(name).read_text())


def problems(data):
    with pytest.raises(ConfigError) as info:
        parse_profile(data, "p.toml")
    return dict(info.value.problems)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_profiles_follow_the_rule_book(name):
    assert name in available_profiles()
    parse_profile(data_of(name), name)


@pytest.mark.parametrize(
    ("name", "section", "key", "value", "where", "rule"),
    [
        ("trilux-gr", "paytables.main", "blackjack", "6:5", "paytables.main.blackjack", "BJ-5"),
        (
            "trilux-gr",
            "paytables.insurance",
            "dealer-blackjack",
            "3:1",
            "paytables.insurance.dealer-blackjack",
            "BJ-8",
        ),
        ("trilux-gr", "paytables.trilux", "flush", "4:1", "paytables.trilux.flush", "TRX-2"),
        ("uth-gr", "paytables.blind", "flush", "1:1", "paytables.blind.flush", "UTH-8"),
        (
            "uth-sk",
            "paytables.trips",
            "three-of-a-kind",
            "2:1",
            "paytables.trips.three-of-a-kind",
            "UTH-9",
        ),
        ("ch-bg", "paytables.ante", "flush", "3:1", "paytables.ante.flush", "CH-6"),
        ("ch-bg", "paytables.bonus", "pair-of-aces", "6:1", "paytables.bonus.pair-of-aces", "CH-7"),
        (
            "uth-gr",
            "progressive.paytable",
            "full-house",
            "20:1",
            "progressive.paytable.full-house",
            "PRG-3",
        ),
        (
            "ch-bg",
            "progressive.paytable",
            "flush",
            {"fixed": 300},
            "progressive.paytable.flush",
            "CH-8",
        ),
        ("uth-gr", "rules", "seats", 7, "rules.seats", "UTH-1"),
        ("uth-sk", "rules", "burns", 1, "rules.burns", "UTH-11"),
        # what RULES.md 7 fixes for the profile the file claims (UTH-11, MD-X1..MD-X4)
        ("uth-sk", "rules", "burns", 3, "rules.burns", "UTH-11"),  # Slovak: 2
        ("uth-gr", "rules", "burns", 2, "rules.burns", "UTH-11"),  # Greek: none
        ("uth-it", "rules", "burns", 2, "rules.burns", "UTH-11"),  # Italian by hand: 3
        ("uth-sk", "rules", "deal", "shuffler", "rules.deal", "UTH-11"),  # by hand only
        ("uth-gr", "rules", "dealer_exposure", "reinsert", "rules.dealer_exposure", "MD-X1"),
        ("uth-gr", "rules", "dealer_exposure", "none", "rules.dealer_exposure", "MD-X1"),
        ("uth-sk", "rules", "dealer_exposure", "after-action", "rules.dealer_exposure", "MD-X1"),
        ("uth-gr", "rules", "community_exposure", "none", "rules.community_exposure", "MD-X2"),
        ("uth-it", "rules", "community_exposure", "replace", "rules.community_exposure", "MD-X2"),
        ("uth-sk", "rules", "community_exposure", "replace", "rules.community_exposure", "MD-X2"),
        ("uth-it", "rules", "dealer_exposure", "none", "rules.dealer_exposure", "MD-X3"),
        ("uth-sk", "rules", "board_exposure", "no-play", "rules.board_exposure", "MD-X4"),
        ("uth-it", "rules", "board_exposure", "none", "rules.board_exposure", "MD-X4"),
        (
            "uth-gr",
            "progressive",
            "contribution_band",
            ["10%", "20%"],
            "progressive.contribution_band",
            "PRG-1",
        ),
        ("uth-gr", "progressive", "envy_bonus", 5000, "progressive.envy_bonus", "PRG-4"),
        ("ch-bg", "progressive", "award", "winner", "progressive.award", "CH-9"),
        ("trilux-gr", "rules", "decks", 8, "rules.decks", "BJ-1"),
        ("trilux-gr", "rules", "trilux_max", 6000, "rules.trilux_max", "TRX-1"),
    ],
)
def test_what_the_rule_book_fixes_is_refused_with_the_rule(name, section, key, value, where, rule):
    data = data_of(name)
    target = data
    for part in section.split("."):
        target = target[part]
    target[key] = value
    if key == "award":
        del target["share_scope"]  # CH-9's option goes with share-round only
    if key == "dealer_exposure":  # MD-X1's options go with after-action only
        target.pop("dealer_exposure_replaces", None)
        target.pop("early_exposure_counts", None)
    found = problems(data)
    assert where in found, found
    assert rule in found[where]


def test_a_missing_or_extra_pay_line_is_refused():
    data = data_of("uth-gr")
    del data["paytables"]["blind"]["straight"]  # UTH-8 pays a straight 1:1
    data["paytables"]["trips"]["two-pair"] = "1:1"  # UTH-9: below three of a kind loses
    found = problems(data)
    assert (
        "pays 1:1 for straight, this profile pays nothing (UTH-8)"
        in found["paytables.blind.straight"]
    )
    assert found["paytables.trips.two-pair"].endswith("this profile pays 1:1 (UTH-9)")


def test_equal_tables_written_differently_are_accepted():
    # CH-6 "straight or lower 1:1": listing straight separately pays the same
    data = data_of("ch-bg")
    data["paytables"]["ante"]["straight"] = "1:1"
    data["paytables"]["main"] = {}  # not a CH table: refused as unknown, with its rule
    found = problems(data)
    assert list(found) == ["paytables.main"]
    del data["paytables"]["main"]
    parse_profile(data, "p.toml")


keys = st.sampled_from(
    [
        "seats",
        "burns",
        "deal",
        "decks",
        "double_on",
        "enhc_loses",
        "dealer_draws",
        "over_maximum",
        "bet_max",
        "trilux_min",
        "seatz",
        "ante_equals_blind",
    ]
)
values = st.one_of(st.integers(-3, 60), st.text(max_size=6), st.booleans(), st.just("6:5"))


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(SHIPPED), changes=st.dictionaries(keys, values, max_size=3))
def test_every_profile_problem_names_a_rule(name, changes):
    data = copy.deepcopy(data_of(name))
    data["rules"].update(changes)
    try:
        parse_profile(data, "p.toml")
    except ConfigError as exc:
        for key, reason in exc.problems:
            assert RULE_ID.search(reason), (key, reason)


@pytest.mark.parametrize(
    ("name", "source", "burns", "found"),
    [
        # a copy renamed claims the rules of the document it names as its source
        ("my-greek", "seeds/000_c1b9c501f051b6d4.txt (Greek)", 2, "the Greek rules (uth-gr)"),
        # a file carrying a rule-book profile's name claims that profile's rules
        ("uth-sk", "", 3, "the Slovak rules (uth-sk)"),
    ],
)
def test_a_file_claims_its_profile_by_source_document_or_name(name, source, burns, found):
    data = data_of("uth-sk" if name == "uth-sk" else "uth-gr")
    data["profile"].update(name=name, source=source)
    data["rules"]["burns"] = burns
    problem = problems(data)["rules.burns"]
    assert found in problem and problem.endswith("(UTH-11)")


@pytest.mark.parametrize(
    ("name", "got", "fixed"),
    [
        (
            "uth-gr",
            "ante-wins",
            "the Greek rules (uth-gr) have dealer_not_qualified = 'ante-pushes'",
        ),
        (
            "uth-sk",
            "ante-wins",
            "the Slovak rules (uth-sk) have dealer_not_qualified = 'ante-pushes'",
        ),
        (
            "uth-it",
            "ante-pushes",
            "the Italian rules (uth-it) have dealer_not_qualified = 'ante-wins'",
        ),
    ],
)
def test_uth7_is_the_claimed_documents(name, got, fixed):
    """UTH-7 fixes the Greek and Slovak Ante push and the Italian Ante paid 1:1 (only its
    'Play and Blind push' is [interpretation]). A copy claiming the profile by its source
    document, under another name, keeps it; a house variant claiming none may choose."""
    data = data_of(name)
    data["profile"]["name"] = f"my-{name}"
    data["rules"]["dealer_not_qualified"] = got
    found = problems(data)
    assert list(found) == ["rules.dealer_not_qualified"]
    assert found["rules.dealer_not_qualified"].startswith(fixed)
    assert found["rules.dealer_not_qualified"].endswith(f"got {got!r} (UTH-7)")
    data["profile"]["source"] = "a house variant"
    assert parse_profile(data, "p.toml").options["dealer_not_qualified"] == got


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("house-it", "seeds/004_C8C14AD3D28C0129.txt"),
        ("house-it", "004-c8c14ad3d28c0129"),
        ("house-it", "C8C14AD3D28C0129 (Italian)"),
        ("house-it", "seed 004 (Italian)"),
        ("house-it", "Seeds/4"),
        ("UTH-IT", ""),
        (" uth_it ", "Italian rules"),
    ],
)
def test_a_claim_is_read_in_any_spelling(name, source):
    """The review's bypasses: the document by its hash in any case or by its seed number,
    the name in any case with _ for -: each claims uth-it, whose UTH-7 then holds."""
    data = data_of("uth-it")
    data["profile"].update(name=name, source=source)
    data["rules"]["dealer_not_qualified"] = "ante-pushes"
    found = problems(data)["rules.dealer_not_qualified"]
    assert found.startswith("the Italian rules (uth-it) have dealer_not_qualified = 'ante-wins'")


@pytest.mark.parametrize("source", ["a house variant", "EUR 1,000 tables, 2004 edition"])
def test_a_source_naming_no_seed_document_claims_nothing(source):
    data = data_of("uth-it")
    data["profile"].update(name="house-it", source=source)
    data["rules"]["dealer_not_qualified"] = "ante-pushes"
    assert parse_profile(data, "p.toml").options["dealer_not_qualified"] == "ante-pushes"


def test_a_source_naming_two_documents_is_refused():
    data = data_of("uth-gr")
    data["profile"].update(name="mixed", source="seeds/000 with seeds/004 procedures")
    found = problems(data)["profile.source"]
    assert (
        "seeds/000_c1b9c501f051b6d4.txt (uth-gr), seeds/004_c8c14ad3d28c0129.txt (uth-it)" in found
    )
    assert found.endswith("a profile follows one (RULES.md 7)")


def test_a_profile_found_by_name_carries_that_name(tmp_path, monkeypatch):
    """/etc/croupier/profiles/uth-it.toml naming itself house-it (a house variant, which may
    choose UTH-7) would have played as the table's uth-it."""
    data = data_of("uth-it")
    data["profile"].update(name="house-it", source="a house variant")
    data["rules"]["dealer_not_qualified"] = "ante-pushes"
    (tmp_path / "uth-it.toml").write_text(tomli_w.dumps(data))
    monkeypatch.setenv("CROUPIER_PROFILE_PATH", str(tmp_path))
    with pytest.raises(ConfigError) as info:
        load_profile("uth-it")
    assert info.value.problems == [
        (
            "profile.name",
            "found as profile 'uth-it', the file names itself 'house-it' (RULES.md 7)",
        )
    ]
    assert load_profile(str(tmp_path / "uth-it.toml")).name == "house-it"  # by its path


@pytest.mark.parametrize("spelled", [" 2-11", "02-11", "2 - 11"])
def test_double_on_is_compared_as_a_range(spelled):
    data = data_of("trilux-gr")
    data["rules"]["double_on"] = spelled
    assert parse_profile(data, "p.toml").options["double_on"] == "2-11"


def test_a_name_and_a_source_claiming_two_profiles_are_refused():
    data = data_of("uth-gr")
    data["profile"]["source"] = "seeds/004_c8c14ad3d28c0129.txt (Italian)"
    found = problems(data)
    assert "uth-it" in found["profile.source"] and found["profile.source"].endswith("(RULES.md 7)")


def test_a_profile_of_another_game_cannot_claim_a_document():
    data = data_of("trilux-gr")
    data["profile"]["source"] = "seeds/000_c1b9c501f051b6d4.txt (Greek)"  # the UTH document
    data["profile"]["name"] = "bj-x"
    assert "is a uth profile" in problems(data)["profile.game"]
