"""The web service's pure parts: configuration limits, sessions and the login limiter, the
card-free page model, the metrics exposition."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from controller.engine.cards import card_name
from controller.table.credentials import hash_credential
from controller.validation import ConfigError
from controller.web import security
from controller.web.config import load_web_config
from controller.web.ledger_stats import LedgerStats
from controller.web.login_guard import DeviceCookies, LoginGuard, address_key
from controller.web.metrics import TableSample, exposition
from controller.web.security import MAX_AGE, LoginLimiter, SessionStore
from controller.web.view import CARD, card_free, money, table_view


def test_one_socket_serves_localhost_by_default():
    config = load_web_config(socket="/run/croupier/control.sock")
    assert (config.host, config.port) == ("127.0.0.1", 8080)
    assert config.cookie_secure and config.tables[0].socket.name == "control.sock"


def test_every_bad_key_is_named(tmp_path):
    path = tmp_path / "web.toml"
    path.write_text(
        '[web]\nlisten = "0.0.0.0:99999"\npoll = 0\ncurrency = "XXX"\ncolour = 1\n'
        '[[tables]]\nname = "bad name"\nsocket = ""\n'
        '[users]\nalice = "plain-secret"\n'
    )
    with pytest.raises(ConfigError) as err:
        load_web_config(path)
    keys = [key for key, _ in err.value.problems]
    assert keys == [
        "web.listen",
        "web.currency",
        "web.poll",
        "web.colour",
        "tables[0].name",
        "tables[0].socket",
        "users.alice",
    ]


def test_the_connection_limits_are_checked_against_each_other(tmp_path):
    path = tmp_path / "web.toml"
    table = '[[tables]]\nname = "T1"\nsocket = "s"\n'
    path.write_text(
        "[web]\nmax_connections = 4\nmax_streams = 300\nmax_streams_per_client = 0\n" + table
    )
    with pytest.raises(ConfigError) as err:
        load_web_config(path)
    assert err.value.problems == [
        ("web.max_connections", "must be 8..1000, got 4"),
        ("web.max_streams", "must be 1..255 (below max_connections), got 300"),
        ("web.max_streams_per_client", "must be 1..64 (at most max_streams), got 0"),
    ]
    path.write_text("[web]\nmax_connections = 10\nmax_streams_per_client = 12\n" + table)
    with pytest.raises(ConfigError) as err:
        load_web_config(path)
    assert err.value.problems == [
        ("web.max_streams_per_client", "must be 1..9 (at most max_streams), got 12")
    ]
    path.write_text("[web]\nmax_connections = 10\n" + table)
    config = load_web_config(path)  # the others' defaults fit under the cap given
    assert (config.max_connections, config.max_streams, config.max_streams_per_client) == (
        10,
        9,
        9,
    )


def test_stream_limits_count_strangers_by_address_and_a_login_apart():
    from controller.web.limits import StreamLimits, StreamsFull

    limits = StreamLimits(total=3, per_client=2, per_session=1)
    a1, a2 = limits.open("addr:10.0.0.1", None), limits.open("addr:10.0.0.1", None)
    with pytest.raises(StreamsFull, match="from this address"):
        limits.open("addr:10.0.0.1", None)
    b = limits.open("addr:10.0.0.2", None)
    with pytest.raises(StreamsFull, match="without a login"):
        limits.open("addr:10.0.0.3", None)
    pit = limits.open("addr:10.0.0.1", "session-1")  # the strangers' limits do not apply
    with pytest.raises(StreamsFull, match="in this session"):
        limits.open("addr:10.0.0.9", "session-1")
    assert len(limits) == 4
    for ticket in (a1, a2, b, pit):
        limits.close(ticket)
    assert len(limits) == 0 and limits.open("addr:10.0.0.3", None)


def test_each_kind_held_back_is_summarised_when_its_window_ends(caplog):
    """The summary timer was armed once, for the first kind held back, and not again: a
    second kind whose window ended later was summarised only at its next complaint or the
    stop, however long that took."""
    import asyncio
    import logging

    from controller.web.limits import Complaints

    async def scenario() -> list[str]:
        complaints = Complaints(interval=0.2)
        complaints("a", "a refused")
        complaints("a", "a refused")  # held back: a's window ends at 0.2
        await asyncio.sleep(0.1)
        complaints("b", "b refused")
        complaints("b", "b refused")  # held back: b's window ends at 0.3
        await asyncio.sleep(0.5)  # both windows over, no complaint since, no stop
        lines = [r.getMessage() for r in caplog.records]
        complaints.close()
        return lines

    with caplog.at_level(logging.WARNING, logger="croupier-web.limits"):
        lines = asyncio.run(scenario())
    assert lines[:2] == ["a refused", "b refused"], lines
    assert [line.split(" in the last")[0] for line in lines[2:]] == ["1 more a", "1 more b"]


def test_binding_beyond_localhost_is_explicit(tmp_path):
    path = tmp_path / "web.toml"
    path.write_text(
        f'[web]\nlisten = "0.0.0.0:8443"\n[[tables]]\nname = "T1"\nsocket = "s"\n'
        f'[users]\nbob = "{hash_credential("x")}"\n'
    )
    config = load_web_config(path)
    assert (config.host, config.port) == ("0.0.0.0", 8443) and set(config.users) == {"bob"}
    assert load_web_config(path, listen="[::1]:9000").host == "::1"


def test_sessions_expire_when_idle_and_after_a_shift():
    store = SessionStore(idle=60)
    s = store.new(0.0)
    assert store.get(s.id, 59.0) is s
    assert store.get(s.id, 120.0) is None  # idle for 61 s
    s = store.new(0.0)
    logged = store.login(s, "alice", "secret", 1.0)
    assert logged.id != s.id and logged.csrf != s.csrf and store.get(s.id, 2.0) is None
    now = 1.0
    while now < MAX_AGE:  # active all shift long
        now += 50
        assert store.get(logged.id, now) is not None or now - 1.0 > MAX_AGE
    assert store.get(logged.id, now + 50) is None
    assert "secret" not in repr(logged)


def test_a_flood_of_anonymous_sessions_never_ends_a_logged_in_one():
    """Every cookieless request used to start a session, and beyond 10,000 the least recently
    seen went, logged in or not: an anonymous flood logged the pit out."""
    store = SessionStore(idle=900)
    alice = store.login(store.new(0.0), "alice", "secret", 1.0)
    bob = store.login(store.new(1.0), "bob", "secret", 1.0)
    assert store.get(bob.id, 2.0) is bob  # bob is seen after alice: alice is the oldest
    for _ in range(2 * 10_000):
        store.new(3.0)
    assert store.get(alice.id, 4.0) is alice and store.get(bob.id, 4.0) is bob
    assert alice.secret == "secret"
    assert store.anonymous == security.MAX_ANONYMOUS and store.logged_in == 2


def test_the_least_recently_seen_anonymous_session_is_evicted():
    store = SessionStore(idle=900, max_anonymous=3)
    first, second, third = (store.new(t) for t in (0.0, 1.0, 2.0))
    assert store.get(first.id, 3.0) is first  # seen again: now the most recent
    store.new(4.0)
    assert store.get(second.id, 5.0) is None  # the least recently seen went
    assert store.get(first.id, 5.0) is first and store.get(third.id, 5.0) is third
    assert store.anonymous == 3


def test_an_eviction_looks_at_a_few_sessions_not_all_of_them(monkeypatch):
    """O(1): the least recently seen is at the front of the pool; the old store took the
    minimum of ``seen`` over every session on every eviction."""

    class Counted(security.Session):
        reads = 0

        def __getattribute__(self, name):
            if name == "seen":
                Counted.reads += 1
            return super().__getattribute__(name)

    monkeypatch.setattr(security, "Session", Counted)
    store = SessionStore(idle=900)
    kept = store.login(store.new(0.0), "alice", "secret", 0.0)
    for _ in range(10_000):
        store.new(1.0)
    for _ in range(100):  # each beyond the limit evicts one
        Counted.reads = 0
        store.new(2.0)
        assert Counted.reads <= 4
    assert store.get(kept.id, 3.0) is kept and len(store) == security.MAX_ANONYMOUS + 1


def test_logins_beyond_the_limit_are_refused_and_nobody_is_logged_out():
    store = SessionStore(idle=900, max_logged_in=3)
    users = [store.login(store.new(0.0), f"u{n}", "secret", 0.0) for n in range(3)]
    waiting = store.new(10.0)
    with pytest.raises(security.SessionsFull, match="3 sessions are logged in"):
        store.login(waiting, "u3", "secret", 10.0)
    assert all(store.get(u.id, 11.0) is u for u in users)
    assert store.get(waiting.id, 11.0) is waiting  # the form still works: try again later
    again = store.login(users[0], "u0", "secret", 12.0)  # a login again in one's own place
    assert store.get(users[0].id, 13.0) is None and store.logged_in == 3
    store.end(again.id)  # a logout makes room
    assert store.login(waiting, "u3", "secret", 14.0).user == "u3"
    # a session past the shift makes room too, even one seen a moment ago
    store = SessionStore(idle=86400, max_logged_in=2)
    shift = [store.login(store.new(0.0), f"u{n}", "secret", 0.0) for n in range(2)]
    assert store.get(shift[0].id, MAX_AGE) is shift[0]  # in use to the end of the shift
    assert store.login(store.new(MAX_AGE), "u2", "secret", MAX_AGE + 1.0).user == "u2"
    assert store.logged_in == 1 and store.get(shift[0].id, MAX_AGE + 1.0) is None


def test_expired_sessions_are_swept_without_being_asked_for():
    store = SessionStore(idle=60)
    store.new(0.0)
    logged = store.login(store.new(0.0), "alice", "secret", 0.0)
    store.new(30.0)
    assert len(store) == 3
    store.get(None, 61.0)  # any request sweeps: the two idle since 0 go, secret and all
    assert len(store) == 1 and store.logged_in == 0
    assert store.get(logged.id, 62.0) is None


def test_the_limiter_counts_failures_per_key_in_a_window():
    limiter = LoginLimiter(attempts=3, window=100)
    keys = ["addr:1", "user:a"]
    for t in (0, 1, 2):
        assert limiter.wait(keys, t) == 0
        limiter.failed(keys, t)
    assert limiter.wait(keys, 3) == pytest.approx(97)
    assert limiter.wait(["user:a"], 50) > 0 and limiter.wait(["addr:2"], 50) == 0
    assert limiter.wait(keys, 100.5) == 0  # the first failure left the window
    limiter.succeeded(keys)
    assert limiter.wait(keys, 101) == 0


def test_nobody_without_the_credential_locks_a_known_browser_out():
    """Five wrong tries as "pit" used to keep "pit" out for the window, from anywhere. A
    browser that logged in before (a device cookie) is counted on its own; browsers that
    never did are throttled per name, from every address together."""
    guard = LoginGuard(attempts=5, window=300, users={"pit"})
    cookie = guard.devices.issue("pit", 0.0)  # the pit's browser logged in once
    for t in range(5):  # the attacker: no cookie, from the pit's own address (a proxy)
        keys = guard.keys("pit", "127.0.0.1", None, 10.0 + t)
        assert guard.wait(keys, 10.0 + t) == 0
        guard.attempt(keys, 10.0 + t)
    assert guard.wait(guard.keys("pit", "127.0.0.1", None, 20.0), 20.0) > 0
    assert guard.wait(guard.keys("pit", "203.0.113.9", None, 20.0), 20.0) > 0  # the name
    known = guard.keys("pit", "127.0.0.1", cookie, 20.0)
    assert known[0].startswith("device:") and guard.wait(known, 20.0) == 0
    for t in range(5):  # a known browser's own failures count against it alone
        guard.attempt(known, 30.0 + t)
    assert guard.wait(known, 40.0) > 0
    fresh = guard.devices.issue("pit", 40.0)  # the same user's other browser
    assert guard.wait(guard.keys("pit", "127.0.0.1", fresh, 40.0), 40.0) == 0


def test_a_device_cookie_is_only_good_for_its_user_its_key_and_its_age():
    devices = DeviceCookies(key=b"k" * 32, max_age=100)
    token = devices.issue("pit", 1000.0)
    assert devices.device(token, "pit", 1050.0) is not None
    assert devices.device(token, "alice", 1050.0) is None  # another user's
    assert devices.device(token, "pit", 1101.0) is None  # too old
    assert DeviceCookies(key=b"x" * 32).device(token, "pit", 1050.0) is None  # another key
    body, mac = token.rsplit(".", 1)
    forged = body.replace(".1000.", ".1049.") + "." + mac
    for bad in (forged, "", "a.b.c", "." * 3, token + "x" * 300, "\x00.1.2.3"):
        assert devices.device(bad, "pit", 1050.0) is None
    # a byte that is not UTF-8 in the Cookie header arrives as a lone surrogate: it raised
    # UnicodeEncodeError taking the MAC (a 500 with a traceback); non-ASCII is no cookie of ours
    for bad in ("a\udcff.1.n.mac", body + "." + mac[:-1] + "\udcff", "\u00e9.1.2.\u00e9"):
        assert devices.device(bad, "pit", 1050.0) is None


def test_names_not_in_the_user_list_are_not_counted_and_ipv6_counts_by_its_64():
    guard = LoginGuard(attempts=5, window=300, users={"pit"})
    assert guard.keys("nobody", "10.0.0.1", None, 0.0) == ["addr:10.0.0.1"]
    assert guard.keys("pit", "10.0.0.1", None, 0.0) == ["addr:10.0.0.1", "user:pit"]
    assert address_key("2001:db8::1") == address_key("2001:db8::ffff:1") == "addr:2001:db8::/64"
    assert address_key("::ffff:10.0.0.1") == "addr:10.0.0.1"


def test_a_flood_of_new_keys_never_resets_a_live_count():
    """The memory cap used to drop the oldest keys: 10,000 new names or addresses reset
    everybody's failures, the flooder's own among them. Now expired keys go first, and
    while every key is live a new one is refused, not counted in somebody's place."""
    limiter = LoginLimiter(attempts=3, window=100, capacity=50)
    for t in (0, 1, 2):
        limiter.failed(["addr:attacker"], t)
    assert limiter.wait(["addr:attacker"], 3) > 0
    for i in range(10_000):
        if limiter.wait([f"addr:{i}"], 4) == 0:
            limiter.failed([f"addr:{i}"], 4)
    assert len(limiter) == 50
    assert limiter.wait(["addr:attacker"], 5) == pytest.approx(95)  # still counted
    assert limiter.wait(["addr:newcomer"], 5) == pytest.approx(97)  # full: till one expires
    assert limiter.wait(["addr:attacker"], 102.5) == 0  # its window passed
    assert limiter.wait(["addr:newcomer"], 104.5) == 0  # the flood's keys expired: room
    assert len(limiter) == 0


cards = st.integers(0, 51).map(card_name)


@given(st.lists(st.one_of(cards, st.text(max_size=8)), max_size=12).map(" ".join))
def test_card_free_text_never_shows_a_card(text):
    assert CARD.search(card_free(text)) is None


def test_a_deck_check_detail_keeps_its_counts_but_not_its_cards():
    assert card_free("deck check: 51 of 52 cards, missing 7h, duplicate As x2") == (
        "deck check: 51 of 52 cards, missing [card], duplicate [card] x2"
    )


def test_the_page_shows_money_and_a_hit_by_its_category_only():
    status = {
        "table": "T1",
        "state": "open",
        "pools": {"progressive": 1234567},
        "seats": {"1": {"stake": True}},
        "shuffler": {"link": "up"},
    }
    hit = {
        "round_id": "T1-9",
        "seat": 1,
        "pool": "main",
        "line": "100%",
        "hand": "royal-flush As Ks Qs Js Ts",
        "amount": 1234567,
    }
    page = table_view(status, [], code="EUR", hits=[hit], pace=12.345)
    assert page["pools"] == [{"pool": "progressive", "amount": "€12,345.67"}]
    assert page["hits"][0]["hand"] == "royal-flush" and page["pace"] == 12.3
    assert CARD.search(str(page)) is None
    assert money(5, "JPY") == "5"


def test_metrics_parse_as_prometheus_text(tmp_path):
    stats = LedgerStats(tmp_path / "none")
    stats.rounds.update({("settled", ""): 3, ("voided", "MD-S1"): 1})
    stats.handle.update({"trips": 1000, "ante": 500})
    stats.paid.update({"trips": 300})
    status = {
        "state": "open",
        "shuffler": {"link": "up"},
        "conditions": {},
        "seats": {"1": {"excluded": None}, "2": {"excluded": "stuck"}},
    }
    sample = TableSample(
        "T1",
        True,
        status,
        [{"kind": "stuck-sensor", "state": "active"}],
        stats,
        {"verdict": [0.002, 0.03], "settlement": []},
        {"trips": 0.035},
    )
    families = {f.name: f for f in text_string_to_metric_families(exposition([sample]).decode())}
    value = {
        (f.name, s.name, tuple(sorted(s.labels.items()))): s.value
        for f in families.values()
        for s in f.samples
    }

    def get(family, sample, **labels):
        return value[family, sample, tuple(sorted({"table": "T1", **labels}.items()))]

    assert get("croupier_rounds", "croupier_rounds_total", outcome="voided", rule="MD-S1") == 1
    assert get("croupier_theoretical_win", "croupier_theoretical_win_total", wager="trips") == 35
    assert get("croupier_seat_sensor_ok", "croupier_seat_sensor_ok", seat="2") == 0
    assert get("croupier_link_up", "croupier_link_up", link="shuffler") == 1
    assert (
        get(
            "croupier_pipeline_seconds",
            "croupier_pipeline_seconds_bucket",
            stage="verdict",
            le="0.005",
        )
        == 1
    )
    assert get("croupier_alerts", "croupier_alerts", kind="stuck-sensor", state="active") == 1


def test_the_shipped_example_loads():
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "config" / "web" / "web.toml"
    config = load_web_config(example)
    assert config.host == "127.0.0.1" and config.tables[0].name == "T1" and config.users == {}


def test_a_flood_of_strangers_that_fills_the_limiter_does_not_keep_a_known_browser_out():
    """A full table refuses new keys; a known browser's key was new there too, so addresses
    enough (one IPv6 /48 holds 65,536 /64s) kept the pit's own browser out. Known devices
    have a table of their own, which only cookies this process signed can fill."""
    guard = LoginGuard(attempts=5, window=300, users={"pit"})
    guard.limiter = LoginLimiter(attempts=5, window=300, capacity=50)
    cookie = guard.devices.issue("pit", 0.0)
    for i in range(60):
        keys = guard.keys("nobody", f"2001:db8:{i:x}::1", None, 1.0)
        if guard.wait(keys, 1.0) == 0:
            guard.attempt(keys, 1.0)
    assert guard.wait(guard.keys("nobody", "2001:db8:ffff::1", None, 2.0), 2.0) > 0  # full
    assert guard.wait(guard.keys("pit", "2001:db8:ffff::1", cookie, 2.0), 2.0) == 0


def test_one_users_cookies_cannot_fill_the_table_that_keeps_another_users_browser_in():
    """A device cookie is issued at every login, so a user who can log in (as "bar") could
    collect cookies enough to fill the devices' table with live failures; a known browser
    of "pit" with no failure yet was then a new key in a full table, refused, even with the
    right credential. Each user's devices are counted in a table of their own."""
    guard = LoginGuard(attempts=5, window=300, users={"pit", "bar"})
    for user in ("pit", "bar"):  # each user's table as small as the test's flood
        guard._limiter([f"device:x@{user}"]).capacity = 50
    for _ in range(60):  # "bar" logged in 60 times, then fails once with each cookie
        keys = guard.keys("bar", "127.0.0.1", guard.devices.issue("bar", 0.0), 1.0)
        if guard.wait(keys, 1.0) == 0:
            guard.attempt(keys, 1.0)
    later = guard.keys("bar", "127.0.0.1", guard.devices.issue("bar", 0.0), 2.0)
    assert guard.wait(later, 2.0) > 0  # bar's own table is full
    pit = guard.keys("pit", "127.0.0.1", guard.devices.issue("pit", 0.0), 2.0)
    assert guard.wait(pit, 2.0) == 0
