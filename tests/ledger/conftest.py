"""Fixtures of the ledger tests: a ledger on a temporary file with a fake wall clock."""

import pytest
from ledger_fixtures import FakeWall, uth_pool

from controller.books.ledger.store import Ledger
from controller.books.ledger.verify import verify_ledger


@pytest.fixture
def db_path(tmp_path):
    return tmp_path / "ledger.sqlite3"


@pytest.fixture
def ledger(db_path):
    """A ledger with the Greek UTH pool; verified in full when the test is done."""
    with Ledger.open(db_path, now=0.0, wall_clock=FakeWall()) as opened:
        opened.configure_pool(uth_pool(), 0.0)
        yield opened
        assert verify_ledger(opened).problems == []
