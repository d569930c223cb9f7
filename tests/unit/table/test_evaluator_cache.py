"""The evaluator's tables on disk: the daemon starts without building them, and a cache that
is not exactly this code's tables is never used."""

from __future__ import annotations

import hashlib

from controller.engine.poker import evaluator
from controller.engine.poker.evaluator import TABLES_SHA256, encode_tables, install_tables
from controller.table.evaluator_cache import CACHE_NAME, warm_up_cached


def fresh_tables() -> bytes:
    evaluator._built.clear()  # build them from the rules, not from any cache
    return encode_tables()


def test_the_digest_names_the_tables_this_code_builds():
    assert hashlib.sha256(fresh_tables()).hexdigest() == TABLES_SHA256


def test_an_altered_cache_is_refused_and_rebuilt(tmp_path):
    blob = fresh_tables()
    assert warm_up_cached(tmp_path) is False  # no cache yet: built, then written
    assert (tmp_path / CACHE_NAME).read_bytes() == blob
    assert warm_up_cached(tmp_path) is True  # the next start reads it
    royal = evaluator.strength([48, 44, 40, 36, 32])  # As Ks Qs Js Ts (codes rank << 2 | suit)
    tampered = bytearray(blob)
    tampered[-9] ^= 1  # one bit of the flush tables
    assert install_tables(bytes(tampered)) is False
    (tmp_path / CACHE_NAME).write_bytes(bytes(tampered))
    assert warm_up_cached(tmp_path) is False  # refused, rebuilt, rewritten
    assert (tmp_path / CACHE_NAME).read_bytes() == blob
    assert evaluator.strength([48, 44, 40, 36, 32]) == royal


def test_an_unwritable_state_directory_only_costs_time(tmp_path):
    missing = tmp_path / "none"
    assert warm_up_cached(missing) is False
    assert evaluator.strength([48, 44, 40, 36, 32]) > 0
