"""The table: round state machine and its events (pure)."""
