"""The linked database boundary: a NOTIFY payload is whatever anyone allowed to NOTIFY on the
pool's channel sends. It goes through the checked reader; amounts must be money."""

import json

import pytest

from controller.books.linked.client import LinkedPool
from controller.books.linked.settings import LinkedSettings
from controller.engine.profiles import load_profile
from controller.validation import MONEY_MAX


@pytest.fixture
def pool():
    rules = load_profile("ch-bg").progressive
    p = LinkedPool(LinkedSettings("jumbo7", "postgresql://localhost/x", "jumbo7-bg"), "T1", rules)
    p.offered = []
    p._offer = p.offered.append
    return p


def notify(**fields):
    return json.dumps({"amount": 1000, "seed": 500, "seq": 1, "table": "T2", **fields})


@pytest.mark.parametrize(
    "payload",
    [
        "[" * 7000,  # the parser would recurse past Python's limit
        '{"amount": ' + "9" * 5000 + ', "seed": 1, "seq": 1}',
        notify(amount=MONEY_MAX + 1),
        notify(amount=-5),
        notify(seed=2**63),
        notify(amount=1e308),
        '{"amount": NaN, "seed": 1, "seq": 1}',
        "not json",
        json.dumps([1, 2]),
    ],
)
def test_hostile_notify_payloads_are_dropped(pool, payload):
    pool._on_notify(payload)
    assert pool.offered == []


def test_a_good_notify_is_offered(pool):
    pool._on_notify(notify())
    assert [c.amount for c in pool.offered] == [1000]
