"""croupier-web benchmark: a real simulated table (the rig's SimTable), croupier-web with its
default polling, and Debian's headless chromium on the table page.

Prints, each beside a baseline measured in the same run:

- state change -> browser: a stake placed on (or lifted from) seat 1 by the rig, to the page
  in the browser showing it (target under 250 ms); beside the same change seen by polling the
  daemon's status directly over its control socket (the daemon's own part: rig pins,
  debounce, the event loop), so the difference is what the web service adds;
- the web process's idle CPU (target under 1% of a core) and RSS (target under 60 MB), with
  nobody watching and with one page open on a quiet table; beside a bare aiohttp process
  (one route, same interpreter) idle over the same window;
- the /metrics scrape time (one table, ledger totals and pipeline timings); beside a GET of a
  static text response from that bare aiohttp process.

    .venv/bin/python bench/web.py [--changes N] [--idle SECONDS] [--scrapes N]

Timing never goes into a test; this script only prints.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.rig.table import SIM_CREDENTIAL, SimTable  # noqa: E402
from controller.table.control.client import ControlClient  # noqa: E402
from controller.table.credentials import hash_credential  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")
BARE = textwrap.dedent(
    """
    import sys
    from aiohttp import web
    async def hello(request):
        return web.Response(text="ok")
    app = web.Application()
    app.router.add_get("/", hello)
    web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
    """
)
WATCH = """
window.changes = [];
let was = null;
new MutationObserver(() => {
  const seat = document.getElementById("seat-1");
  const now = seat ? seat.classList.contains("stake") : null;
  if (now !== was) { was = now; window.changes.push([now, Date.now()]); }
}).observe(document.getElementById("table"), {childList: true, subtree: true});
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mb(pid: int) -> float:
    return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 1e6


def idle(pids: dict[str, int], seconds: float) -> dict[str, tuple[float, float]]:
    """Per process: (CPU % of one core over ``seconds``, RSS MB at the end)."""
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    start = time.monotonic()
    time.sleep(seconds)
    spent = time.monotonic() - start
    return {
        name: (100 * (cpu_seconds(pid) - before[name]) / spent, rss_mb(pid))
        for name, pid in pids.items()
    }


def browser():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    return webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--changes", type=int, default=40)
    ap.add_argument("--idle", type=float, default=10.0)
    ap.add_argument("--scrapes", type=int, default=50)
    args = ap.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        print("bench/web.py needs chromium and chromium-driver (apt-get install them)")
        return 1
    tmp = Path(tempfile.mkdtemp(prefix="croupier-bench-web-"))
    table = SimTable(overrides={"shuffler": {"emulator": {"baud": None, "seed": 3}}})
    procs: list[subprocess.Popen[bytes]] = []
    driver = None
    try:
        table.start()
        port, bare_port = free_port(), free_port()
        (tmp / "web.toml").write_text(
            f'[web]\nlisten = "127.0.0.1:{port}"\ncookie_secure = false\n'
            f'[[tables]]\nname = "SIM-1"\nsocket = "{table.control_socket}"\n'
            f'ledger = "{table.ledger_path}"\n'
            f'[users]\nalice = "{hash_credential(SIM_CREDENTIAL)}"\n'
        )
        web = subprocess.Popen(
            [sys.executable, "-m", "controller.web.main", "--config", str(tmp / "web.toml")],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=ROOT,
        )
        bare = subprocess.Popen([sys.executable, "-c", BARE, str(bare_port)])
        procs += [web, bare]
        url, bare_url = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{bare_port}/"
        wait_http(url + "/static/web.css")  # not /metrics: its first scrape starts the PAR
        # sheet's child process, so the scrapes come last
        wait_http(bare_url)
        pids = {"croupier-web": web.pid, "bare aiohttp": bare.pid, "croupierd": table.proc.pid}

        print(f"== idle, nobody watching ({args.idle:g} s)")
        quiet = idle(pids, args.idle)
        for name, (cpu, rss) in quiet.items():
            print(f"  {name:14s} CPU {cpu:5.2f}% of a core   RSS {rss:5.1f} MB")

        driver = browser()
        driver.get(url + "/table/SIM-1")
        deadline = time.monotonic() + 20
        while not driver.find_elements("id", "seat-1"):
            if time.monotonic() > deadline:
                raise RuntimeError("the table page did not load")
            time.sleep(0.05)
        print(f"== idle, one page open on a quiet table ({args.idle:g} s)")
        for name, (cpu, rss) in idle(pids, args.idle).items():
            print(f"  {name:14s} CPU {cpu:5.2f}% of a core   RSS {rss:5.1f} MB")

        driver.execute_script(WATCH)
        browser_ms, daemon_ms = [], []
        io = table.io
        client = ControlClient(table.control_socket)
        for i in range(args.changes):
            placed = i % 2 == 0
            seen = len(driver.execute_script("return window.changes"))
            t0 = time.time()
            (io.place_stake if placed else io.lift_stake)(1)
            while client.call("status")["seats"]["1"]["stake"] != placed:
                pass
            daemon_ms.append(1000 * (time.time() - t0))
            deadline = time.monotonic() + 5
            while True:
                changes = driver.execute_script("return window.changes")
                if len(changes) > seen and changes[-1][0] == placed:
                    browser_ms.append(changes[-1][1] - 1000 * t0)
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("the browser did not see the change within 5 s")
                time.sleep(0.005)
            time.sleep(0.2)
        client.close()
        extra = [b - d for b, d in zip(browser_ms, daemon_ms, strict=True)]
        print(f"== seat 1 stake placed / lifted by the rig -> seen ({args.changes} changes)")
        print(
            f"  browser page   median {statistics.median(browser_ms):6.1f} ms"
            f"   p95 {pct(browser_ms, 0.95):6.1f} ms   (target < 250 ms)"
        )
        print(
            f"  baseline: daemon status polled directly  median"
            f" {statistics.median(daemon_ms):6.1f} ms   p95 {pct(daemon_ms, 0.95):6.1f} ms"
        )
        print(f"  the web's part (browser - daemon)  median {statistics.median(extra):6.1f} ms")

        scrape, plain = [], []
        for _ in range(args.scrapes):
            t = time.perf_counter()
            body = urllib.request.urlopen(url + "/metrics").read()
            scrape.append(1000 * (time.perf_counter() - t))
            t = time.perf_counter()
            urllib.request.urlopen(bare_url).read()
            plain.append(1000 * (time.perf_counter() - t))
        print(f"== /metrics scrape ({args.scrapes} scrapes, {len(body)} bytes)")
        print(
            f"  croupier-web /metrics  median {statistics.median(scrape):6.2f} ms"
            f"   p95 {pct(scrape, 0.95):6.2f} ms"
        )
        print(
            f"  baseline: bare aiohttp GET  median {statistics.median(plain):6.2f} ms"
            f"   p95 {pct(plain, 0.95):6.2f} ms"
        )
        return 0
    finally:
        if driver is not None:
            driver.quit()
        for proc in procs:
            proc.terminate()
            proc.wait(10)
        table.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
