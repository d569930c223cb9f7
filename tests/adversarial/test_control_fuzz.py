"""Control requests (issue 13, point 1): every field of every command checked at entry, and
nothing in a request can stop the table. Hypothesis sends hostile requests to the real server,
commands, round machine and ledger (in process; a few against a real daemon); an *escape* is
an ``internal`` reply, an exception out of the server, or the table closed by the runner's
fail-safe (condition ``internal``). Target: 0."""

from __future__ import annotations

import json

import pytest
from fuzz_budget import scale
from hypothesis import given, settings
from hypothesis import strategies as st
from table_fixture import InProcessTable

from controller.rig.table import SIM_CREDENTIAL
from controller.table.commands import ARGS
from controller.table.control.wire import ControlError
from controller.table.tableconfig import STAKE_MAX_DEFAULT
from controller.validation import INT64_MAX

FUZZED = {"requests": 0, "escapes": 0}

hostile = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 6, 7, -1, STAKE_MAX_DEFAULT, STAKE_MAX_DEFAULT + 1, INT64_MAX, 10**20]),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(
        [
            "4x",
            "3x",
            "2x",
            "1x",
            "fold",
            "play",
            "check",
            "hit",
            "community",
            "dealer",
            "seat:1",
            "seat:9",
            "seat:0",
            "MD-M2",
            "MD-X9",
            "As",
            "last",
            "SIM-1-000001",
            "ante",
            "x" * 500,
            "\x00\x1b[2J",
        ]
    ),
    st.lists(
        st.integers(min_value=-3, max_value=10) | st.sampled_from(["As", "Kd", 51, True]),
        max_size=8,
    ),
    st.dictionaries(
        st.sampled_from(["ante", "blind", "trips", "play", "progressive", "main", "bogus"]),
        st.integers(min_value=-5, max_value=2**66) | st.sampled_from([100, 1000]),
        max_size=4,
    ),
    st.lists(st.sampled_from(["check", "2x", "fold", "1x", "4x"]), max_size=5),
)

ARG_NAMES = sorted({a for args in ARGS.values() for a in args} | {"bogus"})


@st.composite
def requests(draw: st.DrawFn) -> tuple[str, dict, str | None]:
    cmd = draw(
        st.sampled_from(sorted(ARGS))
        | st.sampled_from(["round.lock", "round.confirm", "round.stake", "nope"])
    )
    names = sorted(ARGS.get(cmd, ())) or ARG_NAMES
    keys = st.sampled_from(names) | st.sampled_from(ARG_NAMES)
    args = draw(st.dictionaries(keys, hostile, max_size=4))
    credential = draw(st.sampled_from([None, None, None, "wrong", SIM_CREDENTIAL]))
    return cmd, args, credential


def escaped(reply: dict) -> bool:
    return not reply.get("ok") and reply.get("code") == "internal"


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    t = InProcessTable(tmp_path_factory.mktemp("fuzz")).start()
    yield t
    t.close()
    print(
        f"\ncontrol fuzz (in process): {FUZZED['requests']} requests, {FUZZED['escapes']} escapes"
    )


def test_the_reproductions_are_refused_at_entry(table):
    """The review's two: a stake the ledger cannot store, a seat outside the table."""
    huge = table.request("round.stake", seat=1, stakes={"ante": 10**20, "blind": 10**20})
    assert huge["code"] == "bad-request" and "args.stakes.ante" in huge["error"]  # int64
    large = table.request("round.stake", seat=1, stakes={"ante": 10**12, "blind": 10**12})
    assert large["code"] == "bad-request" and "stakes.ante" in large["error"]
    assert "stake_max" in large["error"]
    outside = table.request("round.stake", seat=9, stakes={"ante": 100, "blind": 100})
    assert outside["code"] == "bad-request" and "'seat'" in outside["error"]
    assert table.request("round.seats", seats=[9])["code"] == "bad-request"
    assert table.request("round.decide", seat=1, action="5x")["code"] == "bad-request"
    # a wager of another game: a malformed request (exit 2), naming the rule (UTH-2)
    other = table.request("round.stake", seat=1, stakes={"jumbo7": 100})
    assert other["code"] == "bad-request" and "UTH-2" in other["error"]
    assert table.request("round.cards", destination="seat:1", cards=[0, 1])["code"] == (
        "bad-request"
    )
    unknown = table.request("round.lock", seats=[1])
    assert unknown["code"] == "bad-request" and "unknown argument" in unknown["error"]
    assert table.runner.machine.state.value == "open"


@pytest.mark.parametrize(
    "kinds",
    [[], "round.settled", [1], [""], ["x" * 65], ["bad\nkind"], ["k"] * 33, {"k": 1}],
    ids=repr,
)
def test_events_tail_refuses_a_bad_kinds_filter(table, kinds):
    reply = table.request("events.tail", n=5, kinds=kinds)
    assert reply["code"] == "bad-request" and "'kinds'" in reply["error"]


def test_events_tail_filters_by_kinds_and_meters_summary_answers(table):
    only = table.request("events.tail", n=50, kinds=["transition", "no.such.kind"])["result"]
    assert only and {e["kind"] for e in only} == {"transition"}
    summary = table.request("meters.summary")["result"]
    assert set(summary) == {"ledger", "pools", "rounds", "selfcheck", "currency"}
    assert summary["pools"] == table.request("meters")["result"]
    assert summary["selfcheck"]["table_may_open"] is True


def test_meters_hits_answers_with_the_currency_and_refuses_what_it_cannot_answer(table):
    """`croupier meters hits` asks the daemon: the hits newest first and the currency; a pool
    this table does not have is named with the table's pools (the CLI answered "no hits of
    pool progressive" for a pool named by its bet), and ``n`` is bounded."""
    answer = table.request("meters.hits", n=5)["result"]
    assert answer == {"hits": [], "currency": "EUR"}
    reply = table.request("meters.hits", pool="progressive")
    assert reply["code"] == "bad-request"
    assert reply["error"] == "no pool 'progressive' at this table (its pools: none)"
    for n in (0, -1, 10_001, True, "5", 1.5):
        reply = table.request("meters.hits", n=n)
        assert reply["code"] == "bad-request" and "'n' must be 1..10000" in reply["error"], n


def test_cards_a_misdeal_or_an_exposure_the_table_does_not_take_are_refused(table):
    """With no round in play the machine refuses them (journaled as cards-refused,
    misdeal-refused, exposure-refused): the dealer is told why, not "entered"/"declared"."""
    machine = table.runner.machine
    assert machine.state.value == "open"
    for cmd, args in (
        ("round.cards", {"destination": "community", "cards": ["As", "Ks", "Qs"]}),
        ("round.misdeal", {"rule": "MD-M1", "reason": "not shuffled"}),
        ("round.expose", {"positions": [1]}),
    ):
        reply = table.request(cmd, **args)
        assert not reply["ok"] and reply["code"] == "refused", (cmd, reply)
        assert reply["error"] and "\n" not in reply["error"], (cmd, reply)
    assert machine.state.value == "open"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        ({"destination": "seat:1", "positions": [1]}, "'destination' must be dealer or community"),
        ({"destination": ["community"], "positions": [1]}, "'destination'"),
        ({"destination": "community", "positions": [6]}, "'positions' must list community"),
        ({"destination": "community", "positions": [4, 4]}, "'positions'"),
        ({"destination": "community"}, "'positions'"),  # no default for the board
        ({"destination": "community", "positions": [1, 2, 3, 4, 5, 1]}, "'positions'"),
        ({"positions": [3]}, "'positions' must list the dealer's cards"),
        ({"positions": [True]}, "'positions'"),
    ],
    ids=repr,
)
def test_an_exposure_is_checked_at_entry(table, args, field):
    """MD-X1, MD-X2, MD-X3: the place and the positions are checked before the profile is
    asked, each problem naming its field."""
    reply = table.request("round.expose", **args)
    assert reply["code"] == "bad-request" and field in reply["error"], reply


def test_an_exposure_the_profile_has_no_procedure_for_is_refused(table):
    """uth-sk: the Slovak rules have no procedure for exposed cards (MD-X1..MD-X3)."""
    for destination, what in (("dealer", "dealer cards"), ("community", "community cards")):
        reply = table.request("round.expose", destination=destination, positions=[1])
        assert reply["code"] == "refused" and "profile uth-sk has no procedure" in reply["error"]
        assert what in reply["error"]


def test_a_stake_at_the_limit_settles_and_the_table_reopens(table):
    """The largest stake the table accepts goes through a whole round to the ledger."""
    top = STAKE_MAX_DEFAULT
    assert table.request(
        "round.stake", seat=2, stakes={"ante": top, "blind": top, "trips": top}, decision="4x"
    )["ok"]
    assert table.request("round.lock")["ok"]
    cards = {"community": ["As", "Ks", "Qs", "Js", "2d"], "dealer": ["3c", "4c"],
             "seat:2": ["Ts", "9h"]}  # fmt: skip
    for destination, these in cards.items():
        assert table.request("round.cards", destination=destination, cards=these)["ok"]
    assert table.request("round.confirm")["ok"]  # the manual deal is out
    assert table.request("round.confirm")["ok"]  # showdown
    machine = table.runner.machine
    table.wait_for(lambda: machine.state.value == "settled", "the settlement")
    assert machine.last_result.seats[0].paid > 100 * top  # a royal: Blind 500:1 (UTH-8)
    assert table.request("round.confirm")["ok"]
    table.wait_for(lambda: machine.state.value == "open", "the table open again")


@settings(settings.get_profile("adversarial"), max_examples=scale(150, 3000))
@given(st.lists(requests(), min_size=1, max_size=6))
def test_hostile_requests_never_escape(table, batch):
    for cmd, args, credential in batch:
        reply = table.request(cmd, credential, **args)
        FUZZED["requests"] += 1
        FUZZED["escapes"] += escaped(reply)
        assert not escaped(reply), (cmd, args, reply)
        assert reply["ok"] or reply["code"] in (
            "bad-request",
            "unknown-command",
            "unauthorised",
            "refused",
        ), reply
    assert "internal" not in table.runner.machine.conditions, table.runner.machine.conditions


@settings(settings.get_profile("adversarial"), max_examples=scale(100, 2000))
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_garbage_lines_are_bad_requests(table, line):
    reply = table.raw(line + b"\n")
    FUZZED["requests"] += 1
    assert not escaped(reply)
    assert reply["ok"] or reply["code"] in (
        "bad-request",
        "unknown-command",
        "unauthorised",
        "refused",
    )


def test_deep_or_huge_json_requests_are_bad_requests(table):
    for line in (
        b"[" * 50_000,
        b'{"cmd":"status","args":' + b'{"a":' * 20 + b"1" + b"}" * 21,
        b'{"cmd":"status","id":' + b"9" * 5000 + b"}",
        b'{"cmd":"status","args":{"n":1e999}}',
        b'{"cmd":"status","extra":1}',
    ):
        reply = table.raw(line + b"\n")
        assert reply["code"] == "bad-request", reply
    assert table.request("status")["ok"]


def test_a_real_daemon_keeps_serving_fuzzed_requests(make_sim_table):
    """A few hundred hostile requests over the real socket of a real croupierd."""
    t = make_sim_table(start=False)
    sent = 0
    try:
        t.start()  # inside the try: a daemon slow to start is still stopped
        t.wait_for_state("open")

        @settings(settings.get_profile("adversarial"), max_examples=scale(40, 400))
        @given(st.lists(requests(), min_size=1, max_size=5))
        def fuzz(batch):
            nonlocal sent
            for cmd, args, credential in batch:
                try:
                    t.call_with(credential, cmd, **args)
                except ControlError as exc:  # a refusal is expected; an internal error is not
                    assert exc.code != "internal", (cmd, args, exc)
                sent += 1

        fuzz()
        status = t.status()
        assert "internal" not in status["conditions"]
        assert t.proc.poll() is None
    finally:
        t.stop()
        log = t.log_path.read_text()
        t.close()
    assert "Traceback" not in log, log[-3000:]
    print(f"\ncontrol fuzz (real daemon): {sent} requests, 0 escapes")
    assert json.dumps(status)  # the last status was a whole reply


def test_what_escapes_the_checks_closes_the_table_and_it_keeps_serving(tmp_path):
    """Fail safe: the ledger refusing a settlement with an error nobody planned for (the
    review's OverflowError) closes the table with a reason, journaled; the socket answers."""
    t = InProcessTable(tmp_path).start()
    try:
        ledger = t.runner.ledger

        def overflow(*args, **kwargs):
            raise OverflowError("Python int too large to convert to SQLite INTEGER")

        ledger.settle_round = overflow
        assert t.request(
            "round.stake", seat=1, stakes={"ante": 100, "blind": 100}, decision="fold"
        )["ok"]
        assert t.request("round.lock")["ok"]
        for destination, cards in (
            ("community", "2c 3d 4h 5s 7c"),
            ("dealer", "9c 9d"),
            ("seat:1", "Kc Qd"),
        ):
            assert t.request("round.cards", destination=destination, cards=cards.split())["ok"]
        assert t.request("round.confirm")["ok"] and t.request("round.confirm")["ok"]
        machine = t.runner.machine
        t.wait_for(lambda: "internal" in machine.conditions, "the fail-safe")
        assert "OverflowError" in machine.conditions["internal"]
        assert "restart" in machine.conditions["internal"]
        status = t.request("status")
        assert status["ok"] and "internal" in status["result"]["conditions"]
        entries = t.request("events.tail", n=50)["result"]
        assert any(e["kind"] == "condition" and e["data"]["name"] == "internal" for e in entries)
    finally:
        t.close()
