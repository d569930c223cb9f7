"""GPIO: seat bet sensors, seat lamps, dealer console, status lamps (see docs/tableio.md).

- :mod:`~drivers.gpio.pinmap`: the ``[gpio]`` configuration, validated.
- :mod:`~drivers.gpio.core`: the pure state machine (debounce, chatter, stuck, seat states,
  lamps) on an injected clock.
- :mod:`~drivers.gpio.devices`: the gpiozero device of each configured line.
- :mod:`~drivers.gpio.table`: the asyncio adapter over those devices.
- :mod:`~drivers.gpio.factories`: the pin factory chosen by name (auto, lgpio, rpigpio,
  mock, rig); :mod:`~drivers.gpio.board` decides what ``auto`` means on this board.
- :mod:`~drivers.gpio.rig`: the hardware-in-the-loop rig link (factory and rig side).
- :mod:`~drivers.gpio.deferred_imports`: gpiozero imported without two standard modules it
  needs only later (registered here, before any module of this package imports gpiozero).
"""

from drivers.gpio.deferred_imports import defer_standard_imports

defer_standard_imports()
