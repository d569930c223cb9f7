"""What the linked store reads back from PostgreSQL is checked before it is paid: a round's
stakes and the CH-9 shares other tables fixed for a round. A row edited in the database is a
one-line LinkedStoreError (the table's ledger write fails and the table closes; nothing is paid),
never a TypeError in the daemon or a share of the wrong size."""

from __future__ import annotations

import json

import pytest

from controller.books.linked.errors import LinkedStoreError
from controller.books.linked.store import _link_shares_of, _seat_money, _stake_json
from controller.validation import MONEY_MAX


def test_good_rows_read_back_as_they_were_written():
    assert _stake_json('{"1": 100, "3": 300}') == {1: 100, 3: 300}
    entry = {"pools": {"jumbo7": {"link_shares": [["T-2", "T-2-000117", 1, 14306]]}}}
    assert _link_shares_of(json.dumps(entry), "jumbo7") == [("T-2", "T-2-000117", 1, 14306)]
    assert _link_shares_of(json.dumps({"pools": {}}), "jumbo7") == []
    assert _seat_money("7", MONEY_MAX, "x") == (7, MONEY_MAX)


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1, 2]",
        '{"x": 100}',
        '{"0": 100}',
        '{"1": -5}',
        '{"1": 1.5}',
        '{"1": "100"}',
        '{"1": true}',
        f'{{"1": {MONEY_MAX + 1}}}',
        '{"100000": 1}',
    ],
)
def test_edited_stakes_are_refused_in_one_line(text):
    with pytest.raises(LinkedStoreError) as caught:
        _stake_json(text)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "data",
    [
        "not json",
        {"pools": []},
        {"pools": {"jumbo7": {"link_shares": [["T-2", "R", 1]]}}},
        {"pools": {"jumbo7": {"link_shares": 5}}},
        {"nothing": 1},
    ],
)
def test_malformed_link_shares_are_refused(data):
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(LinkedStoreError, match="link_shares"):
        _link_shares_of(text, "jumbo7")


@pytest.mark.parametrize("seat, share", [(True, 1), (1, -1), (1, 2.5), (None, 1), (1, "9")])
def test_a_share_must_be_a_seat_and_an_amount(seat, share):
    with pytest.raises(LinkedStoreError, match="link_shares"):
        _seat_money(seat, share, "link_shares")
