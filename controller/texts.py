"""The free texts a person gives the table to keep: a technician's name, a reason, a misdeal's
account. One rule for the daemon, which checks every text of a control request
(controller.table.commands), and for the CLI, which checks ``--technician`` and ``--reason``
when it reads its command line (controller.cli.argtypes), so that ``croupier meters correct``
writing the ledger itself journals only what the daemon would: a text that is not blank, of
at most :data:`MAX_TEXT` printable characters (no line break, no terminal escape: the journal
is read on terminals and in reports).

It imports nothing: the CLI's quick paths check a ``--technician`` with it (controller.cli.quick).
:func:`escaped` is how a message shows text it quotes from outside (an argument, a file).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # nothing imported at run time: the CLI's quick paths use this module
    from collections.abc import Iterable

MAX_TEXT = 200  # characters of a reason, a technician's name, a destination


def text_problem(value: object) -> str | None:
    """What is wrong with ``value`` as a kept text, as a message's end (``'reason' ...``,
    ``argument --reason: ...``); ``None`` when it is one. The text kept is ``value.strip()``."""
    if not isinstance(value, str) or not value.strip():
        return "must be a text, not empty"
    if len(value) > MAX_TEXT or not value.isprintable():
        return f"must be at most {MAX_TEXT} printable characters"
    return None


def suggestion(word: str, known: Iterable[str]) -> str:
    """``"; did you mean ante?"`` for ``antee``: the closest of ``known`` (difflib, as
    argparse's choices are suggested), or ``""`` when none is close."""
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def escaped(text: str) -> str:
    """``text`` as a terminal shows it as written: each character that is not printable (an
    escape sequence, a newline, a bidirectional control) as its Python escape (``\\x1b``)."""
    if text.isprintable():
        return text
    return "".join(
        c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in text
    )


LONGEST_WORD = 256  # a longer word of an error message is shortened (a pasted 10 kB value;
# a path is shorter, as a rule)


def shortened(message: str) -> str:
    """``message`` as one line a terminal shows as written: each character that is not
    printable (an escape sequence, a newline, a bidirectional control, from a file or an
    argument the message quotes) as its Python escape (``\\x1b``), and each word longer than
    :data:`LONGEST_WORD` cut to its start and its length: an error names the value, it does
    not repeat ten thousand characters of it."""
    message = escaped(message)
    words = message.split(" ")
    if all(len(word) <= LONGEST_WORD for word in words):
        return message
    return " ".join(
        word if len(word) <= LONGEST_WORD else f"{word[:60]}...({len(word):,} characters)"
        for word in words
    )


def pool_title(pool: str, wager: str | None) -> str:
    """``pool main (progressive wager)``: a pool by the name ``croupier meters`` and
    ``--pool`` take (the ledger's, ``[pools.NAME]``), with the wager a player stakes on to
    feed it when that name differs (the table's ``pool_wagers``: status, the CLI, the demo)."""
    return f"pool {pool}" + (f" ({wager} wager)" if wager and wager != pool else "")


def pool_of_wager(wager: str, pool_wagers: dict[str, str] | None) -> str:
    """The title of the pool a settlement or a round record names by its ``wager``
    (``progressive``): ``pool main (progressive wager)`` with the table's ``pool_wagers``
    (pool name -> wager), ``pool (progressive wager)`` where they are not known (a round file
    settled away from its table, an older daemon)."""
    for name, fed_by in (pool_wagers or {}).items():
        if fed_by == wager:
            return pool_title(name, wager)
    return f"pool ({wager} wager)"
