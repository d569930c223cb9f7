"""The emulated machine: shuffle quality, decks, recognition, fault settings."""

from __future__ import annotations

import random

import pytest

from firmware_bridge.codes import ErrorCode
from firmware_bridge.emulator.faults import FrameFaults, MachineFaults
from firmware_bridge.emulator.machine import MachineError, ShufflerMachine, fisher_yates
from firmware_bridge.errors import LocalProtocolError
from firmware_bridge.messages import DeviceState, ShuffleMode


def valleys(order: list[int]) -> int:
    """Local minima of the order. A random 52-card order has (52 - 2) / 3 ~ 16.7 on average;
    one shelf pass has at most one per shelf, since each shelf's pile falls then rises
    (the statistic of Diaconis, Fulman and Holmes for shelf shufflers)."""
    return sum(order[i - 1] > order[i] < order[i + 1] for i in range(1, len(order) - 1))


def fresh_order(machine: ShufflerMachine) -> list:
    machine.cards_home()
    machine.shuffle(ShuffleMode.HAND_FORMING)
    return machine.stack[::-1]  # top first


def test_default_rng_is_the_operating_system_csprng():
    assert isinstance(ShufflerMachine().rng, random.SystemRandom)


def test_fisher_yates_positions_are_uniform():
    """Card 0's final position over 5200 seeded shuffles: chi-square far below the 0.1% bound."""
    rng = random.Random(3)
    counts = [0] * 52
    for _ in range(5200):
        deck = list(range(52))
        fisher_yates(deck, rng)
        counts[deck.index(0)] += 1
    chi2 = sum((c - 100) ** 2 / 100 for c in counts)
    assert chi2 < 87.97  # chi-square, 51 degrees of freedom, p = 0.001


def test_biased_shuffle_is_caught_by_an_audit():
    fair = ShufflerMachine(rng=random.Random(5))
    biased = ShufflerMachine(rng=random.Random(5))
    biased.faults = biased.faults.updated({"biased_shuffle": True})
    fair_valleys = [valleys(fresh_order(fair)) for _ in range(50)]
    biased_valleys = [valleys(fresh_order(biased)) for _ in range(50)]
    assert min(fair_valleys) > 10
    assert max(biased_valleys) <= 10  # 10 shelves
    assert sorted(fresh_order(biased)) == list(range(52))  # still every card once


@pytest.mark.parametrize("decks", [1, 2, 6, 8])
def test_decks_load_and_check(decks):
    m = ShufflerMachine(decks, rng=random.Random(1))
    report = m.deck_check()
    assert report.is_ok and report.counted == 52 * decks
    assert m.shuffle(ShuffleMode.SHOE).cards == 52 * decks
    assert m.state == DeviceState.SHOE


@pytest.mark.parametrize("decks", [0, 9])
def test_deck_capacity(decks):
    with pytest.raises(ValueError, match="1 to 8 decks"):
        ShufflerMachine(decks)


def test_unrecognised_cards_without_recognition_or_with_reader_failure():
    m = ShufflerMachine(recognition=False, rng=random.Random(1))
    m.shuffle(0)
    assert [c.card for c in m.deal(2, 1)[0].cards] == [None, None]
    m = ShufflerMachine(rng=random.Random(1))
    m.shuffle(0)
    m.faults = m.faults.updated({"reader_failure": True})
    assert m.deal(1, 1)[0].cards[0].card is None


def test_not_shuffled_and_not_enough_cards():
    m = ShufflerMachine(rng=random.Random(1))
    with pytest.raises(MachineError) as err:
        m.deal(2, 0)
    assert err.value.code == ErrorCode.NOT_SHUFFLED
    m.shuffle(0)
    m.deal(50, 0)
    with pytest.raises(MachineError) as err:
        m.deal(3, 0)
    assert err.value.code == ErrorCode.NOT_ENOUGH_CARDS


def test_shuffle_collects_every_card_back():
    m = ShufflerMachine(rng=random.Random(2))
    m.shuffle(0)
    m.deal(5, 0)
    m.shuffle(0)
    assert sorted(m.stack) == list(range(52)) and m.out == []


def test_tamper_deck_rejects_impossible_changes():
    m = ShufflerMachine()
    m.tamper_deck(remove=(5,))
    with pytest.raises(MachineError, match="not loaded"):
        m.tamper_deck(remove=(5,))
    with pytest.raises(MachineError, match="outside"):
        m.tamper_deck(duplicate=(52,))


def test_fault_settings_validate_keys_and_types():
    f = FrameFaults().updated({"drop": 2, "delay_s": 1})
    assert f.drop == 2 and f.delay_s == 1.0
    with pytest.raises(LocalProtocolError, match="unknown fault setting 'dorp'"):
        FrameFaults().updated({"dorp": 1})
    with pytest.raises(LocalProtocolError, match="must be a int"):
        FrameFaults().updated({"drop": 1.5})
    with pytest.raises(LocalProtocolError, match="must not be negative"):
        MachineFaults().updated({"jam_at_packet": -1})
    with pytest.raises(LocalProtocolError, match="must be a bool"):
        MachineFaults().updated({"biased_shuffle": 1})


def test_arranged_cards_top_the_next_shuffle_once():
    m = ShufflerMachine(rng=random.Random(2))
    m.arrange([51, 47, 0])
    assert fresh_order(m)[:3] == [51, 47, 0]
    assert sorted(m.stack) == list(range(52))
    assert fresh_order(m)[:3] != [51, 47, 0]  # one shuffle only


def test_arrange_now_reorders_the_shoe_in_play():
    m = ShufflerMachine(2, rng=random.Random(4))
    m.shuffle(ShuffleMode.SHOE)
    m.arrange([12, 12, 25], now=True)  # two decks: the ace of clubs twice
    assert [m.draw().card for _ in range(3)] == [12, 12, 25]
    assert len(m.stack) + len(m.out) == 104


def test_arrange_refuses_cards_the_machine_lacks_and_changes_nothing():
    m = ShufflerMachine(rng=random.Random(6))
    with pytest.raises(MachineError, match="NOT_SHUFFLED"):
        m.arrange([1], now=True)
    with pytest.raises(MachineError, match="card code 3 is not available"):
        m.arrange([3, 3])  # one deck holds code 3 (2s) once
    assert m.arranged == []
    m.shuffle(ShuffleMode.HAND_FORMING)
    m.deal(5, 0)
    gone = m.out[0]
    before = list(m.stack)
    with pytest.raises(MachineError):
        m.arrange([gone], now=True)
    assert m.stack == before


def test_a_shoe_gives_no_card_while_it_shuffles():
    """A card out during the SHUFFLE (its reply still to come) belongs to no shoe the host
    knows (firmware_bridge/ordering.py); a real shoe dispenses nothing while it shuffles."""
    m = ShufflerMachine(rng=random.Random(1))
    m.shuffle(ShuffleMode.SHOE)
    m.busy = True  # the firmware's SHUFFLE under way (its duration)
    with pytest.raises(MachineError) as refused:
        m.draw()
    assert refused.value.code == ErrorCode.NOT_SHUFFLED and len(m.stack) == 52
    m.busy = False
    assert m.draw().index == 1
