"""``croupier lamps test``: light every lamp in turn (seat lamps, then green, red, beacon).

Each lamp is lit alone for ``--step`` seconds while the technician looks at the table; the
line printed names the lamp, its pin and the level read back from the pin (the output latch on
a Pi, the pin state with the mock factory, the rig's view with the rig factory). ``--all``
lights every lamp at once instead; ``--lamp`` picks lamps.
"""

from __future__ import annotations

import argparse
import time

from controller.cli.argtypes import UsageError, seconds
from controller.cli.hardware import (
    add_pin_options,
    load_table_io,
    one_line_errors,
    open_factory,
    say,
)
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json

EXAMPLES = {
    "lamps": [
        "croupier lamps test",
        "croupier lamps test --lamp green --lamp red --step 2",
        "croupier lamps test --pin-factory mock --all",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "lamps")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    t = actions.add_parser("test", help="light each lamp in turn")
    add_pin_options(t)
    t.add_argument(
        "--step", type=seconds(0, 60), default=0.5, metavar="SECONDS", help="time per lamp (0.5)"
    )
    t.add_argument("--lamp", action="append", metavar="NAME", help="only this lamp (repeatable)")
    t.add_argument("--all", action="store_true", help="all lamps on together for one step")
    add_json_flag(t)
    t.set_defaults(func=run_test)


def run_test(args: argparse.Namespace) -> int:
    from drivers.gpio.devices import open_lamps

    io, source = load_table_io(args.config)
    names = args.lamp or list(io.gpio.lamps)
    unknown = [n for n in names if n not in io.gpio.lamps]
    if unknown:
        from controller.texts import suggestion

        hint = suggestion(unknown[0], io.gpio.lamps) if len(unknown) == 1 else ""
        raise UsageError(
            f"--lamp: no lamp {', '.join(unknown)}{hint} (lamps: {', '.join(io.gpio.lamps)})"
        )
    factory = open_factory(args, io)
    results = []
    try:
        with one_line_errors():
            leds = open_lamps({n: io.gpio.lamps[n] for n in names}, factory)
        if not args.json:
            say(f"lamps test: {source}, {len(names)} lamp(s), {args.step:g} s each")
        groups = [names] if args.all else [[n] for n in names]
        for group in groups:
            for name in group:
                leds[name].on()
            for name in group:
                line = io.gpio.lamps[name]
                readback = leds[name].pin.state
                ok = bool(readback) == line.active_high
                results.append(
                    {
                        "lamp": name,
                        "pin": line.pin,
                        "lit": True,
                        "readback": int(readback),
                        "ok": ok,
                    }
                )
                if not args.json:
                    flag = "" if ok else "  MISMATCH"
                    say(f"  {name:<7} BCM {line.pin:>2}: ON   read back {int(readback)}{flag}")
            time.sleep(args.step)
            for name in group:
                leds[name].off()
        for led in leds.values():
            led.close()
    finally:
        factory.close()
    if args.json:
        print_json({"source": source, "lamps": results})
    return 0 if all(r["ok"] for r in results) else 1
