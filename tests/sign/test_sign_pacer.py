"""When frames are drawn: on change and on animation ticks, capped at the frame rate; a still
sign asks for no wake-up. The pacer runs on a fake clock; the asyncio loop and the whole
pipeline (renderer -> pacer -> luma device on a recording SPI stub) run briefly for real."""

import asyncio

import pytest

from controller.table.sign import Sign
from display.scenes import Mode, Pool, SignState
from drivers.sign.config import parse_sign
from drivers.sign.device import RecordingSpi, open_sign_device
from drivers.sign.loop import SignLoop
from drivers.sign.pacer import SignPacer


class Script:
    """A renderer stand-in: frame "n" changes at the given times."""

    def __init__(self, changes):
        self.changes = changes

    def __call__(self, now):
        frame = sum(1 for t in self.changes if t <= now)
        upcoming = [t for t in self.changes if t > now]
        return frame, min(upcoming, default=None)


def sent_frames():
    sent = []

    def send(frame):
        if sent and sent[-1][1] == frame:
            return False
        sent.append((None, frame))
        return True

    return sent, send


def test_a_still_frame_is_sent_once_and_asks_for_no_wake_up():
    sent, send = sent_frames()
    pacer = SignPacer(Script([]), send, frame_rate=20)
    assert pacer.step(0.0) is None
    assert pacer.step(100.0) is None
    assert [f for _, f in sent] == [0]
    assert (pacer.renders, pacer.sends) == (2, 1)


def test_changes_faster_than_the_frame_rate_are_held_back():
    sent, send = sent_frames()
    pacer = SignPacer(Script([0.01, 0.02, 0.03, 0.5]), send, frame_rate=10)
    now, times = 0.0, []
    while now is not None:
        before = pacer.sends
        wake = pacer.step(now)
        if pacer.sends > before:
            times.append(now)
        now = wake
    assert times == [0.0, pytest.approx(0.1), 0.5]  # 0.01..0.03 collapse into the frame at 0.1
    assert [f for _, f in sent] == [0, 3, 4]


def test_a_state_change_right_after_a_frame_waits_for_the_interval():
    sent, send = sent_frames()
    script = Script([])
    pacer = SignPacer(script, send, frame_rate=4)
    pacer.step(10.0)
    script.changes = [10.05]  # the state changed (the renderer now answers differently)
    assert pacer.step(10.05) == pytest.approx(10.25)  # too soon: come back at the cap
    assert pacer.step(10.25) is None
    assert [f for _, f in sent] == [0, 1]


def test_the_asyncio_loop_does_not_poll():
    """The real loop, briefly: at 50 frames per second a polling loop would wake ~10 times in
    0.2 s; this one renders once and wakes again only at the end."""
    sent, send = sent_frames()

    async def scenario():
        loop = SignLoop(SignPacer(Script([]), send, frame_rate=50))
        await loop.run(until=loop.clock() + 0.2)
        return loop

    loop = asyncio.run(scenario())
    assert len(sent) == 1
    assert loop.wakeups <= 3  # the first frame, the end (and at most one early timer wake-up)


def test_playing_blocking_sleeps_to_each_frame_and_draws_the_one_due_at_the_end():
    """`croupier sign show`'s drive (no event loop): on a fake clock whose sleep moves it, the
    pacer sleeps to each change (held to the frame rate) and to the deadline, never past it,
    and draws the frame due at the deadline before returning."""
    sent, send = sent_frames()
    clock = FakeClock(0.0)
    sleeps = []

    def sleep(seconds):
        sleeps.append(round(seconds, 6))
        clock.now += seconds

    pacer = SignPacer(Script([0.05, 0.3, 0.9]), send, frame_rate=10)
    pacer.play(until=0.6, clock=clock, sleep=sleep)
    assert sleeps == [0.1, 0.2, 0.3]  # to 0.1 (the cap, not 0.05), to 0.3, to the deadline
    assert [f for _, f in sent] == [0, 1, 2]  # the frame at 0.9 is after the deadline
    assert clock.now == pytest.approx(0.6)


def test_playing_a_still_sign_sleeps_once_to_the_deadline():
    sent, send = sent_frames()
    clock = FakeClock(5.0)
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        clock.now += seconds

    SignPacer(Script([]), send, frame_rate=50).play(until=7.0, clock=clock, sleep=sleep)
    assert sleeps == [2.0] and len(sent) == 1


class FakeClock:
    def __init__(self, now):
        self.now = now

    def __call__(self):
        return self.now


def test_the_pipeline_rolls_up_on_the_wire_and_then_goes_quiet():
    """Renderer -> pacer -> luma max7219 -> recording SPI, on a fake clock."""
    spi = RecordingSpi()
    config = parse_sign(
        {"kind": "seven-segment", "cascaded": 1, "frame_rate": 10, "roll_seconds": 0.3}
    )
    clock = FakeClock(500.0)
    sign = Sign(config, open_sign_device(config, spi=spi), clock)
    sign.update(SignState(pools=(Pool("MEGA", 100_00),)))
    assert sign.pacer.step(clock.now) is None  # still
    spi.transfers.clear()
    clock.now += 5.0
    sign.update(SignState(pools=(Pool("MEGA", 101_00),)))
    wake, steps = clock.now, 0
    while wake is not None:
        clock.now = wake
        wake = sign.pacer.step(clock.now)
        steps += 1
    assert clock.now == pytest.approx(505.3)  # the roll's end
    frames = [spi.transfers[i : i + 8] for i in range(0, len(spi.transfers), 8)]
    shown = [{t[0]: t[1] for t in frame} for frame in frames]
    # the three rightmost digits ("0." is 0xFE) at each tick: 100.33, 100.66, 101.00 (100.00
    # at the update itself was already on the sign: not sent again)
    assert [(f[3], f[2], f[1]) for f in shown] == [
        (0xFE, 0x79, 0x79),
        (0xFE, 0x5F, 0x5F),
        (0xB0, 0x7E, 0x7E),
    ]
    assert steps == 4


def test_overflow_is_reported_by_the_pipeline():
    config = parse_sign({"kind": "seven-segment", "cascaded": 1, "backend": "dummy"})
    sign = Sign(config, open_sign_device(config))
    sign.update(SignState(mode=Mode.JACKPOT, jackpot=10**15))
    sign.pacer.step(sign.clock() + 2.0)
    assert sign.overflow
