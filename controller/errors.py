"""Exceptions of the controller.

One base class, :class:`CroupierError`; each subclass also inherits the builtin it resembles
(as gpiozero does), so ``except ValueError`` still catches a bad card. Messages are written for
a technician: they name the card, key, file or rule and say what is wrong.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # every command imports this module: typing only for the type checker
    from collections.abc import Callable


class CroupierError(Exception):
    """Base of every error the controller raises on purpose."""


class CardError(CroupierError, ValueError):
    """A card string or a set of cards is not acceptable (unknown rank/suit, duplicate,
    wrong count)."""

    rule = "POK-1"  # one deck of 52 cards: ranks 2..A, four suits


class ProfileError(CroupierError, ValueError):
    """A rule profile is malformed. Carries the file, the key and the reason."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        super().__init__(f"{source}: {key}: {reason}")


class RoundError(CroupierError, ValueError):
    """A recorded round cannot be settled as given (illegal decision, missing stake, a card
    dealt twice...). ``rule`` names the RULES.md rule that forbids it.

    A message that names amounts of money writes them as ``{name}`` fields with the amounts
    (minor units) in ``amounts``: ``str()`` shows them as integers (the engine has no money
    formatting; the journal and ``--json`` keep minor units), and where a person reads it
    the CLI or the daemon writes them as money with :meth:`shown`
    (``shown(lambda a: format_money(a, cur))``: "ante EUR 80.00 is above the table maximum
    EUR 50.00")."""

    def __init__(
        self, message: str, rule: str | None = None, *, amounts: dict[str, int] | None = None
    ) -> None:
        self.rule = rule
        self.template = message
        self.amounts = dict(amounts or {})
        text = message
        for name, amount in self.amounts.items():
            text = text.replace(f"{{{name}}}", str(amount))
        super().__init__(f"{text} ({rule})" if rule else text)

    def shown(self, money: Callable[[int], str]) -> str:
        """The message with its amounts written by ``money``, and its rule."""
        return str(self.written(money))

    def written(self, money: Callable[[int], str]) -> RoundError:
        """The same refusal (same class and rule) with its amounts written by ``money``:
        what a command raises for a person to read."""
        text = self.template
        for name, amount in self.amounts.items():  # not str.format: a wager named in the
            text = text.replace(f"{{{name}}}", money(amount))  # message may hold braces
        return type(self)(text, self.rule)


class ParError(CroupierError, ValueError):
    """A PAR sheet cannot be computed as asked (an option the game does not have, such as a
    deck count for a one-deck game)."""


class WagerNotOffered(RoundError):
    """A stake on a wager the profile does not offer (a progressive stake at a table without
    a progressive pool, UTH-2, CH-2; an unknown wager). Refused, never dropped."""


class ProcedureNotOffered(RoundError):
    """A procedure the profile's rules do not have (``no-play``, MD-X4, outside the Italian
    rules). Refused, naming the rule and the profile, never applied."""


class StakeNotWholeChips(RoundError):
    """A stake that is not a whole number of the profile's chips (``[money] chip_unit``): a
    player stakes chips, and a fraction of a chip would have its even-money win rounded below
    1:1. Refused, naming the wager and the chip unit."""


class StakeBelowMinimum(RoundError):
    """A stake below the table minimum of its wager (BJ-1, TRX-1, UTH-2, CH-2). A stake above
    the maximum is capped and the excess returned, or refused with :class:`StakeAboveMaximum`
    where the profile says ``over_maximum = "refuse"`` (:mod:`controller.engine.wagers`)."""


class StakeAboveMaximum(RoundError):
    """A stake above the table maximum of its wager where the profile refuses it
    (``[rules] over_maximum = "refuse"``, BJ-1 [interpretation]): refused as a whole, naming
    the seat, the wager and the maximum; under the default ``"cap"`` it is no error."""
