"""A shoe card drawn before a SHUFFLE whose CARD event reaches the host after the SHUFFLE
reply (the cable was out when it was drawn; the event is retransmitted on its own timer once
the link is back) is late: not a card of the new shoe and no protocol violation (ordering.py,
docs/protocol.md sec. 2.4). Found by the trilux-gr soak (seed 11, round 52): the late card
voided the next round MD-S2 and the following card was reported again as repeated."""

from __future__ import annotations

import pytest
from linksim import LinkSim

from firmware_bridge.messages import CardEvent, ShuffleMode, ShuffleRequest, StatusRequest
from firmware_bridge.ordering import OLD_SHOES, CardOrder
from firmware_bridge.session import DeviceEvent, ProtocolViolation


def cards(sim: LinkSim) -> list[int]:
    return [e.message.index for e in sim.of_type(DeviceEvent) if isinstance(e.message, CardEvent)]


def test_only_the_old_shoes_next_cards_before_the_new_shoes_first_are_late():
    order = CardOrder()
    order.shuffled()
    assert [order.check(i) for i in (1, 2, 3)] == [None, None, None]
    order.shuffled()
    assert order.late(4) and order.late(5)
    assert not order.late(1) and order.check(1) is None
    assert not order.late(6)  # after the new shoe's first card nothing is late
    assert order.check(6) == "shoe card index 6 where 2 was next (4 card(s) skipped)"


def test_two_shuffles_in_a_row_the_status_says_how_many_cards_are_still_to_come():
    """Found by the trilux-gr soak (seed 14): the link identified the machine twice after the
    cable was back; a card drawn between the two SHUFFLEs has index 1, as the new shoe's
    first."""
    order = CardOrder()
    order.shuffled()
    order.device_drawn(1)  # STATUS: one card left the shoe, the host saw none of it
    order.shuffled()
    assert order.late(1)
    assert not order.late(1) and order.check(1) is None
    assert not order.late(2) and order.check(2) is None


def test_a_card_drawn_between_two_shuffles_is_late_on_the_link():
    sim = LinkSim()
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    sim.cable = False
    sim.device.draw_card(sim.now)
    sim.advance(sim.now + 0.05)
    sim.cable = True
    sim.reply(StatusRequest())  # as the link asks before every SHUFFLE
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    for _ in range(2):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 10.0)
    assert cards(sim) == [1, 2]
    assert sim.of_type(ProtocolViolation) == [] and sim.host.stats["cards_before_shuffle"] == 1


@pytest.mark.parametrize("pulls", [1, 2])
def test_cards_drawn_with_the_cable_out_and_delivered_after_the_shuffles_are_late(pulls):
    """The cable pulled ``pulls`` times, a card drawn each time, the shoe shuffled when the
    link came back: each card reaches the host after a SHUFFLE reply. With two pulls in a row
    (the trilux-gr soak, seeds 14 and 24) the first card arrived after the second SHUFFLE,
    its event's retransmission backed off; it was taken for a skip in the current shoe (MD-S2
    for a good round)."""
    sim = LinkSim()
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    for _ in range(3):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 0.5)
    assert cards(sim) == [1, 2, 3]
    for _ in range(pulls):  # the card is drawn, its event lost on the way
        sim.cable = False
        sim.device.draw_card(sim.now)
        sim.advance(sim.now + 0.05)
        sim.cable = True
        sim.reply(StatusRequest())  # as the link asks before every SHUFFLE
        sim.reply(ShuffleRequest(ShuffleMode.SHOE))  # the shoe in play again, before the retry
    for _ in range(2):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 10.0)
    assert cards(sim) == [1, 2, 3, 1, 2]
    assert sim.of_type(ProtocolViolation) == []
    assert sim.host.stats["cards_before_shuffle"] == pulls and sim.host.stats["card_order"] == 0


def test_late_cards_come_oldest_shoe_first_and_stop_at_the_current_shoes_first():
    order = CardOrder()
    order.shuffled()
    assert [order.check(i) for i in range(1, 7)] == [None] * 6
    order.device_drawn(8)  # two of the first shoe still on their way
    order.shuffled()
    order.device_drawn(1)  # one of the second
    order.shuffled()
    assert order.late(7) and order.late(8)  # the first shoe's, in its order
    assert order.late(1)  # the second shoe's only card (its STATUS said one was to come)
    assert not order.late(7)  # the first shoe has nothing left once the second's came
    assert order.check(7) == "shoe card index 7 where 1 was next (6 card(s) skipped)"


def test_a_card_of_the_current_shoe_ends_every_earlier_shoes_late_cards():
    order = CardOrder()
    order.shuffled()
    assert order.check(1) is None
    order.shuffled()
    order.shuffled()
    assert not order.late(1) and order.check(1) is None
    assert not order.late(2) and order.check(2) is None  # the first shoe's next, but too late


def test_only_so_many_earlier_shoes_are_remembered():
    def after(shuffles: int) -> bool:
        """Whether the first shoe's next card (2) is late after that many more shuffles."""
        order = CardOrder()
        order.shuffled()
        assert order.check(1) is None
        for _ in range(shuffles):
            order.shuffled()
        return order.late(2)

    assert after(OLD_SHOES) is True
    assert after(OLD_SHOES + 1) is False  # the first shoe is forgotten


def test_a_skip_right_after_a_shuffle_is_still_a_violation():
    order = CardOrder()
    order.shuffled()
    assert order.check(1) is None
    order.shuffled()
    assert not order.late(7)
    assert order.check(7) == "shoe card index 7 where 1 was next (6 card(s) skipped)"


def test_late_cards_beyond_what_the_status_counted_stop_after_a_few():
    """A device that dispensed while it shuffled: the new shoe's first card came before the
    SHUFFLE reply, then every card of the new shoe continued the "old" shoe's order and was
    taken as late, for ever (found by the simulator: a double identify; every round after
    was void MD-S2). Now two are taken at most; the next is checked, one violation, and the
    order is the device's again."""
    order = CardOrder()
    order.shuffled()
    assert order.check(1) is None  # the new shoe's first card, before the SHUFFLE reply
    order.shuffled()  # the reply: the STATUS before it counted nothing outstanding
    assert order.late(2) and order.late(3)
    assert not order.late(4)
    assert order.check(4) == "shoe card index 4 where 1 was next (3 card(s) skipped)"
    assert not order.late(5) and order.check(5) is None
