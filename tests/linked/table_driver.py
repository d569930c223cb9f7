"""A table process for the linked-pool soak: plays Casino Hold'em rounds with Jumbo 7 stakes
against a linked pool the way the daemon will (issue 7), and logs what the store answered.

    table_driver.py DSN TABLE LOG --life N --seed S [--pause-at K --pause-when WHEN]
                    [--jackpot-at K --barrier DIR] --stop-file PATH

Each round: if the link is down the round is played without linked stakes ("refused");
otherwise the Jumbo 7 stakes are taken (``open_round``; a LinkDownError means they were not
taken: "in-doubt"), then the round is voided (a misdeal, now and then) or settled with random
pay lines; a settlement the link refused waits while the table keeps playing its other bets,
and is asked again once the link is back. Every answer is a
JSON line in LOG, flushed at once (a SIGKILL loses nothing written).

Fault injection for the soak: ``--pause-at K --pause-when before-commit`` stops inside the
K-th opening's transaction just before COMMIT, ``after-commit`` just after COMMIT but before
the table hears of it; the driver prints ``PAUSED`` and waits to be killed. ``--jackpot-at
K`` makes round K hit the 100% line after waiting for ``DIR/go`` (having written
``DIR/ready-TABLE``), so that two tables settle a jackpot at the same moment.
"""

import argparse
import asyncio
import json
import random
import sys
from pathlib import Path

from controller.books.linked import store
from controller.books.linked.client import LinkedPool
from controller.books.linked.errors import LinkDownError
from controller.books.linked.link import LinkChanged
from controller.books.linked.settings import LinkedSettings
from controller.engine.profiles import load_profile

RULES = load_profile("ch-bg").progressive
NAME = "j7"
JACKPOT = "seven-card-straight-flush"
LINES = (("flush", 0.03), ("straight", 0.04), ("full-house", 0.02), ("four-of-a-kind", 0.005))


def parse(argv):
    p = argparse.ArgumentParser()
    p.add_argument("dsn")
    p.add_argument("table")
    p.add_argument("log", type=Path)
    p.add_argument("--life", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pause-at", type=int)
    p.add_argument("--pause-when", choices=("before-commit", "after-commit"))
    p.add_argument("--jackpot-at", type=int)
    p.add_argument("--barrier", type=Path)
    p.add_argument("--stop-file", type=Path, required=True)
    p.add_argument("--pace", type=float, default=0.003)
    p.add_argument("--max-rounds", type=int, default=5000)
    return p.parse_args(argv)


class Log:
    def __init__(self, path):
        self.file = path.open("a")

    def __call__(self, event, **data):
        self.file.write(json.dumps({"event": event, **data}) + "\n")
        self.file.flush()


def pause_hook(args, log):
    """Make the K-th opening stop before or after its COMMIT (see the module docstring)."""
    rid = f"L{args.life}-{args.pause_at}"

    async def wait_to_be_killed():
        log("paused", round=rid, when=args.pause_when)
        print("PAUSED", flush=True)
        await asyncio.sleep(3600)

    if args.pause_when == "before-commit":
        original_put = store.put_pool

        async def put_pool(conn, locked, state, event):
            await original_put(conn, locked, state, event)
            if event.get("kind") == "round.opened" and current_round == rid:
                await wait_to_be_killed()

        store.put_pool = put_pool
    else:
        original_open = store.PoolTransactions.open_round

        async def open_round(self, round_id, seats, now):
            result = await original_open(self, round_id, seats, now)
            if round_id == rid:
                await wait_to_be_killed()
            return result

        store.PoolTransactions.open_round = open_round


current_round = None


async def wait_for_go(args):
    (args.barrier / f"ready-{args.table}").touch()
    while not (args.barrier / "go").exists():
        await asyncio.sleep(0.005)


async def settle_pending(linked, pending, log):
    """Settle the rounds waiting for the link, oldest first, as long as it holds."""
    loop = asyncio.get_running_loop()
    while pending:
        rid, hits = pending[0]
        try:
            settled = await linked.settle_round(
                rid, loop.time(), hits={NAME: hits}, hands={s: "hand" for s in hits}
            )
        except LinkDownError:
            return
        pending.pop(0)
        outcome = settled.outcomes[NAME]
        log(
            "settled",
            round=rid,
            jackpot_paid=outcome.jackpot_paid,
            pool_before=outcome.pool_before,
            seq=settled.seq,
        )


async def play(args):
    global current_round
    log = Log(args.log)
    if args.pause_at:
        pause_hook(args, log)
    rng = random.Random(args.seed * 1000 + args.life)
    settings = LinkedSettings(
        name=NAME,
        dsn=args.dsn,
        pool="jumbo7",
        heartbeat=1.0,
        operation_timeout=3.0,
        reconnect_min=0.05,
        reconnect_max=0.5,
    )
    linked = LinkedPool(settings, args.table, RULES)
    loop = asyncio.get_running_loop()

    async def watch():
        async for event in linked.events():
            if isinstance(event, LinkChanged):
                log("link", up=event.up)
                for voided in event.recovered:
                    log(
                        "recovered",
                        round=voided.round_id,
                        rule=voided.rule,
                        from_current=voided.reversals[NAME].from_current,
                    )

    watcher = asyncio.create_task(watch())
    await linked.start()
    await linked.wait_up(60)
    log("started", life=args.life)
    pending = []  # settlements asked while the link was down: asked again when it is back
    n = 0
    while not args.stop_file.exists() and n < args.max_rounds:
        n += 1
        rid = current_round = f"L{args.life}-{n}"
        seats = rng.sample(range(1, 8), rng.randint(1, 4))
        stakes = {s: {"jumbo7": 100 * rng.choice((1, 1, 2)), "ante": 500} for s in seats}
        await asyncio.sleep(args.pace)
        if not linked.link_up:
            log("refused", round=rid)  # the round is played without its linked stakes
            continue
        await settle_pending(linked, pending, log)
        try:
            opened = await linked.open_round(rid, stakes, loop.time())
        except LinkDownError:
            log("in-doubt", round=rid)
            continue
        c = opened.contributions[NAME]
        log("opened", round=rid, stake=c.stake, to_current=c.to_current, seq=opened.seq)
        if n != args.jackpot_at and rng.random() < 0.08:
            try:
                voided = await linked.void_round(rid, loop.time(), rule="MD-S1", cause="soak")
                log("voided", round=rid, from_current=voided.reversals[NAME].from_current)
            except LinkDownError:
                log("void-owed", round=rid)
            continue
        hits = {}
        for s in seats:
            line = next((ln for ln, p in LINES if rng.random() < p), None)
            if line:
                hits[s] = line
        if n == args.jackpot_at:
            hits[seats[0]] = JACKPOT
            await wait_for_go(args)
        pending.append((rid, hits))
        await settle_pending(linked, pending, log)
    while pending:  # the link may be down: settle what is left once it is back
        await linked.wait_up(60)
        await settle_pending(linked, pending, log)
    log("done", rounds=n)
    await linked.close()
    watcher.cancel()


if __name__ == "__main__":
    asyncio.run(play(parse(sys.argv[1:])))
