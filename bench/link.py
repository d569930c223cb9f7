"""Shuffler link benchmark (docs/protocol.md).

1. Request-to-reply latency of a 2-card DEAL through the real client stack (asyncio client,
   session, pyserial-asyncio-fast) to the emulator running as a separate process on a pty,
   paced at 115200 baud: median and p99 over 1000 round trips, beside the wire-time floor of
   the same bytes (10 bits per byte / baud). Target: p99 - floor < 2 ms.
2. Codec throughput in MB/s decoding a long stream in which 1% of the frames are corrupted,
   beside CRC-16 alone over the same bytes (the floor any decoder pays).

Run: .venv/bin/python bench/link.py [--round-trips N]. Figures go to README, never to tests.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

from drivers.shuffler_client import ShufflerClient
from drivers.transport import open_transport
from firmware_bridge.framing import OVERHEAD, Frame, FrameDecoder, crc16, encode_frame
from firmware_bridge.messages import DealReply, DealRequest, DealtCard

BAUD = 115200


def wire_floor_ms(baud: int) -> float:
    request = len(DealRequest(2, 1).encode()) + OVERHEAD
    reply = len(DealReply(0, 1, 2, (DealtCard(0), DealtCard(1))).encode()) + OVERHEAD
    return (request + reply) * 10 / baud * 1e3


async def deal_latencies(link: str, n: int) -> list[float]:
    client = ShufflerClient(open_transport(link, BAUD))
    await client.connect()
    await client.shuffle()
    times = []
    for i in range(n):
        if i and i % 25 == 0:
            await client.shuffle()  # 25 x 2 cards = 50 of 52: reshuffle, untimed
        start = time.perf_counter()
        reply = await client.deal(2, 1)
        times.append(time.perf_counter() - start)
        assert reply.count == 2
    await client.close()
    return times


def latency(n: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        link = os.path.join(tmp, "shuffler")
        emu = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "controller.cli.main",
                "emulator",
                "--link",
                link,
                "--baud",
                str(BAUD),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            emu.stdout.readline()  # "emulator: ... -> /dev/pts/N"
            times = sorted(asyncio.run(deal_latencies(link, n)))
        finally:
            emu.terminate()
            emu.wait(10)
    median = statistics.median(times) * 1e3
    p99 = times[int(0.99 * (len(times) - 1))] * 1e3
    floor = wire_floor_ms(BAUD)
    print(f"2-card DEAL over a pty at {BAUD} baud, {n} round trips (emulator process, paced)")
    print(f"  wire-time floor (same bytes): {floor:.3f} ms")
    print(
        f"  median {median:.3f} ms (+{median - floor:.3f} ms), "
        f"p99 {p99:.3f} ms (+{p99 - floor:.3f} ms over the floor; target < 2 ms)"
    )


def corrupted_stream(frames: int, rate: float, rng: random.Random) -> tuple[bytes, int]:
    out = bytearray()
    damaged = 0
    for i in range(frames):
        raw = bytearray(encode_frame(i & 0xFF, 0x94, rng.randbytes(rng.randrange(4, 64))))
        if rng.random() < rate:
            bit = rng.randrange(len(raw) * 8)
            raw[bit // 8] ^= 1 << (bit % 8)
            damaged += 1
        out += raw
    return bytes(out), damaged


def throughput() -> None:
    rng = random.Random(1)
    stream, damaged = corrupted_stream(100_000, 0.01, rng)
    chunk = 4096
    decoder = FrameDecoder()
    start = time.perf_counter()
    frames = 0
    for i in range(0, len(stream), chunk):
        frames += sum(isinstance(e, Frame) for e in decoder.feed(stream[i : i + chunk]))
    frames += sum(isinstance(e, Frame) for e in decoder.idle())
    elapsed = time.perf_counter() - start
    start = time.perf_counter()
    for i in range(0, len(stream), chunk):
        crc16(stream[i : i + chunk])
    crc_elapsed = time.perf_counter() - start
    mb = len(stream) / 1e6
    print(f"codec: {mb:.1f} MB, 100000 frames, {damaged} corrupted (1%), {frames} decoded")
    print(
        f"  decode {mb / elapsed:.1f} MB/s ({frames / elapsed / 1e3:.0f} k frames/s); "
        f"CRC-16 alone over the same bytes {mb / crc_elapsed:.1f} MB/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--round-trips", type=int, default=1000)
    args = parser.parse_args()
    latency(args.round_trips)
    throughput()


if __name__ == "__main__":
    main()
