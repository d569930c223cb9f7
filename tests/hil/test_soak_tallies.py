"""The soak's own books (controller/rig/jumbo7.py, controller/rig/shoe.py) are a second
implementation of the pay rules, written without the engine; here both agree on random
hands, so a disagreement found by a soak is the controller's, not the rig's."""

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.engine.cards import Card
from controller.engine.games.blackjack.trilux import trilux_pay
from controller.engine.games.holdem import progressive_lines
from controller.engine.poker import evaluate
from controller.engine.pools.awards import largest_remainder_split
from controller.engine.profiles import load_profile
from controller.rig.jumbo7 import jumbo7_line, share_by_stake
from controller.rig.shoe import dealer_needs_card, is_blackjack, total, trilux_line

CH = load_profile("ch-bg").progressive
TRILUX = load_profile("trilux-gr").paytables["trilux"]
SEVEN = st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True)


def engine_jumbo7(cards):
    hole, community = tuple(map(Card, cards[:2])), tuple(map(Card, cards[2:]))
    found = CH.paytable.lookup(progressive_lines("ch", hole, community, evaluate(cards)))
    return found[0] if found else None


@settings(max_examples=3000)
@given(SEVEN)
def test_the_rigs_jumbo7_line_is_the_engines(cards):
    assert jumbo7_line(cards) == engine_jumbo7(cards)


def test_jumbo7_lines_by_hand():  # CH-8; codes rank*4 + suit, ranks 0..12 = 2..A
    spades = [r * 4 for r in range(13)]
    assert jumbo7_line([spades[12], *spades[:6]]) == "seven-card-straight-flush"  # A-2-..-7
    assert jumbo7_line([*spades[:6], 51]) == "six-card-straight-flush"
    assert jumbo7_line([*spades[8:13], 1, 6]) == "five-card-straight-flush"  # a royal
    assert jumbo7_line([0, 1, 2, 3, 5, 9, 14]) == "four-of-a-kind"


@given(st.integers(0, 10**9), st.dictionaries(st.integers(1, 7), st.integers(1, 500), min_size=1))
def test_the_rigs_share_is_the_engines(total_amount, stakes):
    assert share_by_stake(total_amount, stakes) == largest_remainder_split(total_amount, stakes)


@given(st.lists(st.integers(0, 51), min_size=3, max_size=3))
def test_the_rigs_trilux_line_is_the_engines(cards):
    found = trilux_pay(TRILUX, cards)
    assert trilux_line(cards) == (found[0] if found else None)


def test_blackjack_totals_and_the_dealers_draw():  # BJ-3, BJ-4, BJ-5
    ace, king, six, five = 48, 44, 16, 12
    assert total([ace, six]) == 17 and total([ace, six, king]) == 17 and total([ace, ace]) == 12
    assert is_blackjack([ace, king]) and not is_blackjack([ace, five, five])
    assert dealer_needs_card([[king, six]], [six])  # a live hand: draw to 17
    assert not dealer_needs_card([[king, six]], [ace, six])  # soft 17 stands
    assert not dealer_needs_card([[king, six, king]], [six])  # only a bust left
    assert dealer_needs_card([[ace, king]], [king])  # a blackjack against a ten: one card
    assert not dealer_needs_card([[ace, king]], [six])
