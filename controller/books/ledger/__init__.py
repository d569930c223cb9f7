"""The ledger: money events, meters, hit history and the hash-chained journal in SQLite."""
