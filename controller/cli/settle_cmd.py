"""``croupier settle ROUND.json``: settle a recorded round (also the surveillance tool for a
disputed round). The round names its profile; formats in docs/settle.md."""

from __future__ import annotations

import argparse

from controller.cli.argtypes import UsageError, input_file
from controller.cli.main import add_command
from controller.cli.output import add_json_errors, add_json_flag, print_json
from controller.cli.paths import REPORT_PUBLIC_KEY
from controller.errors import CroupierError, RoundError
from display.money import currency, format_money

TYPE_CHECKING = False
if TYPE_CHECKING:  # the engine is imported by the command, not by its parser (--help)
    from pathlib import Path
    from typing import Any

    from controller.engine.games.results import RoundResult
    from display.money import Currency

EXAMPLES = {
    "settle": [
        "croupier settle examples/uth-gr-royal.json",
        "croupier settle - --profile uth-it < round.json",
    ],
}


def register(sub: argparse._SubParsersAction) -> None:
    p = add_command(sub, "settle")
    p.add_argument(
        "round", type=input_file, metavar="ROUND.json", help="the recorded round (- for stdin)"
    )
    p.add_argument("--profile", help="profile name or file (default: the round's 'profile')")
    p.add_argument(
        "--public-key",
        type=input_file,
        default=REPORT_PUBLIC_KEY,
        help="for an evidence bundle: the table's public key; a bundle it verifies is settled"
        f" as the table's own record (default {REPORT_PUBLIC_KEY})",
    )
    add_json_flag(p)
    add_json_errors(p)
    p.set_defaults(func=run)


def read_round(path: str | Path) -> dict[str, Any]:
    """A round file (``-``: standard input) through the checked reader: size, depth and
    numbers bounded (controller.validation.DOCUMENT_LIMITS), strictly UTF-8."""
    from controller.validation import ConfigError, read_json

    try:
        data = read_json(path)
    except ConfigError as exc:
        key, reason = exc.problems[0]
        if key == "(file)":
            raise RoundError(f"cannot read {exc.source}: {reason}") from None
        raise RoundError(f"{exc.source}: {key}: {reason}") from None
    if not isinstance(data, dict):
        raise RoundError(f"{path}: a round is a JSON object")
    return data


def _unsigned(bundle: dict[str, Any], args: argparse.Namespace) -> str | None:
    """Why the table's public key does not verify ``bundle`` (None: it does). A bundle it
    does not verify is settled as a round file, every check applied: anyone can write one."""
    from controller.books.reports.signing import SignatureError, load_public, verify_signed

    try:
        verify_signed(bundle, load_public(args.public_key))
    except (SignatureError, CroupierError) as exc:
        return str(exc)
    return None


def run(args: argparse.Namespace) -> int:
    from controller.cli.evidence_cmd import round_from_bundle
    from controller.engine.games import settle
    from controller.engine.profiles import load_profile
    from controller.validation import ConfigError

    data = raw = read_round(args.round)
    bundled = round_from_bundle(data)  # a jackpot evidence bundle (docs/evidence.md)
    data = bundled or data
    name = data.get("profile") if args.profile is None else args.profile  # '' is refused
    if name is None:
        raise RoundError('the round names no profile; add "profile" or pass --profile')
    if not isinstance(name, str):
        raise RoundError(f"profile: a profile's name (text, like 'uth-gr'), not {name!r}")
    try:
        profile = load_profile(name)
    except ConfigError as exc:
        if args.profile is not None:  # named on the command line: a usage error, as par's
            raise UsageError(str(exc)) from exc
        raise
    # a bundle the table signed holds its own record: its live pool is settled as it stood
    unsigned = _unsigned(raw, args) if bundled is not None else None
    cur = currency(profile.money.currency)
    try:
        result = settle(profile, data, table_record=bundled is not None and unsigned is None)
    except RoundError as error:
        # a person reads the refusal's amounts as money ("ante EUR 80.00 is above the table
        # maximum EUR 50.00"); --json keeps minor units, as its amounts do
        exc = error if args.json else error.written(lambda a: format_money(a, cur))
        if unsigned is None:
            raise exc from None
        message = str(exc).removesuffix(f" ({exc.rule})") if exc.rule else str(exc)
        why = f"{message}; settled as a round file, not the table's own record: {unsigned}"
        raise RoundError(why, exc.rule) from None
    rules = rules_compared(raw["report"], profile) if bundled is not None else None
    if args.json:
        extra = {} if rules is None else {"rules": rules}
        print_json({**result.to_json(), "currency": cur.code, "minor_units": cur.exponent, **extra})
    else:
        print_human(result, cur)
        if rules is not None:
            print(rules_line(rules))
    return 0


def rules_compared(bundle: dict[str, Any], profile: Any) -> dict[str, Any]:
    """A bundle's rules (the journal's ``rules.changed`` in force at the round, docs/ledger.md)
    beside the profile file settling it here: ``same_profile`` when that file has the digest
    the table journaled (None: the bundle names no rules, a round before they were
    journaled)."""
    played = bundle.get("rules") if isinstance(bundle.get("rules"), dict) else None
    journaled = played.get("profile") if played else None
    same = journaled.get("sha256") == profile.sha256 if isinstance(journaled, dict) else None
    here = {"name": profile.name, "version": profile.version, "file": profile.path}
    return {
        "played": played,
        "settled_with": {**here, "sha256": profile.sha256},
        "same_profile": same,
    }


def rules_line(rules: dict[str, Any]) -> str:
    """One line for the terminal; what the bundle says is shown escaped (anyone can write one)."""
    from controller.books.reports.signing import shown
    from controller.texts import escaped

    here = rules["settled_with"]
    settled = f"settled here with {escaped(here['file'])} (sha256 {here['sha256'][:16]})"
    if rules["same_profile"] is None:
        return f"rules: the bundle names none (a round before the table journaled them); {settled}"
    played = rules["played"]
    p = played["profile"]
    line = (
        f"rules {shown(str(played.get('rules_sha256'))[:16])}: the table played "
        f"{shown(p.get('name'))} version {shown(p.get('version'))} ({shown(p.get('origin'))} "
        f"{escaped(str(p.get('file')))}, sha256 {shown(str(p.get('sha256'))[:16])}); {settled}"
    )
    if rules["same_profile"]:
        return line + ": the same file"
    return line + ": ANOTHER FILE, this settlement may differ from the table's"


def print_human(
    result: RoundResult, cur: Currency, pool_wagers: dict[str, str] | None = None
) -> None:
    """The settlement for a person, every amount as money. A settlement keeps its pool by
    the wager that feeds it (``progressive``); ``pool_wagers`` (the table's: pool name ->
    wager) names the pool as ``croupier meters`` does (``pool main (progressive wager)``).
    Without it (a round file settled away from its table) the pool is named by its wager."""
    from controller.engine.wagers import CAP_RULE
    from controller.texts import pool_of_wager

    def _money(amount: int) -> str:
        return format_money(amount, cur)  # "EUR 40.00": money as money on every line

    dealer = result.dealer
    line = f"dealer: {dealer.get('hand')}"
    if "cards" in dealer:
        line += f" ({' '.join(dealer['cards'])})"
    if "qualifies" in dealer:
        line += ", qualifies" if dealer["qualifies"] else ", does not qualify"
    print(f"profile {result.profile}  {line}")
    for seat in result.seats:
        cards = f" ({' '.join(seat.cards)})" if seat.cards else ""
        print(f"seat {seat.seat}: {seat.hand}{cards}")
        for hand in seat.extra.get("hands", [])[1:]:  # blackjack split hands
            print(f"  {hand['wager']}: {hand['hand']} ({' '.join(hand['cards'])})")
        for name, w in seat.wagers.items():
            line_txt = f" [{w.line}]" if w.line else ""
            print(
                f"  {name:<14} stake {_money(w.stake):>14}  {w.result:<4}  paid"
                f" {_money(w.paid):>14}  {w.rule}{line_txt}"
            )
            if w.returned:
                print(
                    f"  {'':<14} {_money(w.returned)} over the table maximum returned ({CAP_RULE})"
                )
        print(
            f"  {'total':<14} stake {_money(seat.staked):>14}        paid {_money(seat.paid):>14}"
        )
    for pool, report in result.pools.items():
        parts = ", ".join(
            f"{k} {_money(v) if isinstance(v, int) else v}" for k, v in report.items()
        )
        print(f"{pool_of_wager(pool, pool_wagers)}: {parts}")
