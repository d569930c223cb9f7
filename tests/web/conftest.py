"""A simulated table (the rig's SimTable: a real croupierd, the emulator, the rig's pins) with
a real ``croupier-web`` process in front of it, for the web service's tests."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.rig.table import SIM_CREDENTIAL, SimTable
from controller.table.credentials import hash_credential

ROOT = Path(__file__).resolve().parents[2]
FAST_SHUFFLER = {"shuffler": {"emulator": {"baud": None, "seed": 11}}}
USER = "alice"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class WebService:
    """``croupier-web`` as its own process on a free port, its log in ``log``."""

    def __init__(self, tmp: Path, tables: list[tuple[str, SimTable]], **web: Any) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = tmp / "web.log"
        lines = ["[web]", f'listen = "127.0.0.1:{self.port}"', "poll = 0.05", "offline_after = 2"]
        lines += [f"{k} = {v!r}".replace("True", "true").replace("False", "false")
                  for k, v in web.items()]  # fmt: skip
        for name, table in tables:
            lines += ["[[tables]]", f'name = "{name}"', f'socket = "{table.control_socket}"',
                      f'ledger = "{table.ledger_path}"']  # fmt: skip
        lines += ["[users]", f'{USER} = "{hash_credential(SIM_CREDENTIAL)}"']
        self.config = tmp / "web.toml"
        self.config.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.web.main", "--config", str(self.config)],
            stdout=self.log.open("wb"), stderr=subprocess.STDOUT, cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while True:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(self.url + "/metrics", timeout=2).read()
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"croupier-web did not start:\n{self.log.read_text()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def sim_table() -> Iterator[SimTable]:
    table = SimTable(overrides=FAST_SHUFFLER)
    try:
        table.start()
        yield table
    finally:
        table.close()


@pytest.fixture(scope="module")
def web(sim_table: SimTable, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebService]:
    service = WebService(tmp_path_factory.mktemp("web"), [("SIM-1", sim_table)])
    try:
        yield service
    finally:
        service.stop()


def chromium_paths() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None


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
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--window-size=1200,1400"):  # fmt: skip
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(paths[1]), options=options)
    try:
        yield driver
    finally:
        driver.quit()
