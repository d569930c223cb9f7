"""Everything that touches hardware: serial and USB transports, GPIO seat sensors, lamps and
dealer buttons, the LED sign device. May import ``firmware_bridge`` (codec only)."""
