"""The daemon's control-socket commands (docs/daemon.md lists them).

Everyone in the socket's group may read the table's status and meters and enter what the
dealer's tablet enters (stakes, decisions, LOCK/CONFIRM). Privileged commands (``jackpot.ack``,
``meters.reset``, ``shuffler.reset``, ``seat.clear``) and the surveillance commands that show
card identities
(``round.show``, ``round.settle``) need the technician credential; each use is journaled.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from controller.books.ledger.journal import verify_chain
from controller.books.software_verification import (
    VerificationError,
    history,
    record,
    verify_software,
)
from controller.books.surveillance import SurveillanceError
from controller.engine import games
from controller.engine.cards import parse_cards
from controller.errors import CroupierError
from controller.table.control.protocol import ControlError, Request
from controller.table.control.server import ControlServer
from controller.table.credentials import verify
from controller.table.events import (
    ButtonPressed,
    DealerCardsExposed,
    DeclareMisdeal,
    DeclareSeats,
    EnterCards,
    EnterWagers,
    JackpotAck,
    PoolAmount,
    SeatDecision,
)
from controller.table.reporting import day_report, make_evidence
from controller.table.runner import TableRunner
from controller.table.shuffler_link import ResetShuffler
from drivers.errors import DriverError

BJ_ACTIONS = ("hit", "stand", "double", "split", "insurance")


def _int(args: dict[str, Any], name: str) -> int:
    value = args.get(name)
    if isinstance(value, bool) or not isinstance(value, int):
        raise ControlError(f"'{name}' must be a whole number", "bad-request")
    return value


def _text(args: dict[str, Any], name: str) -> str:
    value = args.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ControlError(f"'{name}' is required", "bad-request")
    return value.strip()


def _without_cards(value: Any) -> Any:
    """A settlement result with every ``cards`` list taken out, however deep."""
    if isinstance(value, dict):
        return {k: _without_cards(v) for k, v in value.items() if k != "cards"}
    if isinstance(value, list):
        return [_without_cards(v) for v in value]
    return value


class Commands:
    def __init__(self, runner: TableRunner) -> None:
        self.runner = runner

    def register(self, server: ControlServer) -> None:
        for name in (
            "status",
            "ledger.path",
            "meters",
            "events.tail",
            "events.verify",
            "jackpot.ack",
            "meters.reset",
            "round.show",
            "round.settle",
            "round.stake",
            "round.seats",
            "round.decide",
            "round.lock",
            "round.confirm",
            "round.cards",
            "round.misdeal",
            "shuffler.audit",
            "sign.state",
            "metrics",
            "seat.clear",
            "round.expose",
            "round.last",
            "shuffler.reset",
            "report.day",
            "software.verify",
            "software.history",
            "evidence.make",
        ):
            server.register(name, getattr(self, name.replace(".", "_")))

    # --- helpers -----------------------------------------------------------------------

    def _technician(self, request: Request, action: str) -> str:
        stored = self.runner.config.credential
        if stored is None:
            raise ControlError(
                f"{action}: no technician credential is configured ([technician] credential)",
                "unauthorised",
            )
        if not request.credential or not verify(request.credential, stored):
            self.runner.post_journal("access-refused", {"action": action})
            raise ControlError(f"{action}: wrong or missing technician credential", "unauthorised")
        who = request.args.get("technician")
        return who if isinstance(who, str) and who.strip() else "technician"

    @property
    def _machine(self) -> Any:
        machine = self.runner.machine
        if machine is None:
            raise ControlError("the table is starting", "refused")
        return machine

    # --- reading -----------------------------------------------------------------------

    def status(self, request: Request) -> dict[str, Any]:
        r = self.runner
        view = self._machine.view()
        link = r.shuffler
        identity = link.identity if link is not None else None
        view["table"] = r.config.table_id
        view["profile"] = r.config.profile.name
        view["shuffler"] = {
            "link": "up" if link is not None and "link" not in view["conditions"] else "down",
            "model": identity.model if identity else None,
            "firmware": identity.fw_version if identity else None,
            "firmware_sha256": identity.fw_sha256.hex() if identity else None,
            "deck": link.last_deck if link is not None else None,
        }
        if r.gpio is not None:
            view["sensors"] = {s: st.value for s, st in r.gpio.seat_states().items()}
            view["lamps"] = r.gpio.lamp_levels()
        view["recovered_rounds"] = r.recovered
        machine = self._machine
        if machine.round is not None:  # how many cards the round has had (no identities)
            view["dealt"] = len(machine.round.deal.delivered_order())
        return view

    def ledger_path(self, request: Request) -> str:
        return str(self.runner.config.resolve_state(self.runner.state_dir))

    async def meters(self, request: Request) -> list[dict[str, Any]]:
        ledger = self.runner.ledger
        return await self.runner.in_ledger(ledger.meters)

    async def events_tail(self, request: Request) -> list[dict[str, Any]]:
        count = request.args.get("n", 20)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= 10_000:
            raise ControlError("'n' must be 1..10000", "bad-request")
        ledger = self.runner.ledger
        entries = await self.runner.in_ledger(lambda: ledger.journal.tail(count))
        return [e.to_json() for e in entries]

    async def events_verify(self, request: Request) -> dict[str, Any]:
        ledger = self.runner.ledger
        report = await self.runner.in_ledger(lambda: verify_chain(ledger.journal))
        return {
            "ok": report.ok,
            "entries": report.entries,
            "first_bad": report.first_bad,
            "problems": report.problems,
        }

    def shuffler_audit(self, request: Request) -> dict[str, Any]:
        audit = self.runner.audit
        if audit is None:
            raise ControlError("no shuffle audit yet", "refused")
        report = audit.report()
        return {
            "shuffles": report.shuffles,
            "positions": report.positions,
            "alarm": report.alarm,
            "tests": [
                {
                    "name": t.name,
                    "statistic": t.statistic,
                    "df": t.df,
                    "p_value": t.p_value,
                    "ready": t.ready,
                }
                for t in report.tests
            ],
        }

    async def report_day(self, request: Request) -> dict[str, Any]:
        """The signed gaming-day report (controller.table.reporting, docs/regulatory.md)."""
        return await day_report(self.runner, request.args)

    async def software_verify(self, request: Request) -> dict[str, Any]:
        """Keyed digests of the installed software, journaled (software_verification)."""
        args, runner = request.args, self.runner
        who = args.get("requested_by")
        who = who[:64] if isinstance(who, str) and who.strip() else "control socket"
        try:
            result = await asyncio.get_running_loop().run_in_executor(
                None, verify_software, args.get("seed"), args.get("algorithm", "hmac-sha1")
            )
        except VerificationError as exc:
            raise ControlError(str(exc), "bad-request") from None
        now = runner.now()
        seq = await runner.in_ledger(lambda: record(runner.ledger.journal, result, now, who))
        return {"result": result.to_json(), "journal_entry": seq}

    async def software_history(self, request: Request) -> list[dict[str, Any]]:
        return await self.runner.in_ledger(lambda: history(self.runner.ledger))

    def metrics(self, request: Request) -> dict[str, Any]:
        """Round pipeline timings (controller.table.runner.PipelineMetrics)."""
        return self.runner.metrics.to_json()

    def sign_state(self, request: Request) -> dict[str, Any]:
        sign = self.runner.sign
        if sign is None:
            raise ControlError("this table has no sign", "refused")
        last = sign._last
        return {"kind": sign.config.kind, "text": getattr(last, "text", None),
                "overflow": sign.overflow, "mode": sign.renderer.state.mode.value,
                "cells": last.cells.hex() if last is not None else None,
                "level": getattr(last, "level", None)}  # fmt: skip

    async def round_last(self, request: Request) -> dict[str, Any] | None:
        """The round closed last, for the dealer's display and the rig: settled or voided
        (with the MD rule), each seat's stakes and what each wager paid (the ledger's record),
        and for a round settled since the daemon started the engine's result per wager (rule,
        pay line, hand category). No card identities (``round show`` has them)."""
        ledger = self.runner.ledger
        record = await self.runner.in_ledger(ledger.last_closed_round)
        if record is None:
            return None
        data = record.to_json()
        del data["pools"]
        settled = self.runner.last_settled
        if settled is not None and settled["round"] == record.round_id:
            result = _without_cards(settled["result"])
            data["dealer"], data["seats"] = result["dealer"], result["seats"]
        return data

    # --- surveillance (credential) -----------------------------------------------------

    def _recorded(self, request: Request, action: str) -> dict[str, Any]:
        self._technician(request, action)
        round_id = request.args.get("round", "last")
        if not isinstance(round_id, str):
            raise ControlError("'round' must be a round ID or 'last'", "bad-request")
        try:
            found = self.runner.surveillance.round(round_id)
        except SurveillanceError as exc:
            raise ControlError(str(exc), "refused") from None
        self.runner.post_journal("surveillance-access", {"action": action, "round": found["round"]})
        return found

    def round_show(self, request: Request) -> dict[str, Any]:
        return self._recorded(request, "round.show")

    def round_settle(self, request: Request) -> dict[str, Any]:
        """Settle a recorded round again with the engine (a dispute) and compare."""
        found = self._recorded(request, "round.settle")
        try:
            profile = self.runner.config.profile
            again = games.settle(profile, found["record"]).to_json()
        except CroupierError as exc:
            raise ControlError(f"the recorded round does not settle: {exc}", "refused") from None
        return {"round": found["round"], "result": again, "matches": again == found["result"]}

    # --- the dealer's entries ----------------------------------------------------------

    def round_stake(self, request: Request) -> str:
        seat = _int(request.args, "seat")
        stakes = request.args.get("stakes", {})
        if not isinstance(stakes, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool) and v >= 0
            for k, v in stakes.items()
        ):
            raise ControlError("'stakes' must map wager names to minor units", "bad-request")
        self.runner.post(EnterWagers(seat, stakes, request.args.get("decision")))
        return "entered"

    def round_seats(self, request: Request) -> str:
        seats = request.args.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, int) for s in seats):
            raise ControlError("'seats' must be a list of seat numbers", "bad-request")
        self.runner.post(DeclareSeats(tuple(seats)))
        return "declared"

    def round_decide(self, request: Request) -> str:
        seat = _int(request.args, "seat")
        action = _text(request.args, "action")
        if self.runner.config.profile.game == "blackjack":
            if action not in BJ_ACTIONS:
                raise ControlError(f"action must be one of {', '.join(BJ_ACTIONS)}", "bad-request")
            amount = request.args.get("amount", 0)
            if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
                raise ControlError("'amount' must be minor units", "bad-request")
            self.runner.post(SeatDecision(seat, action, amount))
        else:
            self.runner.post(EnterWagers(seat, {}, action))
        return "entered"

    def round_cards(self, request: Request) -> str:
        """Cards of a manually dealt round: ``destination`` (community, dealer, seat:N) and
        ``cards`` like ["As", "Kd"]."""
        destination = _text(request.args, "destination")
        try:
            cards = tuple(parse_cards(request.args.get("cards", []), what=destination))
        except CroupierError as exc:
            raise ControlError(str(exc), "bad-request") from None
        self.runner.post(EnterCards(destination, cards))
        return "entered"

    def round_misdeal(self, request: Request) -> str:
        self.runner.post(DeclareMisdeal(_text(request.args, "rule"), _text(request.args, "reason")))
        return "declared"

    def round_expose(self, request: Request) -> str:
        """The dealer exposed his cards with only the flop shown (MD-X3, where the profile
        has the procedure): ``positions`` of his hand, 1-based, default both."""
        if self.runner.config.profile.options.get("dealer_exposure") != "reinsert":
            raise ControlError(f"profile {self.runner.config.profile.name} has no re-insertion"
                               " procedure for exposed dealer cards (MD-X3 is Italian): call"
                               " the floor")  # fmt: skip
        positions = request.args.get("positions", [1, 2])
        if not isinstance(positions, list) or not all(
            isinstance(p, int) and not isinstance(p, bool) for p in positions
        ):
            raise ControlError("'positions' must list the dealer's cards, e.g. [1, 2]",
                               "bad-request")  # fmt: skip
        self.runner.post(DealerCardsExposed(tuple(positions)))
        return "entered"

    def round_lock(self, request: Request) -> str:
        self.runner.post(ButtonPressed("lock"))
        return "pressed"

    def round_confirm(self, request: Request) -> str:
        self.runner.post(ButtonPressed("confirm"))
        return "pressed"

    # --- privileged --------------------------------------------------------------------

    async def jackpot_ack(self, request: Request) -> str:
        who = self._technician(request, "jackpot.ack")
        if self._machine.state.value != "jackpot":
            raise ControlError(f"no jackpot to acknowledge (table is {self._machine.state.value})")
        self.runner.post(JackpotAck(who))
        record = await self.runner.in_ledger(self.runner.ledger.last_closed_round)
        if record is None:  # nothing closed in this ledger (cannot be after a local award)
            return "acknowledged"
        try:  # every 100% award gets its evidence bundle (docs/evidence.md)
            path = await make_evidence(self.runner, record.round_id)
            self.runner.post_journal("evidence-made", {"round": record.round_id, "file": str(path)})
        except (CroupierError, OSError) as exc:
            self.runner.post_journal("evidence-failed", {"round": record.round_id,
                                                         "reason": str(exc)})  # fmt: skip
        return "acknowledged"

    async def evidence_make(self, request: Request) -> dict[str, Any]:
        """The signed evidence bundle of any closed round, on demand (credential)."""
        who = self._technician(request, "evidence.make")
        round_id = request.args.get("round", "last")
        if not isinstance(round_id, str) or not 1 <= len(round_id) <= 64:
            raise ControlError("'round' must be a round ID or 'last'", "bad-request")
        if round_id == "last":
            record = await self.runner.in_ledger(self.runner.ledger.last_closed_round)
            if record is None:
                raise ControlError("no round has closed yet")
            round_id = record.round_id
        try:
            path = await make_evidence(self.runner, round_id)
        except CroupierError as exc:
            raise ControlError(str(exc)) from None
        self.runner.post_journal("evidence-made", {"round": round_id, "technician": who})
        return {"round": round_id, "file": str(path), "bundle": json.loads(path.read_text())}

    def shuffler_reset(self, request: Request) -> str:
        """RESET the shuffler after a technician cleared its fault (a jam, a misfeed); the
        table opens again once the machine reports no fault and the deck counts right."""
        who = self._technician(request, "shuffler.reset")
        if self.runner.shuffler is None:
            raise ControlError("this table has no shuffler link", "refused")
        self.runner.post_journal("shuffler-reset", {"technician": who})
        self.runner.shuffler.submit(ResetShuffler(who))
        return "reset requested"

    def seat_clear(self, request: Request) -> str:
        """Clear a seat excluded for a stuck or chattering sensor (the technician checked it);
        a stake still on the sensor must be lifted before a new one counts."""
        who = self._technician(request, "seat.clear")
        seat = _int(request.args, "seat")
        gpio = self.runner.gpio
        if gpio is None:
            raise ControlError("this table has no seat sensors", "refused")
        try:
            cleared = gpio.clear(seat)
        except DriverError as exc:
            raise ControlError(str(exc), "bad-request") from None
        if not cleared:
            raise ControlError(f"seat {seat} is not excluded")
        self.runner.post_journal("seat-cleared", {"seat": seat, "technician": who})
        return "cleared"

    async def meters_reset(self, request: Request) -> dict[str, Any]:
        """Set a pool's displayed amount back to its seed (journaled correction)."""
        who = self._technician(request, "meters.reset")
        reason = _text(request.args, "reason")
        if self._machine.round is not None:
            raise ControlError("a round is in play: reset the meters between rounds")
        runner = self.runner
        name = request.args.get("pool") or next(iter(runner.config.pools), None)
        pool = runner.config.pools.get(name) if isinstance(name, str) else None
        if pool is None:
            raise ControlError(f"no pool {name!r} at this table", "bad-request")
        now = runner.now()
        try:
            state = await runner.in_ledger(
                lambda: runner.ledger.correct_meter(
                    pool.name, "current", pool.seed, now, technician=who, reason=reason
                )
            )
        except CroupierError as exc:
            raise ControlError(str(exc)) from None
        runner.post(PoolAmount(pool.bet, state.current, pool.seed))
        return {"pool": pool.name, "current": state.current}
