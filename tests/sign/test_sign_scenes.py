"""Sign scenes over time, on a fake clock: what is shown when, and when the next change is due."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from display.errors import SignStateError
from display.geometry import Matrix, SevenSegment
from display.reader import read
from display.scenes import Mode, Pool, SignRenderer, SignState, Timing

DIGITS = SevenSegment(8)
MATRIX = Matrix(64)


def renderer(geometry=DIGITS, **timing):
    return SignRenderer(geometry, Timing(**timing))


def test_an_idle_sign_asks_for_no_wake_up():
    r = renderer()
    r.update(SignState(pools=(Pool("MEGA", 123456),)), 0.0)
    rendered = r.render(0.0)
    assert read(rendered.frame) == "1234.56"
    assert rendered.next_change is None
    assert r.render(1e6).frame == rendered.frame


def test_roll_up_ticks_at_the_frame_rate_and_lands_on_the_meter():
    r = renderer(frame_rate=10, roll_seconds=1.0)
    r.update(SignState(pools=(Pool("MEGA", 100_00),)), 0.0)
    r.update(SignState(pools=(Pool("MEGA", 101_00),)), 5.0)
    now, shown = 5.0, []
    while True:
        rendered = r.render(now)
        shown.append(read(rendered.frame))
        if rendered.next_change is None:
            break
        assert rendered.next_change == pytest.approx(now + 0.1)
        now = rendered.next_change
    assert shown[0] == "100.00"
    assert shown[-1] == "101.00"
    assert len(shown) == 11  # 10 ticks in one second, then the settled frame
    values = [float(s) for s in shown]
    assert values == sorted(values)


def test_contribution_does_not_restart_the_rotation():
    r = renderer(pool_seconds=4.0, label_seconds=1.0)
    pools = (Pool("MEGA", 500_00), Pool("MINI", 20_00))
    r.update(SignState(pools=pools), 0.0)
    assert r.render(0.5).frame.text.strip() == "MEGA"
    assert read(r.render(2.0).frame) == "500.00"
    assert r.render(5.5).frame.text.strip() == "MINI"
    assert read(r.render(7.0).frame) == "20.00"
    assert r.render(10.5).frame.text.strip() == "MEGA"  # the loop starts again
    r.update(SignState(pools=(Pool("MEGA", 500_00), Pool("MINI", 20_05))), 7.0)
    assert r.render(7.0).next_change == pytest.approx(7.05)  # rolling MINI, same step
    assert read(r.render(9.5).frame) == "20.05"


def test_the_step_end_is_the_next_change():
    r = renderer(pool_seconds=4.0, label_seconds=1.0)
    r.update(SignState(pools=(Pool("A", 1), Pool("B", 2))), 100.0)
    assert r.render(100.2).next_change == pytest.approx(101.0)
    assert r.render(101.0).next_change == pytest.approx(105.0)
    assert r.render(109.99).next_change == pytest.approx(110.0)


def test_jackpot_blinks_the_word_then_shows_the_win():
    r = renderer(MATRIX)
    r.update(SignState(pools=(Pool("MEGA", 1),), mode=Mode.JACKPOT, jackpot=2_500_000_00), 0.0)
    seq = [read(r.render(t).frame) for t in (0.0, 0.5, 0.7, 1.1, 1.7, 2.0, 4.3, 4.7)]
    assert seq == [
        "JACKPOT",
        "",
        "JACKPOT",
        "",
        "",
        "€2,500,000.00",
        "",
        "JACKPOT",
    ]


def test_jackpot_amount_overflow_is_reported():
    r = renderer(DIGITS)
    r.update(SignState(mode=Mode.JACKPOT, jackpot=10**12), 0.0)
    assert r.render(2.0).overflow
    assert set(read(r.render(2.0).frame)) == {"-"}


def test_closed_text_scrolls_one_position_per_step():
    r = renderer(DIGITS)
    r.update(SignState(mode=Mode.CLOSED), 10.0)
    step = 1 / DIGITS.scroll_rate
    first = r.render(10.0)
    assert first.frame.text == " " * 8  # the text is about to enter on the right
    assert first.next_change == pytest.approx(10.0 + step)
    assert r.render(10.0 + step).frame.text == "       P"
    assert r.render(10.0 + 8 * step).frame.text == "PROGRESS"
    passes = DIGITS.marquee_steps("PROGRESSIVE CLOSED")
    assert passes == 8 + 18
    assert r.render(10.0 + passes * step + 1e-9).frame.text == " " * 8  # and again


def test_message_scrolls_after_the_amount():
    r = renderer(MATRIX, pool_seconds=6.0)
    r.update(SignState(pools=(Pool("MEGA", 1000),), message="WELCOME TO THE MEGA PROGRESSIVE"), 0.0)
    assert read(r.render(1.0).frame) == "€10.00"
    assert read(r.render(6.0).frame) == ""
    assert "WEL" in read(r.render(7.5).frame)


def test_offline_and_closed_differ():
    frames = {}
    for mode in (Mode.CLOSED, Mode.OFFLINE):
        r = renderer(Matrix(256))
        r.update(SignState(mode=mode), 0.0)
        frames[mode] = read(r.render(0.0).frame)
    assert frames == {Mode.CLOSED: "PROGRESSIVECLOSED", Mode.OFFLINE: "PROGRESSIVEOFFLINE"}


@pytest.mark.parametrize("geometry", [DIGITS, SevenSegment(16), Matrix(32)])
def test_digits_pattern_walks_each_position(geometry):
    r = renderer(geometry, pattern_step=0.5)
    r.update(SignState(mode=Mode.TEST, pattern="digits"), 0.0)
    lit = []
    for i in range(geometry.test_positions + 1):
        cells = r.render(i * 0.5).frame.cells
        lit.append([j for j, b in enumerate(cells) if b])
    per = len(geometry.one_on(0).cells) // geometry.test_positions
    expected = [list(range(i * per, (i + 1) * per)) for i in range(geometry.test_positions)]
    assert lit == [*expected, expected[0]]


def test_brightness_pattern_steps_through_16_levels():
    r = renderer(DIGITS, pattern_step=0.25)
    r.update(SignState(mode=Mode.TEST, pattern="brightness"), 0.0)
    frames = [r.render(i * 0.25) for i in range(17)]
    assert [f.frame.level for f in frames] == [*range(16), 0]
    assert all(f.frame.lit == 64 for f in frames)  # 8 digits x (7 segments + point)


def test_all_pattern_lights_everything_and_holds():
    r = renderer(MATRIX)
    r.update(SignState(mode=Mode.TEST, pattern="all"), 0.0)
    rendered = r.render(3.0)
    assert rendered.frame.lit == 64 * 8
    assert rendered.next_change is None


def test_a_mode_change_restarts_the_program():
    r = renderer(DIGITS)
    r.update(SignState(mode=Mode.CLOSED), 0.0)
    r.update(SignState(mode=Mode.OFFLINE), 50.0)
    assert r.render(50.0).frame.text == " " * 8
    assert r.render(50.0 + 1 / 3).frame.text == "       P"


def test_no_pools_shows_a_blank_sign():
    r = renderer(MATRIX)
    rendered = r.render(0.0)
    assert rendered.frame.lit == 0
    assert rendered.next_change is None


def test_undrawable_message_is_refused_and_the_old_state_stays():
    r = renderer(DIGITS)
    good = SignState(pools=(Pool("MEGA", 100),))
    r.update(good, 0.0)
    with pytest.raises(SignStateError, match="cannot draw ',é'"):
        r.update(SignState(pools=good.pools, message="CAFé, BAR"), 1.0)
    assert r.state == good
    assert read(r.render(1.0).frame) == "1.00"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"mode": Mode.JACKPOT}, "needs the winning amount"),
        ({"mode": Mode.TEST, "pattern": "snake"}, "unknown test pattern 'snake'"),
        ({"pools": (Pool("A", 1), Pool("A", 2))}, "pool names must differ"),
    ],
)
def test_inconsistent_states_are_refused(kwargs, fragment):
    with pytest.raises(SignStateError, match=fragment):
        SignState(**kwargs)


def test_render_before_the_program_started_shows_its_first_frame():
    r = renderer(DIGITS)
    r.update(SignState(mode=Mode.CLOSED), 10.0)
    assert r.render(9.0).frame == r.render(10.0).frame
    assert math.isfinite(r.render(9.0).next_change)


@given(
    mode=st.sampled_from(list(Mode)),
    pools=st.integers(0, 3),
    geometry=st.sampled_from([DIGITS, Matrix(32), MATRIX]),
    start=st.floats(0, 1e6),
    hops=st.integers(1, 60),
)
def test_following_next_change_always_moves_forward(mode, pools, geometry, start, hops):
    """The device loop sleeps until next_change and renders again: that must never spin."""
    r = renderer(geometry)
    state = SignState(
        pools=tuple(Pool(f"P{i}", 10**i * 12345) for i in range(pools)),
        mode=mode,
        jackpot=77_777 if mode is Mode.JACKPOT else None,
        pattern="digits",
        message="HELLO" if pools == 2 else "",
    )
    r.update(SignState(pools=tuple(Pool(f"P{i}", 1) for i in range(pools))), start)
    r.update(state, start)
    now = start
    for _ in range(hops):
        change = r.render(now).next_change
        if change is None:
            break
        assert change > now
        now = change
