"""What keeping a round's raw deal frames costs (docs/evidence.md, "Frames").

The runner stores a closed round's DEAL exchanges in the surveillance store on the event
loop, one sealed transaction, as it already stores the settled round's record. Prints,
beside that baseline (``add_round`` of the royal example, measured in the same run on the
same disk): the time of ``add_deal_frames`` for a six-seat UTH deal (8 exchanges of a
request, an ACK and a reply), median and p99, and the bytes a round adds to the store
(typical and at the per-round cap).

    .venv/bin/python bench/evidence_frames.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from controller.books.ledger.keys import create_keyring
from controller.books.surveillance import SurveillanceStore
from controller.table.link_evidence import MAX_ROUND_FRAMES, capped, exchange_entry
from firmware_bridge.framing import encode_frame
from firmware_bridge.messages import Ack, DealReply, DealRequest, DealtCard
from firmware_bridge.session import WireFrame

ROOT = Path(__file__).resolve().parents[1]
PACKETS = [(5, 0)] + [(2, seat) for seat in range(1, 7)] + [(2, 15)]  # UTH-11, six seats


def deal_exchanges(acks: int = 1) -> list[dict]:
    """A six-seat deal's exchanges; ``acks`` ACK frames in each (a slow, polled packet)."""
    exchanges, card, at = [], 0, 0.0
    for seq, (count, tag) in enumerate(PACKETS, 1):
        reply = DealReply(0, tag, count, tuple(DealtCard(card + i) for i in range(count)))
        card += count
        frames = [
            WireFrame(
                at, "tx", encode_frame(seq, DealRequest.TYPE, DealRequest(count, tag).encode())
            )
        ]
        frames += [WireFrame(at + 0.01 * n, "rx", encode_frame(seq, Ack.TYPE)) for n in range(acks)]
        frames.append(WireFrame(at + 0.3, "rx", encode_frame(seq, DealReply.TYPE, reply.encode())))
        exchanges.append(exchange_entry("deal", "R", reply, tuple(frames), 1.8e9))
        at += 0.4
    return exchanges


def timed(fn, rounds: int) -> list[float]:
    times = []
    for n in range(rounds):
        started = time.perf_counter()
        fn(n)
        times.append(time.perf_counter() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    args = parser.parse_args()
    record = json.loads((ROOT / "examples" / "uth-gr-royal.json").read_text())
    exchanges = deal_exchanges()
    with tempfile.TemporaryDirectory() as tmp:
        store = SurveillanceStore(
            Path(tmp) / "surveillance.sqlite3", keyring=create_keyring(Path(tmp) / "key")
        )
        base = timed(lambda n: store.add_round(f"R-{n}", "uth-gr", record, {}, 1.0), args.rounds)
        mine = timed(
            lambda n: store.add_deal_frames(f"R-{n}", None, exchanges, 0, 1.0), args.rounds
        )
        store.close()
    at_cap = deal_exchanges(acks=40)
    dropped = capped(at_cap)
    ms = 1000
    for name, times in (("add_round (baseline)", base), ("add_deal_frames", mine)):
        p99 = sorted(times)[int(0.99 * (len(times) - 1))]
        print(f"{name:22} median {statistics.median(times) * ms:6.3f} ms  p99 {p99 * ms:6.3f} ms")
    frames = sum(len(e["frames"]) for e in exchanges)
    print(f"a round's record (baseline): {len(json.dumps(record))} bytes")
    print(f"its deal frames: {frames} frames, {len(json.dumps(exchanges))} bytes")
    print(
        f"at the cap ({MAX_ROUND_FRAMES} frames, {dropped} dropped): "
        f"{len(json.dumps(at_cap))} bytes"
    )


if __name__ == "__main__":
    main()
