"""A sign attached after the table started (croupierd starts it after READY) shows the table's
state at once, then what the core reports; a sign that fails never stops the table."""

import asyncio
import tomllib

from controller.table.events import Condition, ConditionChanged
from controller.table.runner import TableRunner
from controller.table.tableconfig import parse_table_config
from display.scenes import Mode

CONFIG = tomllib.loads("""
[table]
id = "T7"
profile = "uth-gr"
[shuffler]
emulate = true
[pools.main]
seed = 500000
""")


class FakeSign:
    def __init__(self, fail: bool = False) -> None:
        self.shown = []
        self.fail = fail

    def update(self, state) -> None:
        if self.fail:
            raise ValueError("no such digit")
        self.shown.append(state)


def test_an_attached_sign_shows_the_state_then_follows_it(tmp_path):
    async def go():
        runner = TableRunner(parse_table_config(CONFIG, "t.toml"), state_dir=tmp_path)
        await runner.open()
        sign = FakeSign()
        runner.attach_sign(sign)
        first = [s.mode for s in sign.shown]
        await runner.handle(ConditionChanged(Condition.STARTUP, False))
        await runner.idle()
        while not runner.queue.empty():
            await runner.handle(runner.queue.get_nowait())
        broken = FakeSign(fail=True)
        runner.attach_sign(broken)  # logged, not raised
        await runner.close()
        return first, [s.mode for s in sign.shown], sign.shown[-1].pools

    first, modes, pools = asyncio.run(go())
    assert first == [Mode.CLOSED]  # still starting
    assert modes[-1] == Mode.OPEN
    assert [p.amount for p in pools] == [500000]
