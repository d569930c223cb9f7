"""Two standard modules gpiozero imports at once and needs only later, imported at first use.

gpiozero 2.0 imports :mod:`importlib.metadata` for ``entry_points``, which it calls only to
load a pin factory or a mock pin class named in its environment (``GPIOZERO_PIN_FACTORY``,
``GPIOZERO_MOCK_PIN_CLASS``; this product names its factory itself, :mod:`drivers.gpio.
factories`), and :mod:`importlib.resources` for the fonts of its seven-segment displays, which
the table does not use. It asks for each one's backport first (``importlib_metadata``,
``importlib_resources``). Where no backport is installed, :func:`defer_standard_imports`
registers a stand-in under each name whose attributes are the standard module's, imported at
their first use. Importing gpiozero then costs 14 ms less CPU here (58 -> 44 ms with its mock
pins), about 0.12 s at 15% of a core: every hardware command and the daemon's start
(docs/daemon.md, "Fast on a slow CPU"). An installed backport is left alone.
"""

from __future__ import annotations

import importlib
import sys
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType

TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs every command time (controller/cli/main.py)
    from typing import Any

STAND_INS = {
    "importlib_metadata": "importlib.metadata",
    "importlib_resources": "importlib.resources",
}


class DeferredModule(ModuleType):
    """Stands in for a backport: every public attribute is the standard module's."""

    def __init__(self, name: str, standard: str) -> None:
        super().__init__(name, f"{standard}, imported at first use (drivers.gpio)")
        # importlib.util.find_spec(name) answers for a module in sys.modules from its spec
        # (a None spec raises ValueError there)
        self.__spec__ = ModuleSpec(name, None)
        self._standard = standard

    def __getattr__(self, attribute: str) -> Any:
        if attribute.startswith("__"):  # __file__, __path__: a stand-in has none
            raise AttributeError(attribute)
        return getattr(importlib.import_module(self._standard), attribute)


def entry_points(**selection: Any) -> Any:
    """``importlib.metadata.entry_points``, imported when called: gpiozero imports the name at
    its own import (``from importlib_metadata import entry_points``)."""
    from importlib.metadata import entry_points as standard

    return standard(**selection)


def defer_standard_imports() -> None:
    """Register the stand-ins (once; not where a backport is installed or imported)."""
    for backport, standard in STAND_INS.items():
        if backport in sys.modules or PathFinder.find_spec(backport) is not None:
            continue
        stand_in = DeferredModule(backport, standard)
        if backport == "importlib_metadata":
            stand_in.entry_points = entry_points  # type: ignore[attr-defined]
        sys.modules[backport] = stand_in
