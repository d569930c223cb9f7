"""A shoe card drawn before a SHUFFLE whose CARD event reaches the host after the SHUFFLE
reply (the cable was out when it was drawn; the event is retransmitted on its own timer once
the link is back) is late: not a card of the new shoe and no protocol violation (ordering.py,
docs/protocol.md sec. 2.4). Found by the trilux-gr soak (seed 11, round 52): the late card
voided the next round MD-S2 and the following card was reported again as repeated."""

from __future__ import annotations

from linksim import LinkSim

from firmware_bridge.messages import CardEvent, ShuffleMode, ShuffleRequest, StatusRequest
from firmware_bridge.ordering import CardOrder
from firmware_bridge.session import DeviceEvent, ProtocolViolation


def cards(sim: LinkSim) -> list[int]:
    return [e.message.index for e in sim.of_type(DeviceEvent) if isinstance(e.message, CardEvent)]


def test_a_card_drawn_before_the_shuffle_and_delivered_after_it_is_late():
    sim = LinkSim()
    sim.reply(sim.host.identify_request())
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))
    for _ in range(3):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 0.5)
    assert cards(sim) == [1, 2, 3]
    sim.cable = False  # the card is drawn, its event lost on the way
    sim.device.draw_card(sim.now)
    sim.advance(sim.now + 0.05)
    sim.cable = True
    sim.reply(ShuffleRequest(ShuffleMode.SHOE))  # the shoe in play again, before the retry
    for _ in range(2):
        sim.device.draw_card(sim.now)
    sim.advance(sim.now + 10.0)
    assert cards(sim) == [1, 2, 3, 1, 2]
    assert sim.of_type(ProtocolViolation) == []
    assert sim.host.stats["cards_before_shuffle"] == 1 and sim.host.stats["card_order"] == 0


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


def test_a_skip_right_after_a_shuffle_is_still_a_violation():
    order = CardOrder()
    order.shuffled()
    assert order.check(1) is None
    order.shuffled()
    assert not order.late(7)
    assert order.check(7) == "shoe card index 7 where 1 was next (6 card(s) skipped)"
