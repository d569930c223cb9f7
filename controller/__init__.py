"""The table controller, in five rooms that each import only from the rooms before it:
``engine`` (pure rules) < ``books`` (money records) < ``table`` (the daemon) < ``cli`` and
``rig``; ``errors`` and ``validation`` are the shared base (DESIGN.md).

Dependencies point one way: ``controller`` may import ``firmware_bridge``, ``drivers`` and
``display``; none of those import ``controller``.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # for the type checker only: importing typing costs every command time
    from typing import Any


def __getattr__(name: str) -> Any:
    """``controller.__version__``, read from the installed metadata on first use only:
    importlib.metadata pulls in email and socket, which the pure engine and a quick
    ``croupier --version`` should not pay for."""
    if name != "__version__":
        raise AttributeError(f"module 'controller' has no attribute {name!r}")
    found = _version_from_dist_info()
    if found is None:  # an unusual installation: ask importlib.metadata (~100 modules)
        from importlib.metadata import PackageNotFoundError, version

        try:
            found = version("croupier")
        except PackageNotFoundError:  # a source tree that was never installed
            found = "0.0.0+source"
    globals()["__version__"] = found
    return found


def _version_from_dist_info() -> str | None:
    """The ``Version:`` of the ``croupier-*.dist-info`` on ``sys.path``, read directly: what
    ``importlib.metadata`` finds, without its imports (``croupier --version`` on a Pi)."""
    import os
    import sys

    for entry in sys.path:
        try:
            names = [n for n in os.listdir(entry or ".") if n.startswith("croupier-")]
        except OSError:
            continue
        for dist in names:
            if dist.endswith(".dist-info"):
                try:
                    with open(os.path.join(entry, dist, "METADATA"), encoding="utf-8") as f:
                        for line in f:
                            if line.startswith("Version:"):
                                return line.split(":", 1)[1].strip()
                except OSError:
                    continue
    return None
