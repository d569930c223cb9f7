"""``croupier sign test [PATTERN]`` and ``croupier sign show AMOUNT``.

Both drive the configured sign (``[sign]``; ``--backend dummy`` or ``capture`` off the Pi) for
the length of the scene, print the frame as text art, and with ``--png FILE`` write it as the
players see it (``display.preview``); off the Pi (no ``/dev/spidev*``) ``--png`` needs no
``--backend``: there is no sign to drive, so only the picture is drawn (``--backend dummy``
drives luma's dummy device). ``sign show`` leaves the amount on the sign; ``--from`` makes it
roll up from a lower amount, as after contributions.
"""

from __future__ import annotations

import argparse

from controller.cli.argtypes import (
    UsageError,
    capture_path,
    currency_code,
    integer,
    path,
    png_file,
    seconds,
)
from controller.cli.hardware import (
    SIGN_BACKENDS,
    add_config_option,
    load_sign,
    one_line_errors,
    say,
)
from controller.cli.main import add_command
from controller.cli.output import add_json_flag, print_json, write_output
from controller.errors import CroupierError
from display.errors import AmountError
from display.money import currency, format_money, parse_amount

TYPE_CHECKING = False
if TYPE_CHECKING:  # the sign's code (luma, PIL, asyncio) is imported by the commands only
    from pathlib import Path

    from PIL.Image import Image

    from display.geometry import SignFrame
    from display.scenes import SignState
    from drivers.sign.config import SignConfig

# display.scenes.TEST_PATTERNS, written here so that `--help` imports none of the scenes
# (tests/unit/cli/test_cli_light_choices.py holds them equal)
TEST_PATTERNS = ("all", "digits", "brightness")

EXAMPLES = {
    "sign": [
        "croupier sign show 48213.57 --from 48200 --png sign.png",
        "croupier sign test digits --backend capture --capture out/test.gif",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "sign")
    actions = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    t = actions.add_parser("test", help="technician test pattern")
    t.add_argument("pattern", nargs="?", default="all", choices=TEST_PATTERNS, help="pattern (all)")
    t.add_argument(
        "--cycles", type=integer(1, 1000), default=1, help="times through the pattern (1)"
    )
    _common(t)
    t.set_defaults(func=run_test)
    s = actions.add_parser("show", help="show an amount (rolls up with --from)")
    s.add_argument("amount", metavar="AMOUNT", help="like 1234.56 (major units)")
    s.add_argument("--from", dest="start", metavar="AMOUNT", help="roll up from this amount")
    s.add_argument(
        "--currency",
        type=currency_code,
        help="ISO code, in any case: eur is EUR (default: sign.currency)",
    )
    s.add_argument("--name", default="MEGA", help="pool name (MEGA)")
    _common(s)
    s.set_defaults(func=run_show)


def _common(p: argparse.ArgumentParser) -> None:
    add_config_option(p)
    p.add_argument(
        "--backend", choices=SIGN_BACKENDS, help="override sign.backend (dummy: no device)"
    )
    p.add_argument(
        "--capture",
        type=capture_path,
        metavar="PATH",
        help="capture backend: .gif file or PNG directory",
    )
    p.add_argument(
        "--png", type=png_file, metavar="FILE.png", help="write the frame as the players see it"
    )
    p.add_argument(
        "--at",
        type=seconds(0, None),
        metavar="SECONDS",
        help="the moment of the scene to print/write",
    )
    p.add_argument(
        "--duration",
        type=seconds(0, None),
        metavar="SECONDS",
        help="how long to drive the sign (default: the whole pattern, or the roll-up)",
    )
    add_json_flag(p)


def run_test(args: argparse.Namespace) -> int:
    from controller.table.sign import geometry_for
    from display.scenes import BRIGHTNESS_LEVELS, Mode, SignState, Timing

    config, undriven = _sign_config(args)
    sign_state = SignState(mode=Mode.TEST, pattern=args.pattern, currency=config.currency)
    steps = {
        "all": 4,
        "digits": geometry_for(config).test_positions,
        "brightness": BRIGHTNESS_LEVELS,
    }
    length = steps[args.pattern] * Timing().pattern_step * max(args.cycles, 1)
    return _play(args, config, undriven, [(0.0, sign_state)], length, persist=False, at=0.0)


def run_show(args: argparse.Namespace) -> int:
    from display.scenes import Pool, SignState

    config, undriven = _sign_config(args)
    code = args.currency or config.currency
    try:  # the amounts and currency typed on the command line
        cur = currency(code)
        amount = parse_amount(args.amount, cur)
        start = amount if args.start is None else parse_amount(args.start, cur)
    except AmountError as exc:
        raise UsageError(str(exc)) from None
    with one_line_errors():
        states = [
            (0.0, SignState(pools=(Pool(args.name, start),), currency=code)),
            (0.0, SignState(pools=(Pool(args.name, amount),), currency=code)),
        ]
    length = config.roll_seconds if start < amount else 0.0
    return _play(
        args,
        config,
        undriven,
        states,
        length,
        persist=True,
        at=length,
        amount=format_money(amount, cur),
    )


def _sign_config(args: argparse.Namespace) -> tuple[SignConfig, str | None]:
    """The ``[sign]`` table with the command line's overrides, and why no sign is driven
    (None: one is): off the Pi, ``--png`` with no ``--backend`` draws the picture only.
    (Driving luma's dummy device there would change nothing in the picture, and importing
    luma is a tenth of the command's time on a Pi 3-class CPU: docs/daemon.md, session 16.)
    ``--duration`` and ``--capture`` are then usage errors: they are about a driven sign."""
    import dataclasses

    config, _ = load_sign(args.config)
    changes = {
        k: v for k, v in (("backend", args.backend), ("capture", args.capture)) if v is not None
    }
    node = path(f"/dev/spidev{config.spi_port}.{config.spi_device}")
    config = dataclasses.replace(config, **changes)
    if args.png and args.backend is None and config.backend == "spi" and not node.exists():
        for option, given in (("--duration", args.duration), ("--capture", args.capture)):
            if given is not None:
                raise UsageError(
                    f"{option}: no SPI sign here ({node}) to drive; name --backend dummy"
                    " or --backend capture"
                )
        return config, f"no SPI sign here ({node}): only the picture is drawn (or --backend dummy)"
    return config, None


def _play(
    args: argparse.Namespace,
    config: SignConfig,
    undriven: str | None,
    states: list[tuple[float, SignState]],
    length: float,
    *,
    persist: bool,
    at: float,
    **extra: str,
) -> int:
    """Drive the device (unless ``undriven`` says why not) through the scene for ``length``
    seconds (``--duration``); print (and write) the frame at ``--at`` (default ``at``) of the
    same scene."""
    from display.geometry import MATRIX
    from display.preview import art, preview

    if args.png:  # before the scene is played, not after
        _check_png(args.png)
    if undriven and not args.json:
        say(undriven)
    with one_line_errors():
        frames_sent = 0
        if undriven is None:
            frames_sent = _drive(
                config, states, length if args.duration is None else args.duration, persist
            )
        frame, overflow = _frame_at(config, states, at if args.at is None else args.at)
    if args.png:
        _write_png(args.png, preview(frame, 8 if frame.kind == MATRIX else 3, config.brightness))
    if args.json:
        print_json(
            {
                "kind": config.kind,
                "backend": None if undriven else config.backend,
                "text": frame.text,
                "rows": art(frame),
                "overflow": overflow,
                "level": frame.level,
                "frames_sent": frames_sent,
                **extra,
            }
        )
    else:
        unit = "columns" if frame.kind == MATRIX else "digits"
        sent = "not driven" if undriven else f"{frames_sent} frame(s) sent"
        backend = "" if undriven else f", backend {config.backend}"
        say(f"sign ({config.kind}, {config.width} {unit}{backend}): {sent}")
        for row in art(frame):
            say("  " + row)
        if overflow:
            say("  the amount does not fit the sign: dashes shown (docs/sign.md)")
        if args.png:
            say(f"  wrote {args.png}")
    return 0


def _drive(
    config: SignConfig, states: list[tuple[float, SignState]], length: float, persist: bool
) -> int:
    """Play the scene on the configured device for ``length`` seconds; the frames sent."""
    from controller.table.sign import Sign
    from drivers.sign.device import open_sign_device

    device = open_sign_device(config, persist=persist)
    try:
        sign = Sign(config, device)
        for _, state in states:
            sign.update(state)
        sign.play(until=sign.clock() + length)
    finally:
        device.close()
    return device.frames_sent


def _check_png(target: Path) -> None:
    from controller.files import FileRefused, check_output

    try:
        check_output(target)
    except FileRefused as exc:
        raise CroupierError(f"--png {exc}") from None


def _write_png(target: Path, image: Image) -> None:
    """The picture encoded in memory (display.png: no Pillow plugin), then written atomically
    (controller.files)."""
    from display.png import image_png

    write_output(target, image_png(image))


def _frame_at(
    config: SignConfig, states: list[tuple[float, SignState]], at: float
) -> tuple[SignFrame, bool]:
    from controller.table.sign import renderer_for

    renderer = renderer_for(config)
    for when, state in states:
        renderer.update(state, when)
    rendered = renderer.render(at)
    return rendered.frame, rendered.overflow
