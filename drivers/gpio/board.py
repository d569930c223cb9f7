"""Which GPIO backend this board can use: ``pin_factory = "auto"``.

:func:`choose_backend` is pure: it decides from :class:`BoardFacts`, which :func:`board_facts`
reads from the running system (the files gpiozero and the Pi libraries read themselves):

- the board: ``/proc/device-tree/model``, else the ``Model`` line of ``/proc/cpuinfo``;
  gpiozero identifies the board from ``/proc/device-tree/system/linux,revision`` or the
  ``Revision`` line of ``/proc/cpuinfo`` (:func:`gpiozero.pins.local.get_pi_revision`).
  ``/sys/firmware/devicetree/base/model`` is the same device tree seen through ``/sys``: when
  only it is readable, ``/proc`` is filtered (``ProcSubset=pid`` in a unit) and gpiozero cannot
  identify the board although this *is* a Pi;
- the GPIO character devices ``/dev/gpiochip*`` (what lgpio opens);
- which backend libraries are installed (found, not imported: ``import RPi.GPIO`` raises off a
  Pi) and the kernel release.

The rules, in order:

1. no Raspberry Pi model anywhere: not a Pi; the mock or rig pins are the way;
2. a Pi whose model gpiozero cannot read: say what hides it;
3. lgpio installed and a gpiochip present: ``lgpio`` (every Pi, kernel 4.8 and later, and the
   only one that drives the Pi 5's RP1 chip);
4. RPi.GPIO installed, not a Pi 5, kernel before 6.6: ``rpigpio``. RPi.GPIO 0.7.1 (the newest
   release) detects edges through ``/sys/class/gpio``, whose GPIO numbers moved in Pi OS
   kernel 6.6 ("Failed to add edge detection");
5. otherwise: no usable backend, and what to install.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
from dataclasses import dataclass
from pathlib import Path

from drivers.errors import PinFactoryError

OFF_PI_HINT = 'off a Pi use pin_factory = "mock" or "rig" (--pin-factory mock|rig)'
RPIGPIO_LAST_KERNEL = (6, 5)  # RPi.GPIO 0.7.1's sysfs edge detection breaks from 6.6 on


@dataclass(frozen=True)
class BoardFacts:
    """What :func:`choose_backend` decides from."""

    model: str | None  # as gpiozero's sources show it; None: not readable there
    hidden_model: str | None  # the model read through /sys when /proc does not show it
    gpiochips: tuple[str, ...]
    has_lgpio: bool
    has_rpigpio: bool
    kernel: tuple[int, int]

    @property
    def is_pi(self) -> bool:
        return any("Raspberry Pi" in (m or "") for m in (self.model, self.hidden_model))

    @property
    def is_pi5(self) -> bool:
        return any("Raspberry Pi 5" in (m or "") for m in (self.model, self.hidden_model))


def choose_backend(facts: BoardFacts) -> str:
    """The pin factory name for ``auto`` (``lgpio`` or ``rpigpio``). Raises
    :class:`PinFactoryError` saying what to do when none can run here."""
    if not facts.is_pi:
        raise PinFactoryError(f"this machine is not a Raspberry Pi; {OFF_PI_HINT}")
    if facts.model is None:
        raise PinFactoryError(
            f"this {facts.hidden_model} hides /proc/cpuinfo and /proc/device-tree from the"
            " daemon (ProcSubset=pid in its unit?): gpiozero cannot identify the board;"
            " remove ProcSubset=pid (docs/install.md)"
        )
    if facts.has_lgpio and facts.gpiochips:
        return "lgpio"
    if facts.has_rpigpio and rpigpio_works(facts):
        return "rpigpio"
    if facts.has_lgpio:
        raise PinFactoryError(
            f"no /dev/gpiochip* on this {facts.model}: is the device hidden"
            " (DevicePolicy/DeviceAllow=char-gpiochip) or the kernel older than 4.8?"
        )
    raise PinFactoryError(
        f"no GPIO library for this {facts.model}: install lgpio into the daemon's venv"
        " (pip install '.[pi]', needs gcc and python3-dev: systemd/install.sh does it)"
    )


def rpigpio_works(facts: BoardFacts) -> bool:
    """RPi.GPIO 0.7.1 drives a Pi up to the 4 on kernels before 6.6 (see the module header)."""
    return facts.is_pi and not facts.is_pi5 and facts.kernel <= RPIGPIO_LAST_KERNEL


def rpigpio_problem(facts: BoardFacts) -> str:
    """Why RPi.GPIO cannot run on this board, as a technician reads it."""
    if not facts.is_pi:
        return f"this machine is not a Raspberry Pi; {OFF_PI_HINT}"
    if facts.is_pi5:
        return 'RPi.GPIO cannot drive the Pi 5\'s RP1 chip: use pin_factory = "auto" (lgpio)'
    if facts.kernel > RPIGPIO_LAST_KERNEL:
        kernel = ".".join(map(str, facts.kernel))
        return (
            f"RPi.GPIO 0.7.1 cannot detect edges on kernel {kernel} (6.6 and later moved the"
            ' sysfs GPIO numbers): use pin_factory = "auto" (lgpio)'
        )
    return "use pin_factory = \"auto\" (lgpio) or install RPi.GPIO (pip install '.[pi]')"


def _read(path: str) -> str | None:
    try:
        return Path(path).read_bytes().rstrip(b"\0\n").decode("ascii", "replace").strip()
    except OSError:
        return None


def _cpuinfo_model(text: str | None) -> str | None:
    for line in (text or "").splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "Model" and value.strip():
            return value.strip()
    return None


def _kernel(release: str) -> tuple[int, int]:
    match = re.match(r"(\d+)\.(\d+)", release)
    return (int(match.group(1)), int(match.group(2))) if match else (0, 0)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def board_facts() -> BoardFacts:
    """Read :class:`BoardFacts` from this system (files only; imports nothing)."""
    model = _read("/proc/device-tree/model") or _cpuinfo_model(_read("/proc/cpuinfo"))
    hidden = None if model else _read("/sys/firmware/devicetree/base/model")
    return BoardFacts(
        model=model,
        hidden_model=hidden,
        gpiochips=tuple(sorted(glob.glob("/dev/gpiochip*"))),
        has_lgpio=_installed("lgpio"),
        has_rpigpio=_installed("RPi.GPIO"),
        kernel=_kernel(os.uname().release),
    )
