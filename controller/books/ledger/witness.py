"""The journal head published to a witness off the table, so a rollback is detected.

An older copy of the ledger put back (a backup restored, an SD card swapped) is consistent in
itself: every seal, the chain and the replay verify. What it cannot match is the journal head
someone outside the table has already seen. The daemon publishes its head (sequence number and
hash of the last entry) after every commit to a **witness**; at power-up it asks the witness
for the last head it saw and compares (:func:`head_problems`): a ledger that ends before that
entry, or holds a different entry there, is a rollback or a replacement, and the table stays
closed.

A witness is an HTTP endpoint (:class:`HttpWitness`; docs/ledger.md, "The witness") or, on a
table with a linked pool, the linked-pool store (``controller.books.linked.witness``):

- ``PUT {url}/heads/{ledger_id}`` with ``{"seq": N, "hash": H, "table": ID}``: the witness
  keeps the head with the highest ``seq`` (it refuses a lower one with 409);
- ``GET {url}/heads/{ledger_id}``: ``{"seq": N, "hash": H}``, or 404 when it knows no head.

Every field of an answer is checked here (the witness is across a trust boundary). Publishing
runs on its own thread (:class:`HeadPublisher`), never on the ledger's: a slow or absent witness
delays no round; the latest head wins and is retried until it gets through.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from dataclasses import dataclass
from typing import Any, Protocol

from controller.books.ledger.errors import LedgerError
from controller.books.ledger.reader import LedgerView

log = logging.getLogger(__name__)

HASH = re.compile(r"^[0-9a-f]{64}\Z")
MAX_SEQ = 2**63 - 1
TIMEOUT = 3.0  # seconds for one request to the witness
MAX_ANSWER = 4096  # bytes read from a witness answer


class WitnessError(LedgerError):
    """The witness does not answer, or answers something that is not a head."""


@dataclass(frozen=True)
class Head:
    seq: int
    hash: str


class Witness(Protocol):
    """What a witness does (HTTP here; the linked-pool store: ``books.linked.witness``)."""

    url: str  # how messages name it
    timeout: float

    def latest(self, ledger_id: str) -> Head | None: ...

    def publish(self, ledger_id: str, head: Head, table: str) -> None: ...

    def close(self) -> None: ...


def parse_head(data: Any, where: str) -> Head:
    """A head from a witness's answer, every field checked (WitnessError)."""
    if not isinstance(data, dict):
        raise WitnessError(f"{where}: the answer is not a JSON object")
    seq, digest = data.get("seq"), data.get("hash")
    if isinstance(seq, bool) or not isinstance(seq, int) or not 0 <= seq <= MAX_SEQ:
        raise WitnessError(f"{where}: seq must be an integer 0..{MAX_SEQ}, got {seq!r}")
    if not isinstance(digest, str) or not HASH.match(digest):
        raise WitnessError(f"{where}: hash must be 64 lowercase hex digits")
    return Head(seq, digest)


class HttpWitness:
    """A witness over HTTP (see the module docstring)."""

    def __init__(self, url: str, *, timeout: float = TIMEOUT) -> None:
        self.url = url.rstrip("/")
        self.timeout = timeout

    def _call(self, method: str, ledger_id: str, body: dict[str, Any] | None = None) -> Any:
        import urllib.error  # here: a table without a witness never loads HTTP (start-up)
        import urllib.request

        where = f"witness {self.url}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            f"{self.url}/heads/{ledger_id}",
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                text = answer.read(MAX_ANSWER + 1)
        except urllib.error.HTTPError as exc:
            if exc.code == 404 and method == "GET":
                return None
            raise WitnessError(f"{where}: {method} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise WitnessError(f"{where} does not answer: {reason}") from None
        if len(text) > MAX_ANSWER:
            raise WitnessError(f"{where}: the answer is longer than {MAX_ANSWER} bytes")
        if not text:
            return {}
        try:
            return json.loads(text)
        except (ValueError, RecursionError):
            raise WitnessError(f"{where}: the answer is not JSON") from None

    def latest(self, ledger_id: str) -> Head | None:
        data = self._call("GET", ledger_id)
        return None if data is None else parse_head(data, f"witness {self.url}")

    def publish(self, ledger_id: str, head: Head, table: str) -> None:
        self._call("PUT", ledger_id, {"seq": head.seq, "hash": head.hash, "table": table})

    def close(self) -> None:
        """Nothing held between requests."""


def ledger_id(view: LedgerView) -> str:
    """The ledger's identity: the random ID of its ``ledger.created`` entry."""
    first = next(view.journal.entries(start=1), None)
    if first is None or first.kind != "ledger.created":
        raise LedgerError(f"{view.db.path}: the journal does not start with ledger.created")
    return str(first.data.get("ledger_id"))


def head_problems(view: LedgerView, seen: Head | None) -> list[str]:
    """Why this ledger cannot be the one whose head the witness saw last ([] when it can)."""
    if seen is None:
        return []
    local = view.journal.head()
    if local[0] < seen.seq:
        return [
            f"ledger-rollback: the ledger ends at journal entry {local[0]} but its witness saw "
            f"entry {seen.seq}: an older copy of the ledger was put back"
        ]
    row = view.db.execute("SELECT hash FROM journal WHERE seq = ?", (seen.seq,)).fetchone()
    if row is None or row[0] != seen.hash:
        return [
            f"ledger-rollback: journal entry {seen.seq} is not the one the witness saw: the "
            "ledger was replaced or rewritten"
        ]
    return []


class HeadPublisher:
    """Publishes the latest journal head on its own thread; :meth:`offer` never blocks."""

    RETRY = 2.0  # seconds between tries while the witness does not answer

    def __init__(self, witness: Witness, ledger: str, table: str) -> None:
        self.witness = witness
        self.ledger = ledger
        self.table = table
        self.published: Head | None = None
        self.failures = 0
        self._pending: Head | None = None
        self._wake = threading.Condition()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="witness", daemon=True)
        self._thread.start()

    def offer(self, seq: int, digest: str) -> None:
        with self._wake:
            self._pending = Head(seq, digest)
            self._wake.notify()

    def close(self) -> None:
        with self._wake:
            self._closed = True
            self._wake.notify()
        self._thread.join(timeout=self.witness.timeout + 1)
        if not self._thread.is_alive():
            self.witness.close()

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._pending is None and not self._closed:
                    self._wake.wait()
                if self._closed and self._pending is None:
                    return
                head, self._pending = self._pending, None
            assert head is not None
            try:
                self.witness.publish(self.ledger, head, self.table)
                self.published = head
            except WitnessError as exc:
                self.failures += 1
                if self.failures == 1 or self.failures % 100 == 0:
                    log.warning("journal head %d not published: %s", head.seq, exc)
                with self._wake:
                    if self._pending is None:
                        self._pending = head
                    if not self._closed:
                        self._wake.wait(self.RETRY)
                    elif self._pending is head:
                        return
