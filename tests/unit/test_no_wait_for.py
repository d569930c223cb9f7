"""No ``asyncio.wait_for`` in the product's code. On Python 3.11 (the table's, Raspberry Pi OS
bookworm's) it swallows a cancellation that arrives just as the awaited future completes: the
task goes on as if never cancelled, and whatever awaits its end waits for ever. croupier-web's
table feed did so at a stop (its wake-up event set by a page as the stop cancelled it), and the
service's shutdown hung (the fresh-clone CI run of session 14; 1 run in ~10 of its stream
test). ``asyncio.timeout`` propagates the cancellation (drivers/asynctools.py says the same
for the drivers)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("controller", "drivers", "display", "firmware_bridge")


def test_no_asyncio_wait_for_in_the_product():
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if re.search(r"asyncio\.wait_for\(|from asyncio import .*\bwait_for\b", line)
    ]
    assert found == []
