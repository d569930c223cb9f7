"""Every stake a round takes at LOCK is in the ledger from the opening (DESIGN.md "One round,
as data", docs/ledger.md): a blackjack seat's main bet and Trilux as accepted (BJ-1: capped
at the maximum), so a void returns each one; a linked pool's stake is a table wager in the
table's own ledger, paid what the store paid."""

from __future__ import annotations

import asyncio
import json
import tomllib
from pathlib import Path

from controller.engine.games import settle
from controller.table.events import (
    Button,
    Condition,
    ConditionChanged,
    DealerPressed,
    EnterWagers,
    OpenRound,
    ShufflerFault,
)
from controller.table.ledger_apply import local_settlement
from controller.table.runner import TableRunner
from controller.table.tableconfig import parse_table_config

ROOT = Path(__file__).resolve().parents[3]
TRILUX = tomllib.loads("""
[table]
id = "T-BJ"
profile = "trilux-gr"
[shuffler]
emulate = true
""")


class NoShuffler:
    """The shuffler link's side the runner uses, with no machine behind it."""

    def submit(self, effect, round_id=None):
        pass

    def exchanges_of(self, round_id):
        return []

    def identity_json(self):
        return None


async def drain(runner):
    await runner.idle()  # the journal writes under way answer too
    while not runner.queue.empty():
        await runner.handle(runner.queue.get_nowait())
        await runner.idle()


def test_a_voided_blackjack_round_has_its_stakes_in_the_ledger_and_returns_them(tmp_path):
    async def go():
        runner = TableRunner(parse_table_config(TRILUX, "t.toml"), state_dir=tmp_path)
        await runner.open()
        runner.shuffler = NoShuffler()
        try:
            await runner.handle(ConditionChanged(Condition.STARTUP, False))
            await drain(runner)
            await runner.handle(EnterWagers(1, {"main": 2000, "trilux": 100}))
            await runner.handle(EnterWagers(3, {"main": 150_000}))  # over BJ-1's maximum
            await runner.handle(DealerPressed(Button.LOCK))
            await drain(runner)
            round_id = runner.machine.round.round_id

            def record():
                return runner.ledger.round(round_id)

            opened = await runner.in_ledger(record)
            await runner.handle(ShufflerFault("misfeed"))  # MD-S2: the round is void
            await drain(runner)
            voided = await runner.in_ledger(record)
        finally:
            await runner.close()
        return opened, voided

    opened, voided = asyncio.run(go())
    taken = {1: {"main": 2000, "trilux": 100}, 3: {"main": 100_000}}  # capped at the maximum
    assert opened.state == "open" and opened.stakes == taken and opened.staked == 102_100
    assert voided.state == "voided" and voided.rule == "MD-S2"
    assert voided.paid == taken  # every stake returned


CH_LINKED = tomllib.loads("""
[table]
id = "T-CH"
profile = "ch-bg"
[shuffler]
emulate = true
[pools.jumbo7]
dsn = "host=/nonexistent dbname=croupier"
pool = "jumbo7"
""")


def test_a_linked_stake_is_a_table_wager_of_the_local_ledger_paid_what_the_store_paid(
    tmp_path,
):
    config = parse_table_config(CH_LINKED, "t.toml")
    data = json.loads((ROOT / "examples" / "ch-bg-jumbo7.json").read_text())
    result = settle(config.profile, data)
    # as the store's linked.settled note carries it (JSON: seats are strings)
    store_paid = {"1": {"jumbo7": 1_000_000, "jackpot-share": 0}, "2": {"jackpot-share": 55}}
    args = local_settlement(result, {}, "jumbo7", store_paid)
    assert args["stakes"][1]["jumbo7"] == args["stakes"][2]["jumbo7"] == 100
    assert args["payouts"][1]["jumbo7"] == 1_000_000 and args["payouts"][2]["jumbo7"] == 55
    opened = OpenRound("T-CH-000001", "jumbo7", {1: 100, 2: 100}, {})
    assert opened.every_stake() == {1: {"jumbo7": 100}, 2: {"jumbo7": 100}}
