"""The pure rules: cards, pay tables, rule profiles, poker evaluation, the games, the deal
validator and the pool rules. Nothing here does I/O (no sqlite3, asyncio, serial, usb,
gpiozero, luma, psycopg); tests/unit/test_layers.py holds the room to that."""
