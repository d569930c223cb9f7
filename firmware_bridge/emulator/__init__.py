"""The reference shuffler firmware: the device side of docs/protocol.md, in Python.

- :mod:`.machine`: the physical machine (decks, shuffle, card reader, hand forming, shoe).
- :mod:`.faults`: fault injection settings, switchable at run time.
- :mod:`.firmware`: the protocol side (sans-I/O): framing, duplicate suppression, events.
- :mod:`.pty_runner`: serves the firmware on a pseudo-terminal, paced at a baud rate.
- :mod:`.control`: a Unix-socket JSON-lines channel to switch faults from another process.
- :mod:`.usb_backend`: a pyusb backend that *is* the device, for the USB transport.
"""
