"""Exceptions of the sign rendering package.

One base class, :class:`DisplayError`; subclasses also inherit the builtin they resemble. The
controller catches them at the boundary (a bad sign state is rejected when it is set, never in
the middle of drawing a frame).
"""


class DisplayError(Exception):
    """Base of every error ``display`` raises on purpose."""


class AmountError(DisplayError, ValueError):
    """An amount cannot be shown: negative, not an integer number of minor units, or an
    unknown currency."""


class SignStateError(DisplayError, ValueError):
    """A sign state is inconsistent (unknown test pattern, a character the sign cannot draw,
    a jackpot scene without its amount...)."""
