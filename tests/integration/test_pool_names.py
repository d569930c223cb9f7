"""One name for one pool (issue 17): ``status`` named the sim table's pool by the wager that
feeds it (``pool progressive``, ``"pools": {"progressive": ...}``) while ``meters`` and the
ledger call it ``main``, so ``croupier meters hits --pool progressive`` (the help's own
example) failed with "no pool 'progressive' at this table". Every person-facing output now
names the pool as the ledger does, with the wager beside it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.cli.meters_cmd import EXAMPLES

pytestmark = pytest.mark.integration


def croupier(table, *args: str) -> subprocess.CompletedProcess:
    cli = [sys.executable, "-m", "controller.cli.main", "--socket", str(table.control_socket)]
    return subprocess.run(
        [*cli, *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_status_names_the_pool_as_meters_does_and_the_help_examples_run(sim_table):
    table = sim_table
    status = json.loads(croupier(table, "status", "--json").stdout)
    meters = json.loads(croupier(table, "meters", "--json").stdout)
    assert set(status["pools"]) == {p["pool"] for p in meters["pools"]} == {"main"}
    assert status["pool_wagers"] == {"main": "progressive"}
    shown = croupier(table, "status").stdout
    assert "pool main (progressive wager): EUR 5,000.00" in shown
    # the help's example, as written, on the simulated table
    (example,) = [e for e in EXAMPLES["meters"] if "--pool" in e]
    hits = croupier(table, *example.split()[1:])
    assert hits.returncode == 0, hits.stderr
    assert "no hits of pool main" in hits.stdout


def test_a_pool_named_by_its_wager_is_refused_saying_which_pool_it_feeds(sim_table):
    hits = croupier(sim_table, "meters", "hits", "--pool", "progressive")
    assert hits.returncode == 2
    assert (
        "no pool 'progressive' at this table (its pools: main; progressive is the wager that"
        " feeds pool main)" in hits.stderr
    )
