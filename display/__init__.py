"""What the progressive sign shows, rendered to an image: pure code, no device access.
Imports nothing else of ours.

- :mod:`display.money`: how an amount becomes sign text (the overflow rule).
- :mod:`display.font`, :mod:`display.segments`: the dot-matrix font and the seven-segment code.
- :mod:`display.geometry`: the two sign kinds and how text is laid out on them.
- :mod:`display.odometer`: the roll-up of the meter.
- :mod:`display.scenes`: :class:`~display.scenes.SignRenderer`, state + time -> frame.
- :mod:`display.preview`: a frame drawn as the players see it (PNG).
"""
