"""``croupier rig``: the hardware-in-the-loop rig against a real daemon.

- ``croupier rig run SCENARIO.toml ... [--junit FILE] [-v] [--wired RIG.toml]``: play
  scenarios (tests/hil/) on the simulated table, or on a real controller the rig is cabled to;
  exit status 1 when one fails;
- ``croupier rig soak --rounds N --faults RATE --kill-rate RATE [--tables K]``: random
  rounds, random shuffler faults, random ``kill -9``; the ledger, its journal and the rig's
  own tally must agree to the cent (exit status 1 otherwise); prints rounds per second.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from controller.cli.argtypes import integer, rate
from controller.cli.meters_cmd import meter_text
from controller.cli.money import currency_json, table_currency
from controller.cli.output import add_json_flag, print_json
from controller.cli.progress import progress_bar
from controller.errors import CroupierError
from controller.rig.play import run_scenario
from controller.rig.report import human, junit
from controller.rig.scenario import load_scenario
from controller.rig.soak import ROYALS, SoakReport, run_soak
from controller.rig.table import REPO_CONFIG
from controller.rig.wired import load_wiring
from display.money import Currency
from drivers.errors import DriverError

EXAMPLES = {
    "rig": [
        "croupier rig run tests/hil/*.toml --junit rig.xml",
        "croupier rig run --wired rig.toml tests/hil/md-s1-wrong-count.toml",
        "croupier rig soak --rounds 2000 --faults 0.2 --kill-rate 0.005 --tables 3",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("rig", help="hardware-in-the-loop rig: scenarios and soak")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = actions.add_parser("run", help="play scenario files against a real daemon")
    r.add_argument(
        "scenarios", nargs="+", metavar="SCENARIO.toml", help="scenario files (tests/hil/)"
    )
    r.add_argument("--junit", metavar="FILE", help="write a JUnit XML report (CI)")
    r.add_argument("-v", "--verbose", action="store_true", help="every step, not only failures")
    r.add_argument("--wired", metavar="RIG.toml", help="a real controller the rig is cabled to")
    add_json_flag(r)
    r.set_defaults(func=run)
    s = actions.add_parser("soak", help="random rounds, faults and kill -9; books must agree")
    s.add_argument("--rounds", type=integer(1), default=1000, help="rounds in all (default 1000)")
    s.add_argument("--faults", type=rate, default=0.2, help="share of rounds with a fault")
    s.add_argument("--kill-rate", type=rate, default=0.01,
                   help="share of rounds during which the daemon is killed (SIGKILL)")  # fmt: skip
    s.add_argument("--royals", type=rate, default=ROYALS, help="share dealt a royal on purpose")
    s.add_argument(
        "--tables", type=integer(1, 16), default=1, help="tables soaked at once (default 1)"
    )
    s.add_argument("--seed", type=integer(0), help="the rig's random choices (default: random)")
    s.add_argument(
        "--tablet",
        action="store_true",
        help="LOCK and CONFIRM from the tablet (control socket), not the pins",
    )
    s.add_argument("--config", default=str(REPO_CONFIG), metavar="FILE",
                   help="a uth-gr sim table (default: config/sim.toml)")  # fmt: skip
    add_json_flag(s)
    s.set_defaults(func=soak)


def run(args: argparse.Namespace) -> int:
    scenarios = [load_scenario(path) for path in args.scenarios]  # every file parses first
    wiring = load_wiring(args.wired) if args.wired else None
    results = []
    for scenario in scenarios:
        result = run_scenario(scenario, wiring)
        results.append(result)
        if not args.json:
            print("\n".join(human(result, verbose=args.verbose)), flush=True)
    if args.junit:
        Path(args.junit).write_text(junit(results), encoding="utf-8")
    passed = sum(r.ok for r in results)
    if args.json:
        print_json([
            {"scenario": str(r.scenario.source), "name": r.scenario.name, "ok": r.ok,
             "seconds": round(r.seconds, 2), "failure": r.failure}
            for r in results
        ])  # fmt: skip
    else:
        print(f"{passed} of {len(results)} scenario(s) passed")
    return 0 if passed == len(results) else 1


def soak(args: argparse.Namespace) -> int:
    try:
        with progress_bar(args, total=args.rounds, unit="rounds", what="soak") as step:
            report = run_soak(args.rounds, faults=args.faults, kill_rate=args.kill_rate,
                              seed=args.seed, royals=args.royals, tables=args.tables,
                              tablet=args.tablet, config=args.config,
                              progress=step and (lambda _done: step(1)))  # fmt: skip
    except DriverError as exc:
        raise CroupierError(f"rig: {exc}") from exc
    cur = table_currency(args)
    if args.json:
        print_json({**report.to_json(), **currency_json(cur)})
    else:
        print_soak(report, cur)
    return 0 if report.ok else 1


def print_soak(report: SoakReport, cur: Currency) -> None:
    print(f"soak: {report.rounds} rounds in {report.seconds:.1f} s = {report.rate:.1f} rounds/s"
          f" ({len(report.tables) or 1} table(s), seed {report.seed})")  # fmt: skip
    outcomes = ", ".join(f"{n} {k}" for k, n in sorted(report.outcomes.items()))
    print(f"  outcomes: {outcomes}")
    faults = ", ".join(f"{n} {k}" for k, n in sorted(report.faults.items())) or "none"
    print(f"  faults: {faults}; kill -9: {report.kills}; jackpots: {report.jackpots}")
    for n, meters in enumerate(report.tables or [report.meters], 1):
        shown = ", ".join(f"{k} {meter_text(k, v, cur)}" for k, v in meters.items())
        print(f"  table {n} books (rig = ledger = journal): {shown}")
    if report.ok:
        print("OK: the ledger, its journal and the rig's tally agree to the cent")
    else:
        print(f"FAILED: {len(report.problems)} problem(s)")
        for problem in report.problems[:30]:
            print(f"  {problem}")
