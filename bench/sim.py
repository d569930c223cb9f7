"""Simulator benchmark: simulated rounds per second of ``croupier sim`` (one core, faults on),
beside the real-time soak's rate through the full daemon (``croupier rig soak``, same faults
share), measured in the same run. Each profile runs ``--repeat`` times (3 by default) and the
fastest run counts: on a shared machine a CPU second swings with what the other cores do.

The simulator runs the same code as the daemon (table core, shuffler session and firmware,
GPIO core, ledger on SQLite) on a simulated clock, so its rate is what the simulation costs in
CPU; the soak's rate is bounded by real time (debounce, the emulator's pace, fsync). Both
figures are printed; nothing is asserted.

    .venv/bin/python bench/sim.py [--rounds N] [--soak-rounds M] [--faults F] [--repeat K]
"""

from __future__ import annotations

import argparse
import sys

from controller.rig.sim.profiles import PROFILES
from controller.rig.sim.run import simulate
from controller.rig.sim.world import SimSettings
from controller.rig.soak import run_soak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=500, help="simulated rounds per profile")
    parser.add_argument("--soak-rounds", type=int, default=100, help="real-time soak rounds")
    parser.add_argument("--faults", type=float, default=0.2)
    parser.add_argument("--repeat", type=int, default=3, help="runs per profile (the best counts)")
    args = parser.parse_args()

    rates = {}
    failed = False
    for profile in PROFILES:
        for _ in range(max(1, args.repeat)):
            report = simulate(SimSettings(profile, 1, args.faults, 0.01), args.rounds)
            failed |= bool(report.violations)
            best = rates.get(profile, (0.0, 0.0))
            if report.rounds_per_cpu_s > best[1]:
                rates[profile] = (report.rounds_per_s, report.rounds_per_cpu_s)
    soak = run_soak(args.soak_rounds, faults=args.faults, kill_rate=0.0, seed=1)

    print(
        f"bench/sim.py: {args.rounds} rounds per profile (best of {max(1, args.repeat)}),"
        f" faults {args.faults:g}, crashes 0.01"
    )
    for profile, (rate, per_cpu) in rates.items():
        print(
            f"  croupier sim --profile {profile:<9}  {rate:8.1f} simulated rounds/s"
            f"  ({rate / soak.rate:5.1f}x the soak; {per_cpu:6.1f} per CPU second)"
        )
    print(
        f"  croupier rig soak (full daemon, real time): {soak.rate:8.1f} rounds/s"
        f"  ({args.soak_rounds} rounds, {'books agree' if soak.ok else 'BOOKS DISAGREE'})"
    )
    print("  target: 2000 simulated rounds/s on one core with faults on")
    return 1 if failed or not soak.ok else 0


if __name__ == "__main__":
    sys.exit(main())
