"""The linked-pool store as the witness of a table's own ledger (docs/ledger.md, "The witness").

A table with a linked pool already talks to a PostgreSQL store off the table; its
``croupier.ledger_heads`` table (schema version 2) keeps, per ledger ID, the last journal head
the table published. A head is never lowered nor deleted (triggers), so a table that put back an
older copy of its ledger cannot make the store forget what it saw. Same interface as
``controller.books.ledger.witness.HttpWitness``; synchronous (it runs on the publisher's own
thread and once at power-up), one connection, re-opened after a failure.
"""

from __future__ import annotations

from typing import Any

import psycopg

from controller.books.ledger.witness import Head, WitnessError, parse_head


class PgWitness:
    def __init__(self, dsn: str, *, timeout: float = 3.0) -> None:
        self.dsn = dsn
        self.timeout = timeout
        self.url = "the linked-pool store"  # how messages name it (never the DSN: a password)
        self._conn: psycopg.Connection[Any] | None = None

    def _connection(self) -> psycopg.Connection[Any]:
        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(
                self.dsn,
                autocommit=True,
                connect_timeout=max(2, round(self.timeout)),
                application_name="croupier-witness",
                options=f"-c statement_timeout={round(self.timeout * 1000)}",
            )
        return self._conn

    def _run(self, sql: str, params: tuple[Any, ...]) -> Any:
        try:
            return self._connection().execute(sql, params).fetchone()
        except psycopg.Error as exc:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            reason = " ".join(str(exc).split())[:200]
            raise WitnessError(f"witness {self.url} does not answer: {reason}") from None

    def latest(self, ledger_id: str) -> Head | None:
        row = self._run(
            "SELECT seq, hash FROM croupier.ledger_heads WHERE ledger_id = %s", (ledger_id,)
        )
        return None if row is None else parse_head({"seq": row[0], "hash": row[1]}, self.url)

    def publish(self, ledger_id: str, head: Head, table: str) -> None:
        self._run(
            "INSERT INTO croupier.ledger_heads (ledger_id, table_id, seq, hash) "
            "VALUES (%s, %s, %s, %s) ON CONFLICT (ledger_id) DO UPDATE SET "
            "seq = excluded.seq, hash = excluded.hash, updated = now() "
            "WHERE croupier.ledger_heads.seq <= excluded.seq RETURNING seq",
            (ledger_id, table, head.seq, head.hash),
        )

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
