"""CH-9 across the link (share_scope = "link"): the jackpot is shared over every Jumbo 7 stake
accepted in the round each participating table has in play at the hit, in proportion to stake,
to the cent (largest remainder; ties to the hitting table first, then by table, round, seat).
Engine and round files; the linked store's part is tested in tests/linked/."""

import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.games import settle
from controller.engine.paytable import PoolPercent
from controller.engine.pools.awards import resolve_awards
from controller.engine.profiles import find_profile, load_profile, parse_profile
from controller.errors import RoundError

LINK = load_profile("ch-bg")  # ships share_scope = "link"


def table_profile():
    data = tomllib.loads(find_profile("ch-bg").read_text())
    data["progressive"]["share_scope"] = "table"
    return parse_profile(data, "ch-bg-table")


def default_profile():
    data = tomllib.loads(find_profile("ch-bg").read_text())
    del data["progressive"]["share_scope"]  # the rule book's default: "link"
    return parse_profile(data, "ch-bg-default")


TABLE = table_profile()
# seat 1 Ac 2c on 3c..7c: a 7-card straight flush (CH-8, 100%); dealer Kd Kh
ROUND = {
    "dealer": ["Kd", "Kh"],
    "community": ["3c", "4c", "5c", "6c", "7c"],
    "seats": [
        {"seat": 1, "cards": ["Ac", "2c"], "stakes": {"ante": 1000, "jumbo7": 100},
         "decision": "play"},
        {"seat": 2, "cards": ["9d", "9s"], "stakes": {"ante": 1000, "jumbo7": 200},
         "decision": "fold"},
    ],
}  # fmt: skip
OTHERS = [{"table": "T-BG-02", "round": "T-BG-02-000117", "stakes": {"1": 100, "3": 300}}]


def test_the_default_profile_key_is_link_and_ch_bg_ships_it():
    assert default_profile().progressive.share_scope == "link"
    assert LINK.progressive.share_scope == "link"
    assert TABLE.progressive.share_scope == "table"


def test_hand_worked_share_over_two_tables_ch9():
    # jackpot 100,140 over stakes 100 + 200 here and 100 + 300 at T-BG-02 (700 in all):
    # exact 14305.71, 28611.43, 14305.71, 42917.14; floors leave 2 cents, which go to the
    # largest fractions, the tie of .71 to this table's seat 1 first, then T-BG-02 seat 1
    pools = {"jumbo7": {"amount": 100140, "seed": 100000, "link": OTHERS}}
    result = settle(LINK, {**ROUND, "pools": pools})
    seats = {s.seat: s for s in result.seats}
    assert seats[1].wagers["jumbo7"].paid == 14306
    assert seats[2].wagers["jackpot-share"].paid == 28611
    report = result.pools["jumbo7"]
    assert report["link_shares"] == [
        {"table": "T-BG-02", "round": "T-BG-02-000117", "seat": 1, "share": 14306},
        {"table": "T-BG-02", "round": "T-BG-02-000117", "seat": 3, "share": 42917},
    ]
    assert report["jackpot_paid"] == 100140 and report["after"] == 100000  # PRG-5


def test_table_scope_keeps_the_hitting_tables_split_and_refuses_link_stakes():
    result = settle(TABLE, {**ROUND, "pools": {"jumbo7": {"amount": 100140, "seed": 100000}}})
    assert (
        result.seats[0].wagers["jumbo7"].paid + result.seats[1].wagers["jackpot-share"].paid
        == 100140
    )
    with pytest.raises(RoundError, match="shares no jackpot across the link") as info:
        settle(TABLE, {**ROUND, "pools": {"jumbo7": {"amount": 1, "link": OTHERS}}})
    assert info.value.rule == "CH-9"


@pytest.mark.parametrize(
    "link",
    [
        [{"table": "T2", "round": "R", "stakes": {"1": 150}}],  # not a multiple of 100 (CH-2)
        [{"table": "T2", "round": "R", "stakes": {}}],
        [{"table": "T2", "stakes": {"1": 100}}],
        [{"table": "T2", "round": "R", "stakes": {"1": 100}, "hand": 1}],
        [{"table": "T2", "round": "R", "stakes": {"1": 100}}] * 2,
    ],
)
def test_link_entries_are_checked(link):
    with pytest.raises(RoundError):
        settle(LINK, {**ROUND, "pools": {"jumbo7": {"amount": 100140, "link": link}}})


seats = st.dictionaries(st.integers(1, 7), st.integers(1, 20).map(lambda u: u * 100), min_size=1)
others = st.dictionaries(
    st.tuples(st.sampled_from(["T2", "T3"]), st.just("R"), st.integers(1, 7)),
    st.integers(1, 20).map(lambda u: u * 100),
)


@given(here=seats, link=others, pool=st.integers(0, 10**9))
def test_shares_sum_to_the_jackpot_to_the_cent_and_follow_the_stakes(here, link, pool):
    hitter = min(here)
    hits = {
        s: (("seven-card-straight-flush", PoolPercent(100)) if s == hitter else None) for s in here
    }
    outcome = resolve_awards(
        hits=hits, stakes=here, pool=pool, seed=0, unit_stake=100, award="share-round", others=link
    )
    paid_here = {s: a.amount + a.share for s, a in outcome.awards.items()}
    total = sum(paid_here.values()) + sum(outcome.link_shares.values())
    assert total == outcome.jackpot_paid == pool
    weight = sum(here.values()) + sum(link.values())
    for seat, paid in paid_here.items():
        assert abs(paid - pool * here[seat] / weight) < 1
    for key, share in outcome.link_shares.items():
        assert abs(share - pool * link[key] / weight) < 1
