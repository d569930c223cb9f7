"""The shuffle test battery (issue 18 point 6): every tail probability against scipy, fair
shuffles failing at the rate the 99% confidence promises, the emulator's biased shelf shuffle
and a riffle shuffle with too few passes caught, and the command on a shuffler."""

import itertools
import json
import random
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from scipy import stats

from controller.books.audit import battery
from controller.books.audit.battery import (
    MIN_SHUFFLES,
    BatteryError,
    coupon_pmf,
    normal_two_sided,
    run_battery,
    succession_pmf,
    sum_upper_tail,
)
from controller.books.audit.shuffle_audit import chi2_sf
from controller.cli.main import main
from controller.engine.cards import card_name
from firmware_bridge.emulator.faults import MachineFaults
from firmware_bridge.emulator.machine import ShufflerMachine

NAMES = ["chi-square", "overlaps", "poker", "coupon", "permutation", "serial", "runs", "interplay"]


def fair(rng: np.random.Generator, shuffles: int) -> np.ndarray:
    return rng.permuted(np.tile(np.arange(52), (shuffles, 1)), axis=1)


def from_machine(machine: ShufflerMachine, shuffles: int) -> list[list[int]]:
    """Whole decks from the emulator's machine, the cards collected as they came out."""
    sequences = []
    for _ in range(shuffles):
        machine.shuffle(0)
        reply, _ = machine.deal(52, 0)
        sequences.append([c.card for c in reply.cards])
    return sequences


def riffles(rng: random.Random, shuffles: int, passes: int) -> list[list[int]]:
    """The Gilbert-Shannon-Reeds model: cut binomially, drop cards from each half with
    probability proportional to its size; the deck is collected in the order dealt."""
    deck, out = list(range(52)), []
    for _ in range(shuffles):
        for _ in range(passes):
            cut = sum(rng.random() < 0.5 for _ in range(52))
            left, right, mixed = deck[:cut], deck[cut:], []
            while left or right:
                if rng.random() < len(left) / (len(left) + len(right)):
                    mixed.append(left.pop(0))
                else:
                    mixed.append(right.pop(0))
            deck = mixed
        out.append(list(deck))
    return out


# --- every tail against scipy -------------------------------------------------------------


@pytest.mark.parametrize("df", [2, 7, 15, 23, 2601])
def test_chi_square_tails_match_scipy(df):
    for q in (1e-6, 1e-3, 0.01, 0.05, 0.5, 0.95, 0.99, 0.999999):
        x = stats.chi2.isf(q, df)
        assert chi2_sf(x, df) == pytest.approx(stats.chi2.sf(x, df), rel=1e-9)


def test_normal_tails_match_scipy():
    for z in (0.0, 0.5, 1.96, 2.576, 4.0, -3.3, 8.0):
        assert normal_two_sided(z) == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)


def test_the_convolution_tail_matches_scipys_binomial():
    for n, p, k in ((1, 0.3, 1), (50, 0.02, 3), (299, 1 / 52, 12), (5000, 0.01, 70)):
        assert sum_upper_tail([1 - p, p], n, k) == pytest.approx(
            stats.binom.sf(k - 1, n, p), rel=1e-9, abs=1e-15
        )


def test_the_succession_law_is_exact():
    for n in (4, 6, 7):  # every permutation counted
        counts = [0] * n
        for perm in itertools.permutations(range(n)):
            counts[sum(perm[i + 1] == perm[i] + 1 for i in range(n - 1))] += 1
        total = sum(counts)
        assert list(succession_pmf(n)) == [Fraction(c, total) for c in counts]
    assert sum(succession_pmf()) == 1


def test_the_coupon_collector_law_is_exact():
    # 3 ranks x 2 copies: every arrangement of the 6 cards counted
    deck = [0, 0, 1, 1, 2, 2]
    seen = {}
    arrangements = set(itertools.permutations(deck))
    for order in arrangements:
        t = next(i + 1 for i in range(6) if len(set(order[: i + 1])) == 3)
        seen[t] = seen.get(t, 0) + 1
    expected = {t: Fraction(n, len(arrangements)) for t, n in seen.items()}
    assert coupon_pmf(3, 2) == {t: expected.get(t, Fraction(0)) for t in coupon_pmf(3, 2)}
    assert sum(coupon_pmf().values()) == 1 and min(coupon_pmf()) == 13 and max(coupon_pmf()) == 49


def test_the_poker_and_serial_odds_are_counted():
    # every five-card hand by how many of each rank it holds: C(4, k) ways per rank
    by_distinct = {5: 0, 4: 0, 3: 0}

    def walk(rank, left, distinct, ways):
        if left == 0:
            by_distinct[distinct if distinct >= 4 else 3] += ways
            return
        if rank == 13:
            return
        for k in range(min(4, left) + 1):
            walk(rank + 1, left - k, distinct + (k > 0), ways * comb(4, k))

    walk(0, 5, 0, 1)
    total = sum(by_distinct.values())
    assert total == comb(52, 5)
    assert list(battery.POKER_CLASSES) == pytest.approx(
        [by_distinct[5] / total, by_distinct[4] / total, by_distinct[3] / total], rel=1e-12
    )
    # the first two suits: dealing without replacement is scipy's hypergeometric
    same = stats.hypergeom.pmf(1, 51, 12, 1)  # the second card of the first card's suit
    assert battery.SERIAL_PROBABILITIES[0] == pytest.approx(0.25 * same, rel=1e-12)
    assert battery.SERIAL_PROBABILITIES.sum() == pytest.approx(1)


def test_every_reported_p_value_is_scipys():
    report = run_battery(fair(np.random.default_rng(11), 400))
    assert [t.name for t in report.tests] == NAMES
    for t in report.tests:
        if t.df is not None:
            assert t.p_value == pytest.approx(stats.chi2.sf(t.statistic, t.df), rel=1e-9)
        elif t.name == "overlaps":  # exact: the convolution power of the succession law
            pmf = np.array([float(p) for p in succession_pmf()])
            dist = np.array([1.0])
            for _ in range(report.shuffles - 1):
                dist = np.convolve(dist, pmf[:25])
            assert t.p_value == pytest.approx(dist[int(t.statistic) :].sum(), rel=1e-7)
        else:
            assert t.p_value == pytest.approx(2 * stats.norm.sf(abs(t.statistic)), rel=1e-9)


# --- fair shuffles fail at the rate 99% confidence promises ---------------------------------


@pytest.mark.slow
def test_fair_shuffles_fail_each_test_about_once_in_a_hundred_runs():
    rng = np.random.default_rng(2026)
    runs = 300
    p_values = {name: [] for name in NAMES}
    for _ in range(runs):
        for t in run_battery(fair(rng, MIN_SHUFFLES)).tests:
            p_values[t.name].append(t.p_value)
    for name, ps in p_values.items():
        alarms = sum(p < 0.01 for p in ps)
        # Binomial(300, 0.01): 3 expected; 11 or more has probability 3e-4
        assert alarms <= 10, (name, alarms)
        # and the p-values are uniform, so the 1% is 1% at any other level too
        assert stats.kstest(ps, "uniform").pvalue > 1e-3, name
    assert sum(sum(p < 0.01 for p in ps) for ps in p_values.values()) > 0  # it can alarm


def test_the_emulators_fair_shuffle_passes():
    machine = ShufflerMachine(1, rng=random.Random(8))
    report = run_battery(from_machine(machine, MIN_SHUFFLES))
    assert report.passed, report.to_json()


# --- bad shuffles fail ----------------------------------------------------------------------


def test_the_emulators_biased_shelf_shuffle_fails():
    machine = ShufflerMachine(1, rng=random.Random(8))
    machine.faults = MachineFaults(biased_shuffle=True)
    report = run_battery(from_machine(machine, MIN_SHUFFLES))
    assert not report.passed
    by_name = {t.name: t for t in report.tests}
    assert by_name["overlaps"].p_value < 1e-12  # a shelf keeps neighbours together


@pytest.mark.parametrize("passes", [1, 2, 3, 4])
def test_a_riffle_with_too_few_passes_fails(passes):
    report = run_battery(riffles(random.Random(passes), MIN_SHUFFLES, passes))
    assert not report.passed
    assert "interplay" in report.failed or "overlaps" in report.failed


# --- input and the command ------------------------------------------------------------------


def test_sequences_that_cannot_be_tested_are_named():
    rng = np.random.default_rng(1)
    with pytest.raises(BatteryError, match=f"at least {MIN_SHUFFLES}"):
        run_battery(fair(rng, 10))
    sequences = [list(map(int, s)) for s in fair(rng, MIN_SHUFFLES)]
    sequences[41][7] = None  # an unrecognised card
    with pytest.raises(BatteryError, match="shuffle 42 is not one whole deck"):
        run_battery(sequences)


def test_the_command_on_recorded_sequences(tmp_path, capsys):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    rng = np.random.default_rng(3)
    good.write_text(
        "\n".join(" ".join(card_name(int(c)) for c in s) for s in fair(rng, MIN_SHUFFLES))
    )
    biased = ShufflerMachine(1, rng=random.Random(3))
    biased.faults = MachineFaults(biased_shuffle=True)
    bad.write_text("\n".join(json.dumps(s) for s in from_machine(biased, MIN_SHUFFLES)))
    assert main(["shuffler", "audit", "--battery", "--sequences", str(good)]) == 0
    out = capsys.readouterr().out
    assert "battery: PASSED" in out and all(name in out for name in NAMES)
    assert main(["shuffler", "audit", "--battery", "--sequences", str(bad), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["passed"] and "overlaps" in report["failed"]
    bad.write_text("As Kd\n[1, 2]\n")
    assert main(["shuffler", "audit", "--battery", "--sequences", str(bad)]) == 1
    err = capsys.readouterr().err
    assert f"{bad}: line 1: " in err and "line 1: line 1" not in err  # said once
    bad.write_text("[1, 2]\n")
    assert main(["shuffler", "audit", "--battery", "--sequences", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.endswith(f"{bad}: line 1: 52 distinct card codes 0..51 expected\n"), err


def test_sequences_without_battery_are_tested_not_ignored(tmp_path, capsys, monkeypatch):
    """`shuffler audit --sequences FILE` ignored the file and asked the daemon."""
    monkeypatch.setenv("CROUPIER_SOCKET", str(tmp_path / "no-daemon.sock"))
    good = tmp_path / "good.txt"
    rng = np.random.default_rng(3)
    good.write_text(
        "\n".join(" ".join(card_name(int(c)) for c in s) for s in fair(rng, MIN_SHUFFLES))
    )
    assert main(["shuffler", "audit", "--sequences", str(good)]) == 0
    assert "battery: PASSED" in capsys.readouterr().out


def test_the_battery_without_decks_is_a_usage_error(capsys):
    assert main(["shuffler", "audit", "--battery"]) == 2
    assert "--battery needs --port PORT or --sequences FILE" in capsys.readouterr().err


@pytest.mark.integration
def test_the_command_deals_whole_decks_from_a_shuffler(tmp_path, capsys):
    from firmware_bridge.emulator.firmware import DeviceFirmware
    from firmware_bridge.emulator.pty_runner import PtyEmulator

    machine = ShufflerMachine(1, rng=random.Random(12))
    emulator = PtyEmulator(
        DeviceFirmware(machine, rng=random.Random(13)), str(tmp_path / "shuffler"), baud=None
    ).start()
    try:
        args = [
            "shuffler",
            "audit",
            "--battery",
            "--port",
            emulator.link,
            "--json",
            "--shuffles",
            str(MIN_SHUFFLES),
        ]
        assert main(args) == 0
        assert json.loads(capsys.readouterr().out)["passed"]
        machine.faults = MachineFaults(biased_shuffle=True)  # a shelf shuffler's single pass
        assert main(args) == 1
        assert "overlaps" in json.loads(capsys.readouterr().out)["failed"]
    finally:
        emulator.stop()
