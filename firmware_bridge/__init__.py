"""The shuffler link: wire protocol (sans-I/O), message set, session, and the reference
shuffler emulator. Imports nothing else of ours."""
