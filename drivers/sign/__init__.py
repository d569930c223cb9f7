"""The LED progressive sign device: MAX7219 chains through luma (see docs/sign.md)."""
