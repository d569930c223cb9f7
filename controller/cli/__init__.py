"""The technician CLI ``croupier``: ``main(argv) -> int``, one module per command group."""
