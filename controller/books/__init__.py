"""The money records: the SQLite ledger and its journal, linked pools on PostgreSQL, the
shuffle audit and the surveillance store. Imports from controller.engine, never from the
table, the CLI or the rig."""
