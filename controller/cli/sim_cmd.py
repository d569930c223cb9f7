"""``croupier sim``: the deterministic simulation of a whole table (docs/sim.md).

``croupier sim --profile uth-gr --rounds 100000 --seed 7 [--faults 0.2] [--crash-rate 0.01]
[--json] [--trace]`` plays the rounds on a simulated clock with the real table core, shuffler
session and firmware, GPIO core and ledger, every choice from the seed, and checks the
invariants after every step. It prints the rounds, the simulated rounds per second, the run's
digest (the same seed gives the same digest) and the violations; exit status 1 when one was
found, with the one command that replays it (``--trace``: the failing round's event log).
Stopped by a signal (Ctrl-C, SIGTERM, SIGHUP), it prints the same for the rounds played so far
with ``STOPPED by SIGTERM after N round(s), V violation(s); replay: ...`` and exits 128 + N.
"""

from __future__ import annotations

import argparse

from controller.cli.argtypes import integer, rate
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json

TYPE_CHECKING = False
if TYPE_CHECKING:  # the simulator is imported by the command, not by its parser (--help)
    from controller.rig.sim.run import SimReport

# The simulated tables (controller.rig.sim.profiles.PROFILES, which
# tests/unit/cli/test_cli_light_choices.py holds equal): the parser imports none of the rig
PROFILES = ("uth-gr", "uth-sk", "uth-it", "ch-bg", "trilux-gr")

EXAMPLES = {
    "sim": [
        "croupier sim --profile uth-gr --rounds 100000 --seed 7",
        "croupier sim --profile trilux-gr --rounds 20000 --seed 3 --faults 0.2"
        " --crash-rate 0.01 --json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "sim")
    p.add_argument(
        "--profile",
        choices=PROFILES,
        default="uth-gr",
        help="the table's game (default uth-gr; ch-bg's Jumbo 7 is a local pool)",
    )
    p.add_argument(
        "--rounds",
        type=integer(1, 100_000_000),
        default=10_000,
        help="rounds to play, settled or voided (default 10000)",
    )
    p.add_argument(
        "--seed",
        type=integer(0),
        default=1,
        help="the seed every choice is drawn from (default 1)",
    )
    p.add_argument(
        "--faults",
        type=rate,
        default=0.2,
        help="fault level 0..1: line, shuffler, sensor faults and misdeals (default 0.2)",
    )
    p.add_argument(
        "--crash-rate",
        type=rate,
        default=0.01,
        help="share of rounds during which the controller crashes (default 0.01)",
    )
    p.add_argument(
        "--trace",
        action="store_true",
        help="on a violation, print the event log of the failing round",
    )
    add_json_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.cli.progress import progress_bar
    from controller.rig.sim.run import simulate
    from controller.rig.sim.world import SimSettings

    settings = SimSettings(args.profile, args.seed, args.faults, args.crash_rate)
    with progress_bar(args, total=args.rounds, unit="rounds", what="sim") as step:
        report = simulate(settings, args.rounds, progress=step)
    if args.json:
        data = report.to_json()
        if args.trace and report.violations:
            data["trace"] = report.trace
        print_json(data)
    else:
        print_report(report, trace=args.trace)
    if report.stopped is not None:  # the rounds played so far reported, then 128 + N
        from controller.stop_signals import exit_status

        return exit_status(report.stopped)
    return 1 if report.violations else 0


def print_report(report: SimReport, *, trace: bool) -> None:
    s = report.settings
    print(
        f"sim {s.profile} seed {s.seed}: {report.rounds} rounds,"
        f" {report.rounds_per_s:.0f} simulated rounds/s ({report.wall_seconds:.1f} s;"
        f" {report.rounds_per_cpu_s:.0f} per CPU second),"
        f" {report.sim_seconds / 3600:.1f} simulated hours, {report.crashes} crash(es),"
        f" {report.jackpots} jackpot(s)"
    )
    print("  outcomes: " + ", ".join(f"{n} {k}" for k, n in report.outcomes.items()))
    print("  line: " + ", ".join(f"{n} {k}" for k, n in report.line.items()))
    print(f"  digest: {report.digest or 'none (the run was cut short)'}")
    if report.stopped is not None:
        print(
            f"STOPPED by {report.stopped_by} after {report.rounds} round(s),"
            f" {len(report.violations)} violation(s); "
            + (f"replay: {replay}" if (replay := report.replay()) else "nothing to replay")
        )
        for v in report.violations:
            print(f"  {v['invariant']} ({v['round'] or 'table'}): {v['detail']}")
        return
    if not report.violations:
        print("OK: every invariant held after every step")
        return
    print(f"FAILED: {len(report.violations)} violation(s)")
    for v in report.violations:
        print(f"  {v['invariant']} ({v['round'] or 'table'}): {v['detail']}")
    print(f"  replay: {report.replay()}")
    if trace:
        print("  trace of the failing round:")
        for line in report.trace:
            print(f"    {line}")
