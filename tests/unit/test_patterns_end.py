"""Every checked name, ID, hash or rule pattern ends at the end of the text: ``$`` lets a
final newline through (``re.match(r"^T1$", "T1\\n")`` matches), so ``round show $'T1\\n'``
passed the CLI's round-ID check and asked for the credential, and a newline could ride into
a kept ID. The patterns end with ``\\Z``; this test finds any that ends with ``$`` again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.books.ledger.inputs import ROUND_ID
from controller.cli.argtypes import POOL_NAME
from controller.cli.argtypes import ROUND_ID as CLI_ROUND_ID
from controller.table.commands import ROUND_REF
from controller.table.tableconfig import TABLE_ID

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("controller", "drivers", "display", "firmware_bridge")


def test_no_anchored_pattern_ends_with_a_dollar():
    found = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r'r"\^[^"]*\$"', line):
                    found.append(f"{path.relative_to(ROOT)}:{number}")
    assert found == []


@pytest.mark.parametrize(
    "pattern", [ROUND_ID, ROUND_REF, TABLE_ID, re.compile(POOL_NAME), re.compile(CLI_ROUND_ID)]
)
def test_a_final_newline_is_not_part_of_a_name(pattern):
    assert pattern.match("t1") and not pattern.match("t1\n")
