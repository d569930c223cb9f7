"""The daemon's control-socket commands (docs/daemon.md lists them).

Everyone in the socket's group may read the table's status and meters and enter what the
dealer's tablet enters (stakes, decisions, LOCK/CONFIRM), except the users named in
``[control] observers`` (the web service): they may only send the commands of
:data:`OBSERVER_COMMANDS`. Privileged commands (``jackpot.ack``,
``meters.reset``, ``shuffler.reset``, ``seat.clear``) and the surveillance commands that show
card identities
(``round.show``, ``round.settle``) need the technician credential; each use is journaled.

Every field of every request is checked here, at entry, before anything reaches the machine
(docs/daemon.md lists the limits): only the arguments a command knows; seats of this table;
money whole minor units from 0 to the table's ``[limits] stake_max``; wager names and
decisions of the profile's game; texts short and printable. A bad field is a ``bad-request``
naming it. The credential check (scrypt) runs off the event loop, failures are limited per
peer user and refusals journaled coalesced (controller.table.control.guard).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import pwd
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from controller.books.ledger.journal import verify_chain
from controller.books.surveillance import SurveillanceError
from controller.engine import games
from controller.engine.cards import parse_cards
from controller.engine.deal.misdeals import is_misdeal_rule, rule_ids
from controller.engine.deal.validator import DEALER
from controller.engine.games.holdem_round import parse_decision
from controller.engine.profiles import GAME_PROGRESSIVE_BET
from controller.engine.wagers import TABLE_WAGERS, check_entry, refusal
from controller.errors import CroupierError, ProcedureNotOffered, RoundError
from controller.table.alerts import AlertError, conditions_of
from controller.table.control.guard import FailureLimiter, RefusalTally
from controller.table.control.protocol import Request
from controller.table.control.server import ControlServer
from controller.table.control.wire import EVENTS_TAIL_MAX, HITS_MAX, ControlError
from controller.table.core import Input
from controller.table.credentials import verify
from controller.table.events import (
    Button,
    CardsExposed,
    DealerPressed,
    DeclareMisdeal,
    DeclareSeats,
    EnterCards,
    EnterWagers,
    JackpotAck,
    JournalNote,
    PoolAmount,
    Refused,
    SeatDecision,
    WithdrawWagers,
)
from controller.table.exposure import HELD, exposure_refusal
from controller.table.machine import TableState
from controller.table.runner import Handover, TableRunner
from controller.table.shuffler_link import ResetShuffler
from controller.texts import suggestion, text_problem
from display.money import money_writer
from drivers.errors import DriverError

log = logging.getLogger("croupier.control")

# LAZY: the gaming-day report, the evidence bundles and the software verification (PDF,
# signatures, HTTP: ~60 modules) are imported by the commands that use them, not at the
# daemon's start-up (~0.3 s here, seconds on a Pi; docs/daemon.md, "Fast on a slow CPU").


async def _evidence(runner: TableRunner, round_id: str) -> Any:
    """The evidence bundle of a round (controller.table.reporting.make_evidence)."""
    from controller.table.reporting import make_evidence

    return await make_evidence(runner, round_id)


BJ_ACTIONS = ("hit", "stand", "double", "split", "insurance")
MAX_WAGERS = 8  # wagers in one stake entry: more than any game has
MAX_WAGER_NAME = 32  # characters: the longest wager of any game is far shorter
ROUND_REF = re.compile(r"^(last|[A-Za-z0-9][A-Za-z0-9._:-]{0,63})\Z")

# The arguments each command takes; anything else is refused (a typo must not be ignored).
ARGS: dict[str, frozenset[str]] = {
    name: frozenset(args)
    for name, args in {
        "status": (),
        "ledger.path": (),
        "meters": (),
        "meters.summary": (),
        "meters.hits": ("pool", "n"),
        "events.tail": ("n", "kinds"),
        "events.verify": (),
        "jackpot.ack": ("technician",),
        "meters.reset": ("technician", "pool", "reason"),
        "round.show": ("technician", "round"),
        "round.settle": ("technician", "round"),
        "round.stake": ("seat", "stakes", "decision"),
        "round.withdraw": ("seat",),
        "round.seats": ("seats",),
        "round.decide": ("seat", "action", "amount"),
        "round.lock": (),
        "round.confirm": (),
        "round.cards": ("destination", "cards"),
        "round.misdeal": ("rule", "reason"),
        "shuffler.audit": (),
        "sign.state": (),
        "metrics": (),
        "seat.clear": ("technician", "seat"),
        "round.expose": ("positions", "destination"),
        "round.last": (),
        "shuffler.reset": ("technician",),
        "alerts": (),
        "alert.ack": ("technician", "id"),
        "report.day": ("date", "form"),
        "software.verify": ("seed", "algorithm", "requested_by"),
        "software.history": (),
        "evidence.make": ("technician", "round"),
    }.items()
}


# What an observer may send: the commands that only read, and those that carry the technician
# credential (the credential, checked here, is the authority; the web forwards acknowledgements)
READ_COMMANDS = frozenset(
    {
        "status",
        "ledger.path",
        "meters",
        "meters.summary",
        "meters.hits",
        "events.tail",
        "events.verify",
        "shuffler.audit",
        "sign.state",
        "metrics",
        "round.last",
        "alerts",
        "report.day",
        "software.history",
    }
)
OBSERVER_COMMANDS = READ_COMMANDS | {name for name, args in ARGS.items() if "technician" in args}


def observer_uids(names: tuple[str, ...]) -> frozenset[int]:
    """The uids of the observer login names; a name with no account is logged and skipped
    (no process can run as it)."""
    uids = set()
    for name in names:
        try:
            uids.add(pwd.getpwnam(name).pw_uid)
        except KeyError:
            log.warning("control.observers: no user %r on this system (ignored)", name)
    return frozenset(uids)


def _bad(message: str) -> ControlError:
    return ControlError(message, "bad-request")


def _alert_id(value: Any) -> int:
    """An alert's number (the daemon counts them from 1)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 2**31:
        raise _bad(f"'id': {str(value)[:20]!r} is not an alert number")
    return value


def _text(args: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = args.get(name)
    if value is None and not required:
        return ""
    problem = text_problem(value)  # the CLI's rule too (controller.texts)
    if problem is not None:
        raise _bad(f"'{name}' {problem}")
    return value.strip()


MAX_KINDS = 32  # journal kinds in one events.tail filter: there are fewer kinds than that


def _kinds(value: Any) -> set[str] | None:
    """``events.tail``'s ``kinds``: absent (every kind) or a list of at most MAX_KINDS kind
    names of at most 64 printable characters (an unknown kind matches nothing)."""
    if value is None:
        return None
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_KINDS
        or not all(isinstance(k, str) and 0 < len(k) <= 64 and k.isprintable() for k in value)
    ):
        raise _bad(f"'kinds' must be a list of 1..{MAX_KINDS} journal kinds (texts of 1..64)")
    return set(value)


def _without_cards(value: Any) -> Any:
    """A settlement result with every ``cards`` list taken out, however deep."""
    if isinstance(value, dict):
        return {k: _without_cards(v) for k, v in value.items() if k != "cards"}
    if isinstance(value, list):
        return [_without_cards(v) for v in value]
    return value


def _without_legacy_cards(entry: dict[str, Any]) -> dict[str, Any]:
    """A journal entry for the socket. Settled rounds journaled before card identities were
    kept out of the journal carry ``hands`` like "royal-flush As Ks Qs Js Ts": shown with the
    hand category only (the stored entry and its hash are untouched: `events verify`)."""
    data = entry.get("data")
    hands = data.get("hands") if isinstance(data, dict) else None
    if isinstance(hands, dict):
        entry["data"] = {
            **data,
            "hands": {
                s: h.split()[0] if isinstance(h, str) and h.strip() else h for s, h in hands.items()
            },
        }
    return entry


class Commands:
    def __init__(self, runner: TableRunner) -> None:
        self.runner = runner
        self.limiter = FailureLimiter()
        self.refusals = RefusalTally()
        # one scrypt at a time, on its own thread: never on the event loop, never more than
        # one core of the two busy with credential checks
        self.kdf_thread = ThreadPoolExecutor(1, thread_name_prefix="croupier-kdf")
        self._refusal_timer: asyncio.TimerHandle | None = None
        self.observers = observer_uids(runner.config.observers)

    def register(self, server: ControlServer) -> None:
        for name, known in ARGS.items():
            handler = _checked_args(name, known, getattr(self, name.replace(".", "_")))
            if name not in OBSERVER_COMMANDS:
                handler = self._not_for_observers(name, handler)
            server.register(name, handler)

    def _not_for_observers(self, cmd: str, handler: Callable[[Request], Any]) -> Any:
        """``handler`` refused (and the refusal journaled) for a peer of ``[control] observers``."""

        def guarded(request: Request) -> Any:
            if request.peer is not None and request.peer.uid in self.observers:
                self._refused(request, cmd, "observer", self.runner.now())
                raise ControlError(
                    f"{cmd}: uid {request.peer.uid} is an observer ([control] observers) and "
                    "may only read or send credentialed commands",
                    "forbidden",
                )
            return handler(request)

        return guarded

    async def aclose(self) -> None:
        """Journal the refusals still counted (before the ledger closes); stop the KDF thread."""
        if self._refusal_timer is not None:
            self._refusal_timer.cancel()
        for entry in self.refusals.flush(self.runner.now(), force=True):
            await self.runner.journal_now("access-refused", entry)
        self.kdf_thread.shutdown(wait=False, cancel_futures=True)

    # --- helpers -----------------------------------------------------------------------

    async def _technician(self, request: Request, action: str) -> str:
        """The technician's name once the credential is checked; ControlError otherwise.
        A peer user past its failure limit is refused without running the KDF."""
        stored = self.runner.config.credential
        if stored is None:
            raise ControlError(
                f"{action}: no technician credential is configured ([technician] credential)",
                "unauthorised",
            )
        who = _text(request.args, "technician", required=False) or "technician"
        peer = request.peer
        uid = peer.uid if peer is not None else -1
        now = self.runner.now()
        wait = self.limiter.retry_after(uid, now)
        if wait is not None:
            self._refused(request, action, "too many wrong credentials", now)
            raise ControlError(
                f"{action}: too many wrong credentials from uid {uid}; retry in {wait:.0f} s",
                "unauthorised",
            )
        # counted as a failure before the check, so guesses sent at once on many connections
        # cannot all slip past the limit while the first ones are being checked
        self.limiter.failed(uid, now)
        ok = False
        if request.credential:
            loop = asyncio.get_running_loop()
            check = functools.partial(verify, request.credential, stored)
            ok = await loop.run_in_executor(self.kdf_thread, check)
        if not ok:
            self._refused(request, action, "wrong or missing credential", self.runner.now())
            raise ControlError(f"{action}: wrong or missing technician credential", "unauthorised")
        self.limiter.succeeded(uid)
        return who

    async def _hand(self, event: Input) -> None:
        """Hand the table ``event`` and answer once it has taken it (TableRunner.take: the
        caller's next request sees its effect); a refusal when the daemon stopped first, or
        the table's own refusal in one line when its rules or state do not take the event (a
        stake after LOCK, PRG-2, BJ-1; a seat not in the round; cards to a place already
        dealt; a LOCK with no seat in play; a CONFIRM with nothing to confirm), never "entered"
        or "pressed" for what the table dropped."""
        handed = await self.runner.take(event)
        if handed is Handover.STOPPED:
            raise ControlError("the daemon is stopping: not taken, try again once it is up")
        if isinstance(handed, Refused):
            raise ControlError(handed.text(), "refused")

    def _refused(self, request: Request, action: str, reason: str, now: float) -> None:
        """Count a refusal; journal what the tally says is due (coalesced per window)."""
        peer = f"uid {request.peer.uid}" if request.peer is not None else "unknown peer"
        for entry in self.refusals.refused(peer, action, reason, now):
            self.runner.post_journal("access-refused", entry)
        deadline = self.refusals.next_deadline()
        if deadline is not None and self._refusal_timer is None:
            loop = asyncio.get_running_loop()
            self._refusal_timer = loop.call_later(max(0.0, deadline - now), self._flush_refusals)

    def _flush_refusals(self) -> None:
        self._refusal_timer = None
        for entry in self.refusals.flush(self.runner.now()):
            self.runner.post_journal("access-refused", entry)

    def _seat(self, value: Any, name: str = "seat") -> int:
        seats = self.runner.config.seats
        if isinstance(value, bool) or not isinstance(value, int) or value not in seats:
            raise _bad(
                f"'{name}': {str(value)[:20]!r} is not a seat of this table"
                f" ({', '.join(map(str, seats))})"
            )
        return value

    def _money(self, value: Any, name: str) -> int:
        limit = self.runner.config.stake_max
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= limit:
            raise _bad(
                f"'{name}': {str(value)[:24]} is not an amount of 0..{limit} minor units"
                " ([limits] stake_max)"
            )
        return value

    def _wagers(self) -> tuple[str, ...]:
        """The wagers of this table's game (the profile may still not offer one: UTH-2)."""
        game = self.runner.config.profile.game
        progressive = GAME_PROGRESSIVE_BET.get(game)
        return TABLE_WAGERS[game] + ((progressive,) if progressive else ())

    def _money_text(self, amount: int) -> str:
        """An amount in a reply a person reads (``EUR 80.00``): the table's currency."""
        return money_writer(self.runner.config.profile.money.currency)(amount)

    @property
    def _machine(self) -> Any:
        machine = self.runner.machine
        if machine is None:
            raise ControlError("the table is starting", "refused")
        return machine

    # --- reading -----------------------------------------------------------------------

    def status(self, request: Request) -> dict[str, Any]:
        r = self.runner
        machine = self._machine
        assert r.logic is not None
        view = r.logic.view()  # the machine's view and the sensors' own seat states
        link = r.shuffler
        identity = link.identity if link is not None else None
        view["table"] = r.config.table_id
        view["profile"] = r.config.profile.name
        view["currency"] = r.config.profile.money.currency  # the pools' amounts are minor units
        # the machine keeps its pools by wager; people and `meters --pool` name them as the
        # ledger does ([pools.NAME]), and pool_wagers says which wager feeds each
        wagers = r.config.pool_wagers()
        by_wager = {bet: name for name, bet in wagers.items()}
        view["pools"] = {by_wager.get(bet, bet): amount for bet, amount in view["pools"].items()}
        view["pool_wagers"] = wagers
        view["shuffler"] = {
            "link": "up" if link is not None and "link" not in view["conditions"] else "down",
            "model": identity.model if identity else None,
            "firmware": identity.fw_version if identity else None,
            "firmware_sha256": identity.fw_sha256.hex() if identity else None,
            "deck": link.last_deck if link is not None else None,
        }
        if r.gpio is not None:
            view["lamps"] = r.gpio.lamp_levels()  # as last written to the pins
        view["recovered_rounds"] = r.recovered
        if machine.round is not None:  # how many cards the round has had (no identities)
            view["dealt"] = len(machine.round.deal.delivered_order())
        return view

    def ledger_path(self, request: Request) -> str:
        return str(self.runner.config.resolve_state(self.runner.state_dir))

    async def meters(self, request: Request) -> list[dict[str, Any]]:
        ledger = self.runner.ledger
        return await self.runner.in_ledger(ledger.meters)

    async def meters_summary(self, request: Request) -> dict[str, Any]:
        """What ``croupier meters`` shows: the ledger's path, every pool's meters, the
        self-check and the rounds by state, with the currency (the CLI asks the daemon instead
        of loading the ledger's code itself)."""
        runner = self.runner
        ledger = runner.ledger

        def read() -> dict[str, Any]:
            return {
                "pools": ledger.meters(),
                "rounds": ledger.round_counts(),
                "selfcheck": ledger.selfcheck_status().to_json(),
            }

        summary = await runner.in_ledger(read)
        return {
            "ledger": self.ledger_path(request),
            **summary,
            "currency": runner.config.profile.money.currency,
        }

    async def meters_hits(self, request: Request) -> dict[str, Any]:
        """What ``croupier meters hits`` shows: the hit history, newest first (at most ``n``;
        of one pool of this table with ``pool``), with the currency (the CLI asks the daemon
        instead of loading the ledger's code and the table's configuration)."""
        runner = self.runner
        count = request.args.get("n", 100)
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= HITS_MAX:
            raise _bad(f"'n' must be 1..{HITS_MAX}")
        pool = request.args.get("pool")
        if pool is not None and (not isinstance(pool, str) or pool not in runner.config.pools):
            pools = ", ".join(runner.config.pools) or "none"
            fed = [n for n, bet in runner.config.pool_wagers().items() if bet == pool]
            hint = f"; {pool} is the wager that feeds pool {fed[0]}" if fed else ""
            raise ControlError(
                f"no pool {pool!r} at this table (its pools: {pools}{hint})", "bad-request"
            )
        ledger = runner.ledger
        hits = await runner.in_ledger(lambda: ledger.hits(pool, count))
        return {
            "hits": [h.to_json() for h in hits],
            "currency": runner.config.profile.money.currency,
        }

    async def events_tail(self, request: Request) -> list[dict[str, Any]]:
        count = request.args.get("n", 20)
        if (
            isinstance(count, bool)
            or not isinstance(count, int)
            or not 1 <= count <= EVENTS_TAIL_MAX
        ):
            raise _bad(f"'n' must be 1..{EVENTS_TAIL_MAX}")
        kinds = _kinds(request.args.get("kinds"))
        ledger = self.runner.ledger
        entries = await self.runner.in_ledger(lambda: ledger.journal.tail(count, kinds))
        return [_without_legacy_cards(e.to_json()) for e in entries]

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
        from controller.table.reporting import day_report  # LAZY: see the imports

        return await day_report(self.runner, request.args)

    async def software_verify(self, request: Request) -> dict[str, Any]:
        """Keyed digests of the installed software, journaled (software_verification)."""
        from controller.books.software_verification import (  # LAZY: see the imports
            VerificationError,
            record,
            verify_software,
        )

        args, runner = request.args, self.runner
        who = _text(args, "requested_by", required=False) or "control socket"
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
        from controller.books.software_verification import history  # LAZY: see the imports

        return await self.runner.in_ledger(lambda: history(self.runner.ledger))

    def metrics(self, request: Request) -> dict[str, Any]:
        """Round pipeline timings (controller.table.runner.PipelineMetrics)."""
        return self.runner.metrics.to_json()

    def sign_state(self, request: Request) -> dict[str, Any]:
        sign = self.runner.sign
        if sign is None:
            raise ControlError("this table has no sign", "refused")
        last = sign._last
        return {
            "kind": sign.config.kind,
            "text": getattr(last, "text", None),
            "overflow": sign.overflow,
            "mode": sign.renderer.state.mode.value,
            "cells": last.cells.hex() if last is not None else None,
            "level": getattr(last, "level", None),
        }

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

    async def _recorded(self, request: Request, action: str) -> dict[str, Any]:
        round_id = request.args.get("round", "last")
        if not isinstance(round_id, str) or not ROUND_REF.match(round_id):
            raise _bad("'round' must be a round ID or 'last'")
        await self._technician(request, action)
        try:
            found = await self.runner.in_surveillance(lambda store: store.round(round_id))
        except SurveillanceError as exc:
            raise ControlError(str(exc), "refused") from None
        await self._hand(
            JournalNote("surveillance-access", {"action": action, "round": found["round"]})
        )
        return {**found, "pool_wagers": self.runner.config.pool_wagers()}

    async def round_show(self, request: Request) -> dict[str, Any]:
        return await self._recorded(request, "round.show")

    async def round_settle(self, request: Request) -> dict[str, Any]:
        """Settle a recorded round again with the engine (a dispute) and compare."""
        found = await self._recorded(request, "round.settle")
        try:
            profile = self.runner.config.profile
            again = games.settle(profile, found["record"], table_record=True).to_json()
        except CroupierError as exc:
            raise ControlError(f"the recorded round does not settle: {exc}", "refused") from None
        return {
            "round": found["round"],
            "result": again,
            "matches": again == found["result"],
            "pool_wagers": found["pool_wagers"],
        }

    # --- the dealer's entries ----------------------------------------------------------

    def _decision(self, seat: int, raw: Any) -> Any:
        """A hold'em decision as the engine will read it (UTH-4, CH-3); None for none."""
        game = self.runner.config.profile.game
        if raw is None:
            return None
        if game == "blackjack":
            raise _bad("'decision': blackjack decisions come one by one (round.decide)")
        if isinstance(raw, list) and len(raw) > 3:
            raise _bad("'decision': at most one action per street (UTH-4)")
        try:
            parse_decision(self.runner.config.profile, seat, raw)
        except ProcedureNotOffered as exc:  # well formed, not in this profile's rules (MD-X4)
            raise ControlError(str(exc), "refused") from None
        except CroupierError as exc:
            raise _bad(f"'decision': {exc}") from None
        return raw

    async def round_stake(self, request: Request) -> str:
        seat = self._seat(request.args.get("seat"))
        stakes = request.args.get("stakes", {})
        if not isinstance(stakes, dict) or len(stakes) > MAX_WAGERS:
            raise _bad("'stakes' must map wager names to minor units")
        for name, amount in stakes.items():
            if len(name) > MAX_WAGER_NAME:
                raise _bad(f"'stakes': a wager name is at most {MAX_WAGER_NAME} characters")
            self._money(amount, f"stakes.{name}")
        decision = self._decision(seat, request.args.get("decision"))
        config = self.runner.config
        try:  # an unoffered wager or a stake under the minimum (UTH-2, CH-2, BJ-1, TRX-1)
            check_entry(config.profile, config.limits, seat, stakes)
        except RoundError as exc:
            known = self._wagers()  # what the profile offers is a subset of the game's wagers
            if unknown := [name for name in stakes if name not in known]:
                # a name this game does not have: a malformed request, not the table's refusal
                reason, rule = refusal(config.profile, unknown[0]) or (str(exc), exc.rule)
                raise _bad(f"'stakes': {reason} ({rule}){suggestion(unknown[0], known)}") from None
            raise ControlError(exc.shown(self._money_text), "refused") from None
        await self._hand(EnterWagers(seat, dict(stakes), decision))
        return f"entered; {self._stakes_now(seat)}"

    async def round_withdraw(self, request: Request) -> str:
        seat = self._seat(request.args.get("seat"))
        await self._hand(WithdrawWagers(seat))
        return f"withdrawn; {self._stakes_now(seat)}"

    def _stakes_now(self, seat: int) -> str:
        """The seat's whole stakes after an entry (an entry replaces them), as money."""
        stakes, decision = self._machine.seat_stakes(seat)
        shown = ", ".join(f"{name} {self._money_text(a)}" for name, a in stakes.items())
        if decision is not None:
            said = " ".join(decision) if isinstance(decision, list) else str(decision)
            shown += f"; decision {said}"
        return f"the seat's stakes now: {shown or 'none'}"

    async def round_seats(self, request: Request) -> str:
        seats = request.args.get("seats")
        if not isinstance(seats, list) or len(seats) > len(self.runner.config.seats):
            raise _bad("'seats' must be a list of this table's seat numbers")
        checked = tuple(self._seat(s, "seats") for s in seats)
        if len(set(checked)) != len(checked):
            raise _bad("'seats': a seat is listed twice")
        await self._hand(DeclareSeats(checked))
        return "declared"

    async def round_decide(self, request: Request) -> str:
        seat = self._seat(request.args.get("seat"))
        action = _text(request.args, "action")
        if self.runner.config.profile.game == "blackjack":
            if action not in BJ_ACTIONS:
                raise _bad(f"'action' must be one of {', '.join(BJ_ACTIONS)}")
            amount = self._money(request.args.get("amount", 0), "amount")
            await self._hand(SeatDecision(seat, action, amount))
        else:
            if request.args.get("amount", 0) != 0:
                raise _bad("'amount' is only for blackjack insurance")
            await self._hand(EnterWagers(seat, {}, self._decision(seat, action)))
        return "entered"

    def _destination(self, raw: Any) -> str:
        destination = _text({"destination": raw}, "destination")
        if destination in ("community", "dealer"):
            return destination
        kind, _, number = destination.partition(":")
        if kind != "seat" or not number.isdigit() or len(number) > 2:
            raise _bad("'destination' must be community, dealer or seat:N")
        return f"seat:{self._seat(int(number), 'destination')}"

    async def round_cards(self, request: Request) -> str:
        """Cards of a manually dealt round: ``destination`` (community, dealer, seat:N) and
        ``cards`` like ["As", "Kd"]."""
        destination = self._destination(request.args.get("destination"))
        raw = request.args.get("cards", [])
        if not isinstance(raw, list) or len(raw) > 5:
            raise _bad('\'cards\' must list at most 5 cards like ["As", "Kd"]')
        try:
            cards = tuple(parse_cards(raw, what=destination))
        except CroupierError as exc:
            raise _bad(f"'cards': {exc}") from None
        await self._hand(EnterCards(destination, cards))
        return "entered"

    async def round_misdeal(self, request: Request) -> str:
        """A misdeal the dealer declares: a rule ID that does not exist is a bad request;
        whether the round takes it (its deal mode, a player acted) is the table's to say,
        journaled (``misdeal-refused``), from the same rule table
        (:mod:`controller.engine.deal.misdeals`)."""
        rule = _text(request.args, "rule")
        if not is_misdeal_rule(rule):
            raise _bad(f"'rule' must be a misdeal rule: {rule_ids()}")
        await self._hand(DeclareMisdeal(rule, _text(request.args, "reason")))
        return "declared"

    async def round_expose(self, request: Request) -> str:
        """Cards exposed at the wrong time, where the profile has the procedure: the dealer's
        (MD-X1 Greek, MD-X3 Italian) or the community's (MD-X2 Greek). ``destination``:
        ``dealer`` (default) or ``community``; ``positions``: 1-based, default the dealer's
        both cards."""
        destination = request.args.get("destination", DEALER)
        if not isinstance(destination, str) or destination not in HELD:
            raise _bad("'destination' must be dealer or community")
        positions = self._exposed(request, destination)
        if (refused := exposure_refusal(self.runner.config.profile, destination)) is not None:
            raise ControlError(refused)
        await self._hand(CardsExposed(positions, destination))
        return "entered"

    @staticmethod
    def _exposed(request: Request, destination: str) -> tuple[int, ...]:
        """The ``positions`` of ``destination``'s cards: distinct, within what it holds."""
        held = HELD[destination]
        positions = request.args.get("positions", [1, 2] if destination == DEALER else None)
        if (
            not isinstance(positions, list)
            or not 1 <= len(positions) <= held
            or not all(type(p) is int and 1 <= p <= held for p in positions)
            or len(set(positions)) != len(positions)
        ):
            what = (
                "the dealer's cards, [1], [2] or [1, 2]"
                if destination == DEALER
                else "community positions 1..5 once each (flop 1-3, turn 4, river 5)"
            )
            raise _bad(f"'positions' must list {what}")
        return tuple(positions)

    async def round_lock(self, request: Request) -> str:
        """``pressed``, then each entered pool stake LOCK did not take as entered (journaled
        ``stake-not-taken``), as money with why and the rule (PRG-2)."""
        await self._hand(DealerPressed(Button.LOCK))
        notes = self._machine.lock_notes()
        return "; ".join(["pressed", *notes])

    async def round_confirm(self, request: Request) -> str:
        await self._hand(DealerPressed(Button.CONFIRM))
        return "pressed"

    # --- privileged --------------------------------------------------------------------

    async def jackpot_ack(self, request: Request) -> str:
        who = await self._technician(request, "jackpot.ack")
        if self._machine.state is not TableState.JACKPOT:
            raise ControlError(f"no jackpot to acknowledge (table is {self._machine.state})")
        await self._hand(JackpotAck(who))
        record = await self.runner.in_ledger(self.runner.ledger.last_closed_round)
        if record is None:  # nothing closed in this ledger (cannot be after a local award)
            return "acknowledged"
        try:  # every 100% award gets its evidence bundle (docs/evidence.md)
            path = await _evidence(self.runner, record.round_id)
            self.runner.post_journal("evidence-made", {"round": record.round_id, "file": str(path)})
        except (CroupierError, OSError) as exc:
            self.runner.post_journal(
                "evidence-failed", {"round": record.round_id, "reason": str(exc)}
            )
        return "acknowledged"

    def alerts(self, request: Request) -> list[dict[str, Any]]:
        """The alerts on the book (controller.table.alerts), oldest first."""
        r = self.runner
        r.alerts.update(conditions_of(self._machine, r.audit_alarm), r.wall_clock())
        return [alert.to_json() for alert in self.runner.alerts.alerts()]

    async def alert_ack(self, request: Request) -> dict[str, Any]:
        """Acknowledge alert ``id`` (credential; journaled with who did it)."""
        who = await self._technician(request, "alert.ack")
        try:
            alert = self.runner.alerts.acknowledge(_alert_id(request.args.get("id")), who)
        except AlertError as exc:
            raise ControlError(str(exc), "refused") from None
        await self._hand(
            JournalNote(
                "alert-acknowledged",
                {
                    "alert": alert.id,
                    "kind": alert.kind.value,
                    "subject": alert.subject,
                    "technician": who,
                },
            )
        )
        return alert.to_json()

    async def evidence_make(self, request: Request) -> dict[str, Any]:
        """The signed evidence bundle of any closed round, on demand (credential)."""
        who = await self._technician(request, "evidence.make")
        round_id = request.args.get("round", "last")
        if not isinstance(round_id, str) or not 1 <= len(round_id) <= 64:
            raise ControlError("'round' must be a round ID or 'last'", "bad-request")
        if round_id == "last":
            record = await self.runner.in_ledger(self.runner.ledger.last_closed_round)
            if record is None:
                raise ControlError("no round has closed yet")
            round_id = record.round_id
        try:
            path = await _evidence(self.runner, round_id)
        except CroupierError as exc:
            raise ControlError(str(exc)) from None
        await self._hand(JournalNote("evidence-made", {"round": round_id, "technician": who}))
        return {"round": round_id, "file": str(path), "bundle": json.loads(path.read_text())}

    async def shuffler_reset(self, request: Request) -> str:
        """RESET the shuffler after a technician cleared its fault (a jam, a misfeed); the
        table opens again once the machine reports no fault and the deck counts right."""
        who = await self._technician(request, "shuffler.reset")
        if self.runner.shuffler is None:
            raise ControlError("this table has no shuffler link", "refused")
        self.runner.post_journal("shuffler-reset", {"technician": who})  # the reset goes at once
        self.runner.shuffler.submit(ResetShuffler(who))
        return "reset requested"

    async def seat_clear(self, request: Request) -> str:
        """Clear a seat excluded for a stuck or chattering sensor (the technician checked it);
        a stake still on the sensor must be lifted before a new one counts."""
        seat = self._seat(request.args.get("seat"))
        who = await self._technician(request, "seat.clear")
        gpio = self.runner.gpio
        if gpio is None:
            raise ControlError("this table has no seat sensors", "refused")
        try:
            cleared = self.runner.clear_seat(seat)
        except DriverError as exc:
            raise ControlError(str(exc), "bad-request") from None
        if not cleared:
            raise ControlError(f"seat {seat} is not excluded")
        await self._hand(JournalNote("seat-cleared", {"seat": seat, "technician": who}))
        return "cleared"

    async def meters_reset(self, request: Request) -> dict[str, Any]:
        """Set a pool's displayed amount back to its seed (journaled correction)."""
        reason = _text(request.args, "reason")
        name = request.args.get("pool")
        if name is not None and (not isinstance(name, str) or len(name) > 64):
            raise _bad("'pool' must be a pool name of this table")
        who = await self._technician(request, "meters.reset")
        if self._machine.round is not None:
            raise ControlError("a round is in play: reset the meters between rounds")
        runner = self.runner
        name = name or next(iter(runner.config.pools), None)
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
        await self._hand(PoolAmount(pool.bet, state.current, pool.seed))
        return {"pool": pool.name, "current": state.current}


def _checked_args(cmd: str, known: frozenset[str], handler: Callable[[Request], Any]) -> Any:
    """``handler`` behind a check that the request carries only the arguments ``cmd`` takes."""

    def checked(request: Request) -> Any:
        unknown = sorted(set(request.args) - known)
        if unknown:
            shown = ", ".join(repr(str(u)[:20]) for u in unknown[:5])
            takes = ", ".join(sorted(known)) or "none"
            raise _bad(f"{cmd}: unknown argument(s) {shown} (it takes: {takes})")
        return handler(request)

    return checked
