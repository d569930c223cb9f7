"""The web service's test helpers: a real ``croupier-web`` process in front of a simulated
table, and where Debian's chromium is. (Not in conftest: every test folder has one, so
``from conftest import ...`` would find whichever was imported first.)"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

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
        lines += [
            f"{k} = {v!r}".replace("True", "true").replace("False", "false") for k, v in web.items()
        ]
        for name, table in tables:
            lines += [
                "[[tables]]",
                f'name = "{name}"',
                f'socket = "{table.control_socket}"',
                f'ledger = "{table.ledger_path}"',
            ]
        lines += ["[users]", f'{USER} = "{hash_credential(SIM_CREDENTIAL)}"']
        self.config = tmp / "web.toml"
        self.config.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "controller.web.main", "--config", str(self.config)],
            stdout=self.log.open("wb"),
            stderr=subprocess.STDOUT,
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
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


def chromium_paths() -> tuple[str, str] | None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    return (browser, driver) if browser and driver else None
