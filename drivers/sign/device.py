"""The sign device: a MAX7219 chain through luma, or luma's stand-ins off the Pi.

:func:`open_sign_device` builds, from the ``[sign]`` configuration:

=========  ===========================================================================
backend    device
=========  ===========================================================================
spi        ``luma.led_matrix.device.max7219`` on ``luma.core.interface.serial.spi``
           (spidev, ``/dev/spidev<port>.<device>``): the real sign
dummy      ``luma.core.device.dummy``: keeps the last image (tests, dry runs)
capture    ``luma.emulator``: an animated GIF (``capture = "x.gif"``) or numbered PNGs
           (``capture = "dir"``), drawn by luma's LED-matrix / seven-segment emulation
=========  ===========================================================================

A ``seven-segment`` sign goes through ``luma.core.virtual.sevensegment`` (one 8x8 register
image holds 8 digits); the text it is given is already right-aligned by the renderer (luma
would left-align it). A ``matrix`` sign takes 1-bit images.

:class:`SignDevice` sends a frame only when it differs from the last one sent and sets the
MAX7219 intensity only when the level changes; it counts frames and bus bytes (the figures
``bench/sign.py`` reports). :class:`RecordingSpi` stands in for spidev and records the exact
bytes that would go on the wire (the device tests' oracle).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from PIL import Image

from drivers.errors import SignDeviceError
from drivers.sign.config import SignConfig


class RecordingSpi:
    """A spidev ``SpiDev`` look-alike that records every transfer instead of sending it."""

    def __init__(self) -> None:
        self.transfers: list[bytes] = []
        self.max_speed_hz = 0
        self.mode = 0
        self.opened: tuple[int, int] | None = None

    def open(self, port: int, device: int) -> None:
        self.opened = (port, device)

    def writebytes(self, data: Any) -> None:
        self.transfers.append(bytes(data))

    def close(self) -> None:
        self.opened = None

    @property
    def byte_count(self) -> int:
        return sum(len(t) for t in self.transfers)


class SignDevice:
    """A luma device (and, for seven segments, its ``sevensegment`` wrapper) that only sends
    what changed."""

    def __init__(
        self, config: SignConfig, device: Any, spi: RecordingSpi | Any | None = None
    ) -> None:
        self.config = config
        self.device = device
        self.spi = spi
        self.frames_sent = 0
        self._last: object = None
        self._level: int | None = None
        self._segments: Any = None
        if config.kind == "seven-segment":
            from luma.core.virtual import sevensegment
            from luma.led_matrix.segment_mapper import dot_muncher

            self._segments = sevensegment(device, segment_mapper=dot_muncher)
        self.set_brightness(config.brightness)

    def show(
        self, *, text: str | None = None, image: Image.Image | None = None, level: int | None = None
    ) -> bool:
        """Show seven-segment ``text`` or a matrix ``image`` (mode "1", ``width`` x 8) at
        brightness ``level`` (``None``: the configured one). Returns False when nothing
        changed (nothing was sent)."""
        needs = "text" if self._segments is not None else "an image"
        content = text if self._segments is not None else image and image.tobytes()
        if content is None:
            raise SignDeviceError(f"a {self.config.kind} sign needs {needs}")
        self.set_brightness(self.config.brightness if level is None else level)
        if content == self._last:
            return False
        self._last = content
        try:
            if self._segments is not None:
                self._segments.text = text
            else:
                self.device.display(image)
        except OverflowError as exc:
            raise SignDeviceError(f"the sign has {self.config.width} digits: {exc}") from exc
        self.frames_sent += 1
        return True

    def invalidate(self) -> None:
        """Forget what the sign shows: the next frame is sent even if unchanged (after the
        sign was power-cycled, or to measure the device path)."""
        self._last = None

    def set_brightness(self, level: int) -> None:
        """MAX7219 intensity 0..15 (luma's contrast 0..255 keeps the top four bits)."""
        if level != self._level:
            self.device.contrast(level * 17)
            self._level = level

    def close(self) -> None:
        """Release the device. A gifanim capture writes its file now."""
        write = getattr(self.device, "write_animation", None)
        if write is not None:
            write()
            self.device._images.clear()  # luma writes again at exit otherwise
        if not getattr(self.device, "persist", False):
            self.device.cleanup()


def open_sign_device(config: SignConfig, *, spi: Any = None, persist: bool = False) -> SignDevice:
    """The device for ``config``. ``spi`` replaces spidev (a :class:`RecordingSpi` in tests);
    ``persist`` leaves the last frame on the sign when the program ends (luma blanks it
    otherwise). Raises :class:`SignDeviceError` with what to do."""
    if config.backend == "spi":
        device = _max7219(config, spi)
    elif config.backend == "dummy":
        from luma.core.device import dummy

        device = dummy(width=config.width, height=8, mode="1")
    else:
        device = _emulator(config)
    device.persist = persist
    return SignDevice(config, device, spi)


def _max7219(config: SignConfig, spi: Any) -> Any:
    from luma.core.error import DeviceNotFoundError
    from luma.core.interface.serial import noop
    from luma.core.interface.serial import spi as luma_spi
    from luma.led_matrix.device import max7219

    node = f"/dev/spidev{config.spi_port}.{config.spi_device}"
    try:
        serial = luma_spi(
            spi=spi,
            gpio=noop(),
            port=config.spi_port,
            device=config.spi_device,
            bus_speed_hz=config.spi_speed_hz,
        )
    except ImportError as exc:
        raise SignDeviceError(
            f"spidev is not installed ({exc}): pip install '.[pi]' on the Pi"
        ) from exc
    except DeviceNotFoundError as exc:
        raise SignDeviceError(
            f"{node} not found: enable SPI (raspi-config), or use sign backend dummy/capture"
        ) from exc
    except PermissionError as exc:
        raise SignDeviceError(
            f"{node}: permission denied: add the daemon's user to the spi group"
        ) from exc
    if config.kind == "matrix":
        return max7219(
            serial,
            cascaded=config.cascaded,
            block_orientation=config.block_orientation,
            rotate=config.rotate,
            blocks_arranged_in_reverse_order=config.reverse_blocks,
        )
    return max7219(serial, cascaded=config.cascaded, rotate=config.rotate)


def _emulator(config: SignConfig) -> Any:
    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")  # headless
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        from luma.emulator.device import capture, gifanim
    except ImportError as exc:
        raise SignDeviceError(
            f"luma.emulator is not installed ({exc}): pip install '.[emulator]'"
        ) from exc
    transform = "led_matrix" if config.kind == "matrix" else "seven_segment"
    size: dict[str, Any] = {
        "width": config.width,
        "height": 8,
        "mode": "1",
        "transform": transform,
        "scale": 2,
    }
    path = Path(config.capture)
    try:  # as --capture: a .gif in a folder that exists, or a folder made in one that does
        if path.suffix.lower() == ".gif":
            if not path.parent.is_dir():
                raise FileNotFoundError(f"no folder {path.parent}")
            return gifanim(filename=str(path), duration=1 / config.frame_rate, **size)
        path.mkdir(exist_ok=True)
        return capture(file_template=str(path / "sign_{0:06}.png"), **size)
    except (OSError, RuntimeError) as exc:
        raise SignDeviceError(f"cannot capture the sign to {path}: {exc}") from exc
