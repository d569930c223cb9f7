"""``croupier rig``: the hardware-in-the-loop rig against a real daemon.

- ``croupier rig run SCENARIO.toml ... [--junit FILE] [-v] [--wired RIG.toml]``: play
  scenarios (tests/hil/) on the simulated table, or on a real controller the rig is cabled to;
  exit status 1 when one fails; stopped by a signal, it reports the scenarios played, says
  which one was cut short (``STOPPED by SIGTERM after 2 of 5 scenario(s): ...``) and exits
  128 + N;
- ``croupier rig soak [--profile uth-gr|ch-bg|trilux-gr] --rounds N --faults RATE
  --kill-rate RATE [--tables K] [--dsn DSN]``: random rounds, random shuffler faults, random
  ``kill -9``; the ledger, its journal and the rig's own tally must agree to the cent (exit
  status 1 otherwise); prints rounds per second. ``ch-bg``: Jumbo 7 linked across the tables
  on a private PostgreSQL (or ``--dsn``), the server restarted during the run
  (docs/rig.md).
"""

from __future__ import annotations

import argparse
import sys

from controller.cli.argtypes import UsageError, integer, output_file, rate, required_file
from controller.cli.main import add_command
from controller.cli.meters_cmd import meter_text
from controller.cli.money import currency_json, table_currency
from controller.cli.output import add_json_flag, print_json, write_output
from controller.errors import CroupierError

TYPE_CHECKING = False
if TYPE_CHECKING:  # the rig is imported by the commands, not by their parsers (--help)
    from controller.rig.soak import SoakReport
    from display.money import Currency

EXAMPLES = {
    "rig": [
        "croupier rig run tests/hil/*.toml --junit rig.xml",
        "croupier rig run --wired rig.toml tests/hil/md-s1-wrong-count.toml",
        "croupier rig soak --rounds 2000 --faults 0.2 --kill-rate 0.005 --tables 3",
        "croupier rig soak --profile ch-bg --rounds 200 --faults 0.2 --kill-rate 0.02",
    ],
}

SOAK_PROFILES = ("uth-gr", "ch-bg", "trilux-gr")
LINKED_TABLES = 3  # the ch-bg soak's tables by default: a link of at least three (PRG-6)
# controller.rig.soak.ROYALS, written here for --help (tests/unit/cli/test_cli_light_choices.py)
SOAK_ROYALS = 0.01


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "rig")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    r = actions.add_parser("run", help="play scenario files against a real daemon")
    r.add_argument(
        "scenarios",
        nargs="+",
        type=required_file,
        metavar="SCENARIO.toml",
        help="scenario files (tests/hil/)",
    )
    r.add_argument(
        "--junit", type=output_file, metavar="FILE", help="write a JUnit XML report (CI)"
    )
    r.add_argument("-v", "--verbose", action="store_true", help="every step, not only failures")
    r.add_argument(
        "--wired",
        type=required_file,
        metavar="RIG.toml",
        help="a real controller the rig is cabled to",
    )
    add_json_flag(r)
    r.set_defaults(func=run)
    s = actions.add_parser("soak", help="random rounds, faults and kill -9; books must agree")
    s.add_argument(
        "--profile",
        choices=SOAK_PROFILES,
        default="uth-gr",
        help="the game: uth-gr (default), ch-bg (linked Jumbo 7), trilux-gr (shoe)",
    )
    s.add_argument(
        "--dsn",
        help="ch-bg: a PostgreSQL server to make the linked store on"
        " (default: a private cluster, restarted during the run)",
    )
    s.add_argument("--rounds", type=integer(1), default=1000, help="rounds in all (default 1000)")
    s.add_argument(
        "--faults", type=rate, default=0.2, help="share of rounds with a fault (default 0.2)"
    )
    s.add_argument(
        "--kill-rate",
        type=rate,
        default=0.01,
        help="share of rounds during which the daemon is killed (SIGKILL; default 0.01)",
    )
    s.add_argument(
        "--royals",
        type=rate,
        default=SOAK_ROYALS,
        help=f"share dealt a royal on purpose (default {SOAK_ROYALS:g})",
    )
    s.add_argument(
        "--tables",
        type=integer(1, 16),
        help=f"tables soaked at once (default 1; ch-bg {LINKED_TABLES})",
    )
    s.add_argument("--seed", type=integer(0), help="the rig's random choices (default: random)")
    s.add_argument(
        "--tablet",
        action="store_true",
        help="LOCK and CONFIRM from the tablet (control socket), not the pins",
    )
    s.add_argument(  # default: controller.rig.table.REPO_CONFIG
        "--config",
        type=required_file,
        metavar="FILE",
        help="a uth-gr sim table (default: config/sim.toml)",
    )
    add_json_flag(s)
    s.set_defaults(func=soak)


def run(args: argparse.Namespace) -> int:
    from controller.rig.play import run_scenario
    from controller.rig.report import human, junit
    from controller.rig.scenario import load_scenario
    from controller.rig.wired import load_wiring

    scenarios = [load_scenario(path) for path in args.scenarios]  # every file parses first
    wiring = load_wiring(args.wired) if args.wired else None
    results = []
    stopped: KeyboardInterrupt | None = None
    try:
        for scenario in scenarios:
            result = run_scenario(scenario, wiring)
            results.append(result)
            if not args.json:
                print("\n".join(human(result, verbose=args.verbose)), flush=True)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: the table is stopped
        stopped = exc
    if args.junit:
        write_output(args.junit, junit(results).encode("utf-8"))
    passed = sum(r.ok for r in results)
    if args.json:
        print_json(
            [
                {
                    "scenario": str(r.scenario.source),
                    "name": r.scenario.name,
                    "ok": r.ok,
                    "seconds": round(r.seconds, 2),
                    "failure": r.failure,
                }
                for r in results
            ]
        )
    else:
        print(f"{passed} of {len(results)} scenario(s) passed")
    if stopped is not None:  # what was played reported, then 128 + N
        from controller.stop_signals import exit_status

        line = f"STOPPED by {str(stopped) or 'SIGINT'} after {len(results)} of {len(scenarios)}"
        line += " scenario(s)"
        if len(results) < len(scenarios):
            left = len(scenarios) - len(results) - 1
            line += f": {scenarios[len(results)].source} was cut short, {left} not played"
        print(line, file=sys.stderr if args.json else sys.stdout)
        return exit_status(stopped)
    return 0 if passed == len(results) else 1


def soak(args: argparse.Namespace) -> int:
    from controller.books.linked.devserver import DevServerError
    from controller.cli.progress import progress_bar
    from controller.rig.shoe import run_shoe_soak
    from controller.rig.soak import SoakReport, run_soak
    from controller.rig.soak_linked import run_linked_soak
    from controller.rig.table import REPO_CONFIG
    from drivers.errors import DriverError

    if args.tables is None:
        args.tables = LINKED_TABLES if args.profile == "ch-bg" else 1
    if args.dsn and args.profile != "ch-bg":
        raise UsageError("--dsn: only the ch-bg soak has a linked pool")
    if args.profile != "uth-gr" and (args.tablet or args.config is not None):
        raise UsageError(f"--tablet and --config are for the uth-gr soak, not {args.profile}")
    if args.config is None:  # also the table whose currency the meters are shown in
        args.config = str(REPO_CONFIG)
    try:
        with progress_bar(args, total=args.rounds, unit="rounds", what="soak") as step:
            common = {
                "faults": args.faults,
                "kill_rate": args.kill_rate,
                "seed": args.seed,
                "tables": args.tables,
                "progress": step and (lambda _done: step(1)),
            }
            try:
                if args.profile == "ch-bg":
                    report = run_linked_soak(args.rounds, dsn=args.dsn, **common)
                elif args.profile == "trilux-gr":
                    report = run_shoe_soak(args.rounds, **common)
                else:
                    report = run_soak(
                        args.rounds,
                        royals=args.royals,
                        tablet=args.tablet,
                        config=args.config,
                        **common,
                    )
            except KeyboardInterrupt as exc:  # a stop signal while the tables started
                report = SoakReport(seed=args.seed, stopped=exc)
    except (DriverError, DevServerError) as exc:
        raise CroupierError(f"rig: {exc}") from exc
    cur = table_currency(args)
    if args.json:
        print_json({**report.to_json(), **currency_json(cur)})
    else:
        print_soak(report, cur)
    if report.stopped is not None:  # the rounds played so far reported, then 128 + N
        from controller.stop_signals import exit_status

        return exit_status(report.stopped)
    return 0 if report.ok else 1


def print_soak(report: SoakReport, cur: Currency) -> None:
    from controller.rig.soak_linked import LinkedReport

    print(
        f"soak: {report.rounds} rounds in {report.seconds:.1f} s = {report.rate:.1f} rounds/s"
        f" ({len(report.tables) or 1} table(s), seed {report.seed})"
    )
    outcomes = ", ".join(f"{n} {k}" for k, n in sorted(report.outcomes.items()))
    print(f"  outcomes: {outcomes}")
    # "1 face up (3 rounds), jam (1 round)": a fault's name may start with a number
    faults = (
        ", ".join(
            f"{k} ({n} round{'s' if n != 1 else ''})" for k, n in sorted(report.faults.items())
        )
        or "none"
    )
    print(f"  faults: {faults}; kill -9: {report.kills}; jackpots: {report.jackpots}")
    if report.stopped is not None:
        print(
            f"STOPPED by {report.stopped_by} after {report.rounds} round(s): the books were not"
            " reconciled"
        )
        for problem in report.problems[:30]:
            print(f"  {problem}")
        return
    if isinstance(report, LinkedReport):
        print(
            f"  PostgreSQL restarts: {report.restarts}; linked pool (rig = store):"
            f" {', '.join(f'{k} {v}' for k, v in (report.store or {}).items())}"
        )
    for n, meters in enumerate(report.tables or [report.meters], 1):
        shown = ", ".join(f"{k} {meter_text(k, v, cur)}" for k, v in meters.items())
        sources = "rig = store" if isinstance(report, LinkedReport) else "rig = ledger = journal"
        print(f"  table {n} books ({sources}): {shown}")
    if report.ok and isinstance(report, LinkedReport):
        print("OK: every table's ledger, the linked store and the rig's tally agree to the cent")
    elif report.ok:
        print("OK: the ledger, its journal and the rig's tally agree to the cent")
    else:
        print(f"FAILED: {len(report.problems)} problem(s)")
        for problem in report.problems[:30]:
            print(f"  {problem}")
