"""croupier-web in a real headless browser (Debian's chromium via selenium) against a real
simulated table: the page loads, a round played by the rig shows up live, a jackpot and an
alert are acknowledged through the page and journaled with who did it, and the floor page
shows a table going offline. Skipped with the reason where no browser is installed.

``CROUPIER_WEB_SCREENSHOTS=DIR`` saves a picture of each page there (docs/web/*.png).
"""

from __future__ import annotations

import os
import random
import time
from pathlib import Path

import pytest
from web_service import FAST_SHUFFLER, USER, WebService

from controller.rig.dealer import Dealer, RoundPlan, royal_order
from controller.rig.table import SIM_CREDENTIAL, SimTable

pytestmark = pytest.mark.integration
WAIT = 20.0
SHOTS = os.environ.get("CROUPIER_WEB_SCREENSHOTS")

# Records every state the page shows, with no reload (a reload would lose the list).
WATCH_STATES = """
window.seenStates = [document.getElementById("state").textContent];
window.seenRounds = [];
new MutationObserver(() => {
  const state = document.getElementById("state");
  const round = document.getElementById("round");
  if (state && window.seenStates.at(-1) !== state.textContent)
    window.seenStates.push(state.textContent);
  if (round && round.textContent && window.seenRounds.at(-1) !== round.textContent)
    window.seenRounds.push(round.textContent);
}).observe(document.getElementById("table"), {childList: true, subtree: true,
                                               characterData: true});
"""


def wait_for(check, what: str, timeout: float = WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def text(browser, element_id: str) -> str:
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException

    try:
        return browser.find_element("id", element_id).text
    except (NoSuchElementException, StaleElementReferenceException):
        return ""


def click(browser, element_id: str) -> None:
    """Click by ID in the page itself (the page rebuilds its elements on every change), as
    soon as it is there."""
    wait_for(
        lambda: browser.execute_script(
            "const e = document.getElementById(arguments[0]); if (e) e.click(); return !!e;",
            element_id,
        ),
        f"#{element_id} on the page",
    )


def shot(browser, name: str) -> None:
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(SHOTS) / f"{name}.png"))


def log_in(browser, web: WebService) -> None:
    browser.get(web.url + "/login")
    shot(browser, "login")
    browser.find_element("id", "user").send_keys(USER)
    browser.find_element("id", "secret").send_keys(SIM_CREDENTIAL)
    browser.find_element("id", "submit").click()
    try:
        wait_for(lambda: browser.find_elements("id", "logout"), "the login")
    except AssertionError:
        page = browser.find_element("tag name", "body").text
        raise AssertionError(f"login failed: {page}") from None


def test_the_table_page_loads_with_the_open_table(browser, web, web_table):
    browser.get(web.url + "/")
    assert wait_for(lambda: text(browser, "state") == "open", "the open table")
    assert browser.current_url.endswith("/table/SIM-1")
    assert "€5,0" in text(browser, "pools")
    wait_for(
        lambda: browser.find_element("id", "sign").get_attribute("naturalWidth") not in ("0", None),
        "the sign's picture",
    )
    assert [s.get_attribute("id") for s in browser.find_elements("css selector", ".seat")] == [
        f"seat-{n}" for n in range(1, 7)
    ]
    severe = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert severe == [], severe  # no script, style or policy error


def test_a_round_played_by_the_rig_shows_up_live(browser, web, web_table):
    browser.get(web.url + "/table/SIM-1")
    wait_for(lambda: text(browser, "state") == "open", "the open table")
    browser.execute_script(WATCH_STATES)
    seen = Dealer(web_table).play(RoundPlan(seats=(1, 3), main_bets={"ante": 500, "blind": 500}))
    assert seen.outcome == "settled", seen.problems
    wait_for(lambda: text(browser, "state") == "open", "the table open again")
    states = browser.execute_script("return window.seenStates")
    rounds = browser.execute_script("return window.seenRounds")
    # live, without a reload; the robot dealer is quick, so some states may pass between polls
    in_round = set(states) & {"locked", "dealing", "verified", "showdown", "settled"}
    assert states[0] == "open" and states[-1] == "open" and len(in_round) >= 2, states
    assert f"round {seen.round_id}" in rounds
    assert "rounds per hour" in text(browser, "pace")


def test_a_jackpot_and_its_alert_are_acknowledged_through_the_page(browser, web, web_table):
    log_in(browser, web)
    browser.get(web.url + "/table/SIM-1")
    wait_for(lambda: text(browser, "state") == "open", "the open table")
    acknowledged = {}

    def at(moment: str) -> None:
        if moment != "settled" or web_table.status()["state"] != "jackpot":
            return
        alert = wait_for(
            lambda: browser.execute_script(
                "const e = document.querySelector('[data-kind=\"jackpot-pending\"]');"
                "return e && e.id"
            ),
            "the jackpot alert",
        )
        acknowledged["alert"] = int(alert.removeprefix("alert-"))
        shot(browser, "table-jackpot")
        click(browser, "jackpot-ack")
        wait_for(lambda: text(browser, "state") != "jackpot", "the jackpot acknowledged")

    rng = random.Random(5)
    plan = RoundPlan(seats=(2,), arrange=royal_order((2,), rng, community=False))
    seen = Dealer(web_table, pause=at).play(plan)
    assert seen.jackpot and "alert" in acknowledged, seen
    alert_id = acknowledged["alert"]
    # the jackpot's alert stays (cleared, unacknowledged) until someone acknowledges it
    wait_for(lambda: "cleared" in text(browser, f"alert-{alert_id}"), "the alert cleared")
    shot(browser, "table")
    click(browser, f"ack-{alert_id}")
    wait_for(lambda: not browser.find_elements("id", f"alert-{alert_id}"), "the alert gone")
    journal = {e["kind"]: e["data"] for e in web_table.call("events.tail", n=200)}
    assert journal["jackpot-acknowledged"] == {"technician": USER}
    assert journal["alert-acknowledged"] == {
        "alert": alert_id,
        "kind": "jackpot-pending",
        "subject": seen.round_id,
        "technician": USER,
    }
    assert "royal" in text(browser, "hits")  # the hit's category, never its cards


def test_the_floor_shows_a_table_going_offline(browser, web_table, tmp_path):
    other = SimTable(overrides=FAST_SHUFFLER)
    other.start()
    floor = None
    try:
        floor = WebService(tmp_path, [("SIM-1", web_table), ("SIM-2", other)])
        browser.get(floor.url + "/floor")
        for name in ("SIM-1", "SIM-2"):
            wait_for(
                lambda n=name: browser.find_elements(
                    "css selector", f'#tile-{n}[data-state="open"]'
                ),
                f"{name} open on the floor",
            )
        shot(browser, "floor")
        other.kill()  # kill -9: the daemon stops answering
        wait_for(
            lambda: browser.find_elements("css selector", '#tile-SIM-2[data-state="offline"]'),
            "SIM-2 offline on the floor",
            timeout=15,
        )
        assert browser.find_elements("css selector", '#tile-SIM-1[data-state="open"]')
        shot(browser, "floor-offline")
    finally:
        if floor is not None:
            floor.stop()
        other.close()
