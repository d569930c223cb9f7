"""The table controller: configuration, game engine, round state machine, pools and ledger,
control socket and the technician CLI.

Dependencies point one way: ``controller`` may import ``firmware_bridge``, ``drivers`` and
``display``; none of those import ``controller``.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("croupier")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+source"
