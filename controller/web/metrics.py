"""``/metrics``: the tables in the Prometheus text format (the official ``prometheus_client``).

Each scrape builds its families from what the feeds hold (the daemon's last status and alerts,
the ledger totals, read incrementally) plus one ``metrics`` call per table for the round
pipeline's timings. No card identity: only counts, amounts, states and rule IDs. Names and
labels (docs/web.md has a sample scrape configuration):

- ``croupier_table_up{table}`` 1 while the daemon answers; ``croupier_table_state{table,state}``
- ``croupier_rounds_total{table,outcome,rule}`` rounds settled, and voided by MD rule
- ``croupier_handle_total{table,wager}``, ``croupier_paid_total{table,wager}`` minor units
- ``croupier_theoretical_win_total{table,wager}`` handle x house edge of the exact PAR sheet
  (``controller.engine.games.par_sheet``; the wagers the sheet prices)
- ``croupier_pool_minor_units{table,pool,meter}`` every pool meter of the ledger
- ``croupier_pipeline_seconds{table,stage}`` a gauge histogram of the last rounds the daemon
  keeps (stage ``verdict``: last byte of the deal to the verdict; ``settlement``: CONFIRM to
  the ledger commit with lamps and sign updated)
- ``croupier_link_up{table,link}`` shuffler and linked-pool links
- ``croupier_seat_sensor_ok{table,seat}`` 0 for a seat excluded for a sensor fault
- ``croupier_rounds_per_hour{table}``, ``croupier_alerts{table,kind,state}``,
  ``croupier_shuffle_audit_alarm{table}``
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeHistogramMetricFamily,
    GaugeMetricFamily,
    Metric,
)

from controller.web.ledger_stats import LedgerStats

PIPELINE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
STATES = (
    "closed",
    "open",
    "locked",
    "dealing",
    "verified",
    "showdown",
    "settled",
    "void",
    "jackpot",
)


class TableSample:
    """What one scrape knows of one table."""

    def __init__(
        self,
        name: str,
        online: bool,
        status: dict[str, Any] | None,
        alerts: list[dict[str, Any]],
        stats: LedgerStats | None,
        pipeline: dict[str, list[float]] | None,
        house_edge: dict[str, float] | None,
        audit_alarm: bool = False,
    ) -> None:
        self.name = name
        self.online = online
        self.status = status or {}
        self.alerts = alerts
        self.stats = stats
        self.pipeline = pipeline or {}
        self.house_edge = house_edge or {}
        self.audit_alarm = audit_alarm


def gauge_histogram(values: list[float]) -> tuple[list[tuple[str, float]], float]:
    """Cumulative buckets (``le`` labels, with +Inf) and the sum of ``values``."""
    ordered = sorted(values)
    buckets = [(repr(b), float(bisect.bisect_right(ordered, b))) for b in PIPELINE_BUCKETS]
    buckets.append(("+Inf", float(len(ordered))))
    return buckets, float(sum(ordered))


def families(samples: Iterable[TableSample]) -> Iterator[Metric]:
    samples = list(samples)
    up = GaugeMetricFamily(
        "croupier_table_up", "1 while the table's daemon answers", labels=["table"]
    )
    state = GaugeMetricFamily(
        "croupier_table_state", "1 for the table's current state", labels=["table", "state"]
    )
    rounds = CounterMetricFamily(
        "croupier_rounds",
        "rounds closed: settled, or voided by MD rule",
        labels=["table", "outcome", "rule"],
    )
    handle = CounterMetricFamily(
        "croupier_handle", "stakes of settled rounds, minor units", labels=["table", "wager"]
    )
    paid = CounterMetricFamily(
        "croupier_paid", "paid to players, minor units", labels=["table", "wager"]
    )
    theo = CounterMetricFamily(
        "croupier_theoretical_win",
        "handle x house edge of the exact PAR sheet, minor units",
        labels=["table", "wager"],
    )
    pools = GaugeMetricFamily(
        "croupier_pool_minor_units", "pool meters of the ledger", labels=["table", "pool", "meter"]
    )
    pipeline = GaugeHistogramMetricFamily(
        "croupier_pipeline_seconds",
        "round pipeline timings over the rounds the daemon keeps",
        labels=["table", "stage"],
    )
    link = GaugeMetricFamily("croupier_link_up", "1 while the link is up", labels=["table", "link"])
    sensor = GaugeMetricFamily(
        "croupier_seat_sensor_ok",
        "0 for a seat excluded for a sensor fault",
        labels=["table", "seat"],
    )
    pace = GaugeMetricFamily(
        "croupier_rounds_per_hour", "rounds closed in the last hour", labels=["table"]
    )
    alerts = GaugeMetricFamily(
        "croupier_alerts", "alerts on the table's book", labels=["table", "kind", "state"]
    )
    audit = GaugeMetricFamily(
        "croupier_shuffle_audit_alarm", "1 while the shuffle audit alarms", labels=["table"]
    )
    for s in samples:
        t = s.name
        up.add_metric([t], 1.0 if s.online else 0.0)
        current = s.status.get("state")
        for name in STATES:
            state.add_metric([t, name], 1.0 if s.online and current == name else 0.0)
        conditions = s.status.get("conditions") or {}
        if s.status:
            shuffler = (s.status.get("shuffler") or {}).get("link") == "up"
            link.add_metric([t, "shuffler"], 1.0 if shuffler and s.online else 0.0)
            link.add_metric([t, "linked-pool"], 0.0 if "progressive-link" in conditions else 1.0)
            for seat, info in sorted(
                (s.status.get("seats") or {}).items(), key=lambda i: int(i[0])
            ):
                sensor.add_metric([t, str(seat)], 0.0 if info.get("excluded") else 1.0)
        audit.add_metric([t], 1.0 if s.audit_alarm else 0.0)
        counted: dict[str, int] = {}
        for a in s.alerts:
            key = f"{a.get('kind')}\0{a.get('state')}"
            counted[key] = counted.get(key, 0) + 1
        for key, n in sorted(counted.items()):
            kind, alert_state = key.split("\0")
            alerts.add_metric([t, kind, alert_state], float(n))
        for stage in ("verdict", "settlement"):
            buckets, total = gauge_histogram(s.pipeline.get(stage, []))
            pipeline.add_metric([t, stage], buckets, total)
        if s.stats is not None:
            for (outcome, rule), n in sorted(s.stats.rounds.items()):
                rounds.add_metric([t, outcome, rule], float(n))
            for wager, amount in sorted(s.stats.handle.items()):
                handle.add_metric([t, wager], float(amount))
                if wager in s.house_edge:
                    theo.add_metric([t, wager], amount * s.house_edge[wager])
            for wager, amount in sorted(s.stats.paid.items()):
                paid.add_metric([t, wager], float(amount))
            for p in s.stats.pools:
                for meter, value in sorted(p.items()):
                    if isinstance(value, int) and not isinstance(value, bool):
                        pools.add_metric([t, p["pool"], meter], float(value))
            pace.add_metric([t], float(s.stats.rounds_per_hour))
    yield from (
        up,
        state,
        rounds,
        handle,
        paid,
        theo,
        pools,
        pipeline,
        link,
        sensor,
        pace,
        alerts,
        audit,
    )


def exposition(samples: Iterable[TableSample]) -> bytes:
    """The Prometheus text format of ``samples``."""
    collected = list(families(samples))

    class Snapshot:
        def collect(self) -> Iterator[Metric]:
            return iter(collected)

    registry = CollectorRegistry(auto_describe=False)
    registry.register(Snapshot())
    return generate_latest(registry)
