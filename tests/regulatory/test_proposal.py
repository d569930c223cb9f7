"""The progressive proposal (issue 18 point 2): every figure from the exact PAR engine,
checked against closed-form counts and against its own definitions."""

import json
from fractions import Fraction
from math import comb
from pathlib import Path

import pytest

from controller.books.reports.proposal import Pace, ProposalError, build_proposal
from controller.cli.main import main
from controller.table.tableconfig import load_table_config

SIM = Path(__file__).resolve().parents[2] / "config" / "sim.toml"


@pytest.fixture(scope="module")
def proposal():
    config = load_table_config(SIM)
    return config, build_proposal(config.profile, config.pools, Pace(4, 30), table_id="SIM-1")


def test_the_jackpot_probability_is_the_closed_form_one(proposal):
    _, document = proposal
    (pool,) = document["pools"]
    deals = comb(52, 7)
    any_royal = Fraction(4 * comb(47, 2), deals)  # a royal among the seven cards
    # the five community cards alone: C(47,2) choices of hole cards for each of 4 royals,
    # out of C(52,2) x C(50,5) ordered (hole, board) deals = 21 x C(52,7)
    community = Fraction(4 * comb(47, 2), comb(52, 2) * comb(50, 5))
    assert (
        Fraction(pool["jackpot_probability_exact"]) == any_royal - community == Fraction(1, 32487)
    )
    lines = {line["line"]: line for line in pool["lines"]}
    assert Fraction(lines["community-royal"]["probability_exact"]) == community
    assert lines["four-of-a-kind"]["probability_exact"] == "1/595"  # 224848 x 21 / 21 x C(52,7)


def test_the_pace_figures_follow_from_the_probabilities(proposal):
    _, document = proposal
    for line in document["pools"][0]["lines"]:
        p = Fraction(line["probability_exact"])
        assert line["expected_hits_per_round"] == pytest.approx(float(4 * p))
        assert line["mean_hours_between_hits"] == pytest.approx(float(1 / (4 * p) / 30))


def test_the_return_by_meter_and_the_break_even_meter(proposal):
    config, document = proposal
    pool = document["pools"][0]
    r0, p = pool["return_without_progressive"], float(Fraction(pool["jackpot_probability_exact"]))
    stake = config.profile.progressive.stake
    for row in pool["return_by_meter"]:
        assert row["return"] == pytest.approx(r0 + p * row["meter"] / stake, rel=1e-12)
    assert r0 + p * pool["break_even_meter"] / stake == pytest.approx(1, abs=1e-6)
    assert pool["return_by_meter"][0]["meter"] == pool["seed"]["initial"] == 500_000
    # fixed lines: 1000 x P(community) + 300 x P(SF) + 100 x P(quads) + 10 x P(full house)
    lines = {line["line"]: Fraction(line["probability_exact"]) for line in pool["lines"]}
    fixed = (
        1000 * lines["community-royal"]
        + 300 * lines["straight-flush"]
        + 100 * lines["four-of-a-kind"]
        + 10 * lines["full-house"]
    )
    assert r0 == pytest.approx(float(fixed), rel=1e-12)
    assert pool["long_run_return"] == pytest.approx(float(fixed) + 0.15 + p * 500_000 / stake)


def test_out_of_range_paces_are_refused(proposal):
    config, _ = proposal
    with pytest.raises(ProposalError, match=r"seats must be 1\.\.6"):
        build_proposal(config.profile, config.pools, Pace(7, 30), table_id="T")
    with pytest.raises(ProposalError, match="rounds per hour"):
        build_proposal(config.profile, config.pools, Pace(2, 0), table_id="T")


def test_the_command(capsys):
    assert main(["report", "proposal", "--config", str(SIM), "--seats", "4", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["pools"][0]["break_even_meter"] == 1_582_868
    assert main(["report", "proposal", "--config", str(SIM)]) == 0
    out = capsys.readouterr().out
    assert "break-even meter: EUR 15,828.68" in out and "royal-flush" in out
