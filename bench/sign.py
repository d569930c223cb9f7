"""Sign benchmark: frame cost per scene and the CPU of an idle sign, beside their baselines.

1. Render time per scene (``display``: state + time -> frame) and the whole device path per
   frame (frame -> luma max7219 -> SPI bytes, on a recording SPI stub), beside the MAX7219
   **transfer floor**: the bytes of one frame over the SPI clock (16 bytes per module, 8 bits
   each, at ``spi_speed_hz``), i.e. what the wire alone costs per frame on the Pi.
2. CPU of the sign loop over a few seconds of wall time at the configured frame rate: a still
   amount, a two-pool rotation and a continuous roll-up, beside a naive loop that renders and
   sends a frame on every tick of the frame rate (what "redraw at N fps" costs).

Run: ``.venv/bin/python bench/sign.py [--seconds S]`` (also part of ``make bench``). Timings
are printed, never asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import time
import timeit

from controller.table.sign import Sign, send_frame
from display.gallery import SCENES, SIGNS
from display.geometry import SignFrame
from display.scenes import Pool, SignRenderer, SignState
from drivers.sign.config import SignConfig
from drivers.sign.device import RecordingSpi, SignDevice, open_sign_device

CONFIGS = {
    "digits": SignConfig(kind="seven-segment", cascaded=1),
    "matrix": SignConfig(kind="matrix", cascaded=8),
}


def per_call_us(fn, repeat: int = 5, number: int = 200) -> float:
    return min(timeit.repeat(fn, repeat=repeat, number=number)) / number * 1e6


def push(device: SignDevice, spi: RecordingSpi, frame: SignFrame) -> None:
    device.invalidate()  # force the send: the device skips unchanged frames
    send_frame(device, frame)
    spi.transfers.clear()


def frame_costs() -> None:
    print("== frame cost per scene (best of 5, microseconds per frame)")
    for sign, geometry in SIGNS.items():
        config = CONFIGS[sign]
        floor = config.spi_bytes_per_frame() * 8 / config.spi_speed_hz * 1e6
        spi = RecordingSpi()
        device = open_sign_device(config, spi=spi)
        print(
            f"-- {sign}: {config.width} {'columns' if sign == 'matrix' else 'digits'},"
            f" {config.spi_bytes_per_frame()} bytes/frame; transfer floor at"
            f" {config.spi_speed_hz / 1e6:g} MHz = {floor:.1f} us/frame"
        )
        print(f"   {'scene':<18}{'render':>10}{'+ device':>12}{'floor':>10}")
        for scene in SCENES:
            renderer = SignRenderer(geometry)
            for when, state in scene.states:
                renderer.update(state, when)
            render_us = per_call_us(lambda r=renderer, s=scene: r.render(s.at))
            frame = renderer.render(scene.at).frame

            device_us = per_call_us(lambda f=frame, d=device, s=spi: push(d, s, f)) + render_us
            print(f"   {scene.name:<18}{render_us:>10.1f}{device_us:>12.1f}{floor:>10.1f}")


def cpu_of(run, seconds: float) -> tuple[float, int]:
    """CPU seconds used by ``run(seconds)`` and the frames it sent."""
    start = time.process_time()
    frames = run(seconds)
    return time.process_time() - start, frames


def sign_loop(state: SignState, config: SignConfig):
    def run(seconds: float) -> int:
        device = open_sign_device(config, spi=RecordingSpi())
        sign = Sign(config, device)
        sign.update(state)
        asyncio.run(sign.run(until=sign.clock() + seconds))
        return device.frames_sent

    return run


def rolling_loop(config: SignConfig):
    """A contribution every second (a busy table): the sign is always rolling up."""

    def run(seconds: float) -> int:
        device = open_sign_device(config, spi=RecordingSpi())
        sign = Sign(config, device)
        amount = 4_821_357
        sign.update(SignState(pools=(Pool("MEGA", amount),)))

        async def feed() -> None:
            nonlocal amount
            task = asyncio.create_task(sign.run())
            end = sign.clock() + seconds
            while sign.clock() < end:
                amount += 240
                sign.update(SignState(pools=(Pool("MEGA", amount),)))
                await asyncio.sleep(1.0)
            task.cancel()

        asyncio.run(feed())
        return device.frames_sent

    return run


def naive_loop(state: SignState, config: SignConfig):
    """Baseline: render and send on every tick of the frame rate, changed or not."""

    def run(seconds: float) -> int:
        spi = RecordingSpi()
        device = open_sign_device(config, spi=spi)
        renderer = SignRenderer(Sign(config, device).renderer.geometry)
        renderer.update(state, time.monotonic())
        interval = 1.0 / config.frame_rate
        end = time.monotonic() + seconds
        frames = 0
        while (now := time.monotonic()) < end:
            device.invalidate()
            send_frame(device, renderer.render(now).frame)
            spi.transfers.clear()
            frames += 1
            time.sleep(max(0.0, interval - (time.monotonic() - now)))
        return frames

    return run


def idle_cpu(seconds: float) -> None:
    print(f"\n== CPU over {seconds:g} s of wall time (percent of one core; frames sent)")
    still = SignState(pools=(Pool("MEGA", 4_821_357),))
    rotation = SignState(pools=(Pool("MEGA", 4_821_357), Pool("MINI", 63_020)))
    for sign, config in CONFIGS.items():
        print(f"-- {sign} at {config.frame_rate:g} frames/s")
        rows = [
            ("still amount", sign_loop(still, config)),
            ("two-pool rotation", sign_loop(rotation, config)),
            ("rolling (1 contribution/s)", rolling_loop(config)),
            ("baseline: redraw every tick", naive_loop(still, config)),
        ]
        for name, run in rows:
            cpu, frames = cpu_of(run, seconds)
            print(f"   {name:<30}{100 * cpu / seconds:>8.2f} %  {frames:>5} frames")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="wall time per CPU row (5)")
    args = parser.parse_args()
    frame_costs()
    idle_cpu(args.seconds)


if __name__ == "__main__":
    main()
