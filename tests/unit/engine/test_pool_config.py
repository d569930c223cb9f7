"""Pool configuration (PRG-1, PRG-5): validation against the profile and the JSON round trip."""

from fractions import Fraction

import pytest

from controller.engine.pools.config import PoolConfig, check_change, pool_config
from controller.engine.profiles import load_profile
from controller.validation import ConfigError


@pytest.fixture(scope="module")
def uth():
    return load_profile("uth-gr").progressive


@pytest.fixture(scope="module")
def jumbo():
    return load_profile("ch-bg").progressive


def test_defaults_take_the_profile_rate(uth):
    config = pool_config("uth", uth, seed=500_000)
    assert config.contribution_rate == Fraction(15, 100)
    assert config.reserve_rate == 0 and config.cap is None
    assert config.bet == "progressive"


@pytest.mark.parametrize("rate", ["14.99%", "21%", "0.5"])
def test_rate_outside_the_greek_band_is_refused(uth, rate):
    with pytest.raises(ConfigError) as err:
        pool_config("uth", uth, seed=0, contribution_rate=rate)
    assert err.value.problems[0][0] == "pools.uth.contribution_rate"
    assert "PRG-1" in err.value.problems[0][1]


@pytest.mark.parametrize("rate", ["15%", "20%", "0.175", "7/40"])
def test_rate_inside_the_band_is_taken_exactly(uth, rate):
    config = pool_config("uth", uth, seed=0, contribution_rate=rate)
    assert Fraction(15, 100) <= config.contribution_rate <= Fraction(20, 100)


def test_every_problem_is_reported_at_once(uth):
    with pytest.raises(ConfigError) as err:
        pool_config("Bad Name", uth, seed=-1, contribution_rate="30%", reserve_rate="90%", cap=-5)
    keys = [k for k, _ in err.value.problems]
    assert keys == [
        "pools.Bad Name",
        "pools.Bad Name.seed",
        "pools.Bad Name.contribution_rate",
        "pools.Bad Name.reserve_rate",
        "pools.Bad Name.cap",
    ]


def test_cap_below_seed_and_rates_above_the_stake(jumbo):
    with pytest.raises(ConfigError) as err:
        pool_config("j7", jumbo, seed=1000, contribution_rate="90%", reserve_rate="20%", cap=999)
    reasons = dict(err.value.problems)
    assert "more than the whole stake" in reasons["pools.j7.reserve_rate"]
    assert "below the seed" in reasons["pools.j7.cap"]


def test_json_round_trip_is_exact(jumbo, uth):
    for config in (
        pool_config("j7", jumbo, seed=10_000_000, reserve_rate="1/3%", cap=50_000_000),
        pool_config("uth", uth, seed=500_000, contribution_rate="0.175"),
    ):
        again = PoolConfig.from_json(config.to_json())
        assert again == config
        assert again.to_json() == config.to_json()


def test_a_cap_may_only_be_set_at_or_above_the_amount_displayed(uth):
    old = pool_config("uth", uth, seed=1000)
    pool_config("uth", uth, seed=1000, cap=5000)
    check_change(old, pool_config("uth", uth, seed=1000, cap=5000), current=5000)
    with pytest.raises(ConfigError, match="below the amount displayed"):
        check_change(old, pool_config("uth", uth, seed=1000, cap=4999), current=5000)


def test_unknown_pay_line_names_the_known_ones(uth):
    config = pool_config("uth", uth, seed=0)
    with pytest.raises(KeyError, match="pays no line 'flush'"):
        config.pay_for("flush")
