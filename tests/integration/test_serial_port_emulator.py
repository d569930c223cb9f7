"""The emulator on a "real" serial port (a tty device opened raw at a baud rate): here the slave
side of a pty pair stands for /dev/ttyUSB0, the test speaks frames on the master side."""

from __future__ import annotations

import os
import random
import select
import termios
import time
import tty

import pytest

from firmware_bridge.emulator.firmware import DeviceFirmware
from firmware_bridge.emulator.machine import ShufflerMachine
from firmware_bridge.emulator.serial_runner import SerialPortEmulator, line_speed
from firmware_bridge.framing import FrameDecoder, encode_frame
from firmware_bridge.messages import IdentifyReply, IdentifyRequest, decode_message


def test_serves_frames_on_a_tty_at_the_line_rate():
    master, slave = os.openpty()
    tty.setraw(master)
    fw = DeviceFirmware(ShufflerMachine(1, rng=random.Random(2)), rng=random.Random(3))
    emulator = SerialPortEmulator(fw, os.ttyname(slave), baud=57600).start()
    try:
        assert termios.tcgetattr(slave)[4] == termios.B57600  # the line set raw at 57600
        os.write(master, encode_frame(1, IdentifyRequest.TYPE, IdentifyRequest(1, 7).encode()))
        decoder, frames, end = FrameDecoder(), [], time.monotonic() + 3
        while not frames and time.monotonic() < end:
            if select.select([master], [], [], 0.1)[0]:
                frames = decoder.feed(os.read(master, 4096))
        reply = decode_message(frames[0].type, frames[0].payload)
        assert isinstance(reply, IdentifyReply) and emulator.slave_path == os.ttyname(slave)
    finally:
        emulator.stop()
        os.close(master)
        os.close(slave)


def test_a_rate_the_tty_layer_lacks_is_refused():
    with pytest.raises(ValueError, match="12345 baud"):
        line_speed(12345)
