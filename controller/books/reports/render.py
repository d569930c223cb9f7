"""The gaming-day report as people and spreadsheets read it: CSV and PDF (fpdf2).

Both are made from the report object (``day.build_day_report``) and nothing else, so the
three forms always carry the same figures. Amounts in the object are integer minor units;
here they are shown as money (``amounts.money``: ``EUR 1,234.56``). The PDF is deterministic
for a given report (its creation date is the report's ``generated`` time), so the same report
signs to the same bytes.
"""

from __future__ import annotations

import csv
import io
from datetime import datetime
from typing import Any

from fpdf import FPDF

from controller.books.reports.amounts import money


def _pct(value: str | None) -> str:
    return "-" if value is None else f"{value}%"


def rows(report: dict[str, Any]) -> list[list[str]]:
    """The report as ``section, name, field, value`` rows (amounts in minor units)."""
    out = [["section", "name", "field", "value"]]
    for key in (
        "document",
        "table",
        "profile",
        "currency",
        "gaming_day",
        "gaming_day_start",
        "from",
        "to",
        "complete",
        "generated",
        "reconciled",
    ):
        out.append(
            [
                "report",
                "",
                key,
                str(report[key]).lower() if isinstance(report[key], bool) else str(report[key]),
            ]
        )
    for key, value in report["journal"].items():
        out.append(["journal", "", key, "" if value is None else str(value)])
    for rules in report.get("rules", []):  # from journal entry N: rules,N,FIELD,VALUE
        out.append(["rules", str(rules["seq"]), "rules_sha256", rules["rules_sha256"]])
        out += [
            ["rules", str(rules["seq"]), f"profile.{k}", str(v)]
            for k, v in rules["profile"].items()
        ]
        out += [
            ["rules", str(rules["seq"]), f"limits.{wager}", f"{limit['min']}..{limit['max']}"]
            for wager, limit in rules["limits"].items()
        ]
    for key, value in report["rounds"].items():
        if key == "voided_by_rule":
            out += [["rounds", rule, "voided", str(n)] for rule, n in value.items()]
        else:
            out.append(["rounds", "", key, str(value)])
    for pool in report["pools"]:
        name = pool["pool"]
        flat = {
            "opening_displayed": pool["opening"]["displayed"],
            "opening_reserve": pool["opening"]["reserve"],
            "qualifying_stakes": pool["qualifying_stakes"],
            "rounds": pool["rounds"],
            "contributions": pool["contributions"],
            "reserve_contributions": pool["reserve_contributions"],
            "overflow": pool["overflow"],
            "voids": pool["voids"],
            "awards_count": pool["awards"]["count"],
            "awards_from_pool": pool["awards"]["from_pool"],
            "awards_fixed_by_house": pool["awards"]["fixed_by_house"],
            "envy_by_house": pool["awards"]["envy_by_house"],
            "resets": pool["resets"],
            "seeds_by_house": pool["seeds"]["by_house"],
            "seeds_by_reserve": pool["seeds"]["by_reserve"],
            "adjustments_displayed": pool["adjustment_total"]["displayed"],
            "adjustments_reserve": pool["adjustment_total"]["reserve"],
            "closing_displayed": pool["closing"]["displayed"],
            "closing_reserve": pool["closing"]["reserve"],
            "retired": str(pool["retired"]).lower(),
        }
        out += [["pool", name, key, str(value)] for key, value in flat.items()]
        for hit in pool["hits"]:
            out.append(
                [
                    "hit",
                    name,
                    f"hit {hit['hit']} round {hit['round']} seat {hit['seat']} "
                    f"{hit['line'] or '-'}",
                    str(hit["amount"] + hit["share"] + hit["envy"]),
                ]
            )
        for adj in pool["adjustments"]:
            out.append(
                [
                    "adjustment",
                    name,
                    f"{adj['meter']} by {adj['technician']}: {adj['reason']}",
                    str(adj["change"]),
                ]
            )
        for event in pool["lifecycle"]:
            out.append(
                [
                    "lifecycle",
                    name,
                    f"{event['action']} by {event['technician']}: {event['reason']}",
                    str(event["amount"]),
                ]
            )
    for w in report["wagers"]:
        for key in ("rounds", "handle", "paid", "hold", "hold_percent", "theoretical_hold_percent"):
            out.append(["wager", w["wager"], key, "" if w[key] is None else str(w[key])])
    return out


def to_csv(report: dict[str, Any]) -> bytes:
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerows(rows(report))
    return buffer.getvalue().encode("utf-8")


def _latin1(text: str) -> str:
    """The PDF's core fonts cover Latin-1; anything else prints as '?' (the JSON and CSV
    forms keep the exact text)."""
    return text.encode("latin-1", "replace").decode("latin-1")


class _Page(FPDF):
    def __init__(self, report: dict[str, Any]) -> None:
        super().__init__(orientation="P", unit="mm", format="A4")
        self.report = report
        self.set_auto_page_break(auto=True, margin=15)
        self.set_creation_date(datetime.fromisoformat(report["generated"]))
        self.set_title(f"Gaming-day report {report['table']} {report['gaming_day']}")
        self.set_author("croupier")

    def header(self) -> None:
        r = self.report
        self.set_font("Helvetica", "B", 13)
        self.cell(
            0,
            7,
            _latin1(f"Gaming-day meter report - table {r['table']}"),
            new_x="LMARGIN",
            new_y="NEXT",
        )
        self.set_font("Helvetica", "", 9)
        self.cell(
            0,
            5,
            _latin1(
                f"Gaming day {r['gaming_day']} (starts {r['gaming_day_start']}): "
                f"{r['from']} to {r['to']}"
            ),
            new_x="LMARGIN",
            new_y="NEXT",
        )
        self.ln(2)

    def footer(self) -> None:
        self.set_y(-12)
        self.set_font("Helvetica", "", 8)
        r = self.report
        self.cell(
            0,
            5,
            _latin1(
                f"profile {r['profile']} - journal entries "
                f"{r['journal']['first']}..{r['journal']['last']} - generated "
                f"{r['generated']} - page {self.page_no()}/{{nb}}"
            ),
            align="C",
        )

    def heading(self, text: str) -> None:
        self.ln(2)
        self.set_font("Helvetica", "B", 11)
        self.cell(0, 6, _latin1(text), new_x="LMARGIN", new_y="NEXT")
        self.set_font("Helvetica", "", 9)

    def grid(self, header: list[str], body: list[list[str]], widths: tuple[int, ...]) -> None:
        align = ("LEFT",) + ("RIGHT",) * (len(header) - 1)  # names left, figures right
        with self.table(
            col_widths=widths, text_align=align, line_height=5, first_row_as_headings=True
        ) as table:
            for values in [header, *body]:
                row = table.row()
                for value in values:
                    row.cell(_latin1(value))


def _rules_played(report: dict[str, Any]) -> str:
    """The rules the day was played under, for the PDF (from journal entry N, by digest)."""
    played = [
        f"{r['rules_sha256']} ({r['profile']['name']} version {r['profile']['version']}, "
        f"{r['profile']['origin']}) from journal entry {r['seq']}"
        for r in report.get("rules", [])
    ]
    return f" Rules played under: {'; '.join(played)}." if played else ""


def to_pdf(report: dict[str, Any]) -> bytes:
    cur = report["currency"]
    pdf = _Page(report)
    pdf.add_page()
    rounds = report["rounds"]
    pdf.heading("Rounds")
    voided = ", ".join(f"{rule}: {n}" for rule, n in rounds["voided_by_rule"].items()) or "none"
    pdf.grid(
        ["opened", "settled", "voided", "voided by rule", "open at the end"],
        [
            [
                str(rounds["opened"]),
                str(rounds["settled"]),
                str(rounds["voided"]),
                voided,
                str(rounds["open_at_end"]),
            ]
        ],
        (20, 20, 20, 60, 30),
    )
    for pool in report["pools"]:
        retired = " - RETIRED" if pool["retired"] else ""
        pdf.heading(
            f"Pool {pool['pool']} (bet {pool['bet']}, seed {money(pool['seed'], cur)}){retired}"
        )
        a = pool["awards"]
        lines = [
            ("Opening amount displayed", pool["opening"]["displayed"]),
            ("+ contributions (net of voids)", pool["contributions"]),
            (f"- awards from the pool ({a['count']} hits)", -a["from_pool"]),
            (f"+ seeds after {pool['resets']} reset(s), by the house", pool["seeds"]["by_house"]),
            ("+ seeds funded by the reserve", pool["seeds"]["by_reserve"]),
            ("+/- adjustments (corrections, retirement)", pool["adjustment_total"]["displayed"]),
            ("= Closing amount displayed", pool["closing"]["displayed"]),
            ("Opening reserve", pool["opening"]["reserve"]),
            ("+ reserve contributions", pool["reserve_contributions"]),
            ("+ overflow above the cap", pool["overflow"]),
            ("- seeds funded by the reserve", -pool["seeds"]["by_reserve"]),
            ("+/- reserve adjustments", pool["adjustment_total"]["reserve"]),
            ("= Closing reserve", pool["closing"]["reserve"]),
            ("Qualifying stakes", pool["qualifying_stakes"]),
            ("Fixed awards paid by the house", a["fixed_by_house"]),
            ("Envy bonuses paid by the house", a["envy_by_house"]),
        ]
        lines += [
            (f"{e['action']} ({e['reason_code']}): {e['reason']}", e["amount"])
            for e in pool["lifecycle"]
        ]
        pdf.grid(["movement", "amount"], [[t, money(v, cur)] for t, v in lines], (120, 50))
        if pool["hits"]:
            pdf.heading(f"Hits on {pool['pool']}")
            pdf.grid(
                ["time (UTC)", "round", "seat", "line", "paid", "from pool"],
                [
                    [
                        h["wall"][11:19],
                        h["round"][:16],
                        str(h["seat"]),
                        h["line"] or "envy/share",
                        money(h["amount"] + h["share"] + h["envy"], cur),
                        money(h["from_pool"], cur),
                    ]
                    for h in pool["hits"]
                ],
                (22, 40, 12, 36, 35, 35),
            )
        for adj in pool["adjustments"]:
            pdf.multi_cell(
                0,
                5,
                _latin1(
                    f"Adjustment {adj['correction']} at {adj['wall']}: {adj['meter']} "
                    f"{money(adj['old'], cur)} -> {money(adj['new'], cur)} by {adj['technician']}: "
                    f"{adj['reason']}"
                ),
                new_x="LMARGIN",
                new_y="NEXT",
            )
    pdf.heading("Wagers")
    pdf.grid(
        ["wager", "rounds", "handle", "paid", "hold", "hold %", "theoretical %"],
        [
            [
                w["wager"],
                str(w["rounds"]),
                money(w["handle"], cur),
                money(w["paid"], cur),
                money(w["hold"], cur),
                _pct(w["hold_percent"]),
                _pct(w["theoretical_hold_percent"]),
            ]
            for w in report["wagers"]
        ],
        (26, 14, 31, 31, 31, 28, 25),
    )
    pdf.ln(3)
    pdf.set_font("Helvetica", "B", 9)
    state = "complete" if report["complete"] else "IN PROGRESS (the day has not ended)"
    pdf.multi_cell(
        0,
        5,
        _latin1(
            f"Reconciled: every pool's closing amount equals its opening amount plus the day's "
            f"movements, summed from the ledger's rows and checked against the journal's replay. "
            f"Day {state}. Journal hash of the last entry: {report['journal']['last_hash']}."
            + _rules_played(report)
        ),
        align="L",
        new_x="LMARGIN",
        new_y="NEXT",
    )
    return bytes(pdf.output())
