"""A simulated table (the rig's SimTable: a real croupierd, the emulator, the rig's pins) with
a real ``croupier-web`` process in front of it, for the web service's tests."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from web_service import FAST_SHUFFLER, WebService, chromium_paths

from controller.rig.table import SimTable


@pytest.fixture(scope="module")
def web_table() -> Iterator[SimTable]:
    """One simulated table for the module's web tests (started once: a daemon per test would
    cost the suite minutes); tests/conftest.py's ``sim_table`` is a fresh one per test."""
    table = SimTable(overrides=FAST_SHUFFLER)
    try:
        table.start()
        yield table
    finally:
        table.close()


@pytest.fixture(scope="module")
def web(web_table: SimTable, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebService]:
    service = WebService(tmp_path_factory.mktemp("web"), [("SIM-1", web_table)])
    try:
        yield service
    finally:
        service.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium, headless, driven by selenium through the system chromedriver."""
    paths = chromium_paths()
    if paths is None:
        if os.environ.get("CI"):
            pytest.fail("CI needs chromium and chromium-driver (.ci/run installs them)")
        pytest.skip("no chromium / chromedriver here: apt-get install chromium chromium-driver")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = paths[0]
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1200,1400",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(paths[1]), options=options)
    try:
        yield driver
    finally:
        driver.quit()
