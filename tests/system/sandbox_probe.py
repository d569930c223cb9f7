"""What the GPIO backends and the host checks read, as seen by whoever runs this: printed as
JSON. tests/system/test_unit_boot.py runs it under the unit's sandbox and without one and
compares. Run by the container's venv (it imports the project from /opt/croupier/src)."""

from __future__ import annotations

import asyncio
import glob
import hashlib
import json
import os
from dataclasses import asdict

from controller.table.host_checks import probe_clock
from drivers.gpio.board import board_facts

# what gpiozero (pins/local.py get_pi_revision, pins/pi.py), lgpio, RPi.GPIO and spidev read
BOARD_FILES = (
    "/proc/cpuinfo",
    "/proc/device-tree/model",
    "/proc/device-tree/system/linux,revision",
    "/proc/device-tree/soc/ranges",
    "/sys/firmware/devicetree/base/model",
)
DEVICES = ("/dev/gpiochip*", "/dev/gpiomem*", "/dev/spidev*", "/dev/ttyAMA*", "/dev/serial*")


def read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return "sha256:" + hashlib.sha256(f.read()).hexdigest()[:16]
    except OSError as exc:
        return f"error:{exc.strerror}"


def gpiozero_revision() -> str:
    from gpiozero.pins.local import get_pi_revision

    try:
        return f"revision:{get_pi_revision():x}"
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def writable(directory: str | None) -> str:
    if not directory:
        return "unset"
    path = os.path.join(directory, f".probe-{os.getpid()}")
    try:
        with open(path, "w"):
            pass
        os.unlink(path)
        return "writable"
    except OSError as exc:
        return f"error:{exc.strerror}"


def main() -> None:
    clock = asyncio.run(probe_clock())
    print(
        json.dumps(
            {
                "files": {path: read(path) for path in BOARD_FILES},
                "devices": {pattern: sorted(glob.glob(pattern)) for pattern in DEVICES},
                "gpiozero": gpiozero_revision(),
                "board": asdict(board_facts()),
                "lg_wd": writable(os.environ.get("LG_WD")),
                "cwd": writable(os.getcwd()),
                "clock": [clock.synchronised, clock.source],
            }
        )
    )


if __name__ == "__main__":
    main()
