"""The table's report key and the signatures of regulatory documents (docs/regulatory.md).

Every document a regulator may receive from the table (the gaming-day report in JSON, CSV or
PDF) is signed with the table's own Ed25519 key, kept in a key file separate from the ledger
and from the journal's keyed seals (default ``/etc/croupier/report-key.pem``, ``[report] key``
in the table configuration; mode 0600, owned by the daemon's user). The public half,
``report-key.pub.pem`` beside it, is what the casino files with its regulator:
``croupier report verify FILE --public-key report-key.pub.pem`` checks any form.

Two ways to carry a signature, one per kind of document:

- a JSON document is ``{"report": ..., "signature": {...}}``; the signature covers the
  canonical JSON of ``report`` (sorted keys, no spaces, UTF-8), so re-indenting the file does
  not break it but changing any value does. Nothing else may be in it: a key written twice in
  any object (json reads the last, another reader the first), another key beside ``report``
  and ``signature`` or in the signature (read by someone, covered by nothing) is not valid;
- a byte document (CSV, PDF) ends with one line
  ``%croupier-signature ed25519 KEY_ID SIGNATURE`` that covers every byte before it. A PDF
  reader ignores a trailing comment after ``%%EOF``; a CSV reader sees one last line.

``KEY_ID`` is the first 16 hex digits of the SHA-256 of the raw public key, so a verifier
names the key a document claims before checking it. Every signed message starts with
:data:`CONTEXT` so a signature made for a report cannot be replayed as one over other data.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.books.ledger.journal import canonical
from controller.errors import CroupierError
from controller.files import FileRefused, check_output, read_regular, write_atomic
from controller.texts import escaped
from controller.validation import BOM, DOCUMENT_LIMITS, ConfigError, loads_json

DEFAULT_KEY = Path("/etc/croupier/report-key.pem")
CONTEXT = b"croupier-signed-document-v1\n"
MARKER = b"%croupier-signature "
ALGORITHM = "ed25519"
PUBLIC_SUFFIX = ".pub.pem"
# The largest signed document read: a PDF of a gaming day is tens of kB. A JSON document is
# also held to controller.validation.DOCUMENT_LIMITS (size, nesting depth, number length).
MAX_SIGNED_BYTES = 16 * 1024 * 1024


class SignatureError(CroupierError, ValueError):
    """A document's signature is missing, malformed, made with another key, or does not match
    the document (a byte was changed)."""


class KeyFileError(CroupierError, OSError):
    """The report key file is missing, unreadable or not an Ed25519 key."""


def public_key_path(key: Path) -> Path:
    """Where the public half of ``key`` is kept: ``report-key.pem`` -> ``report-key.pub.pem``."""
    return key.with_name(key.name.removesuffix(".pem") + PUBLIC_SUFFIX)


def key_id(public: Ed25519PublicKey) -> str:
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def create_key(path: Path) -> Ed25519PublicKey:
    """Make a new key file (mode 0600) and its public half; refuses to replace either (the
    public half may be the one a regulator holds), and a private key named like a public one."""
    if path.name.endswith(PUBLIC_SUFFIX):
        raise KeyFileError(
            f"{path} is the name of a public key ({PUBLIC_SUFFIX}): name the private key, "
            "e.g. report-key.pem (its public half is written beside it)"
        )
    public_path = public_key_path(path)
    check_output(path)  # not empty, not a directory or a device; its folder exists
    check_output(public_path)
    if path.exists():
        raise KeyFileError(
            f"{path} already exists: a table keeps its report key (remove it "
            "by hand to start a new one; reports signed with it stay checkable "
            "with its public half)"
        )
    if os.path.lexists(public_path):
        raise KeyFileError(
            f"{public_path} already exists: it may be the public key a regulator holds "
            f"(move it away by hand to make a new key at {path})"
        )
    private = Ed25519PrivateKey.generate()
    pem = private.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    try:  # the key's folder must exist (/etc/croupier from install, a table's state directory)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise KeyFileError(f"cannot create the report key {path}: {exc.strerror}") from None
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    public = private.public_key()
    write_atomic(
        public_path,
        public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
    )
    return public


def _load_pem(path: Path, parse: Callable[[bytes], object], what: str, missing: str) -> object:
    """The key parsed from the PEM file at ``path``; every failure is a one-line KeyFileError."""
    try:
        data = read_regular(path)
    except FileNotFoundError:
        raise KeyFileError(f"no {what} at {path}{missing}") from None
    except FileRefused as exc:
        raise KeyFileError(f"the {what}: {exc}") from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise KeyFileError(f"the {what} {path} is unreadable: {reason}") from None
    try:
        return parse(data)
    except ValueError:  # cryptography's own words name its FAQ and its parser's states
        found = "a damaged PEM key" if b"-----BEGIN " in data else "not a PEM key"
        raise KeyFileError(
            f"the {what} {path} is unreadable: {found} (-----BEGIN ... KEY----- expected)"
        ) from None
    except TypeError as exc:  # an encrypted private key: a password it was never given
        raise KeyFileError(f"the {what} {path} is unreadable: {exc}") from None


def load_private(path: Path) -> Ed25519PrivateKey:
    hint = f": make one with `croupier report keygen --key {path}` (install.sh does it)"
    key = _load_pem(
        path, lambda pem: serialization.load_pem_private_key(pem, password=None), "report key", hint
    )
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(f"the report key {path} is not an Ed25519 key")
    return key


def load_public(path: Path) -> Ed25519PublicKey:
    hint = " (the table's report-key.pub.pem)"
    key = _load_pem(path, serialization.load_pem_public_key, "public key", hint)
    if not isinstance(key, Ed25519PublicKey):
        raise KeyFileError(f"the public key {path} is not an Ed25519 key")
    return key


def canonical_bytes(data: Any) -> bytes:
    """What is signed: the journal's one JSON spelling of ``data``, in UTF-8."""
    return canonical(data).encode()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def sign_json(document: dict[str, Any], key: Ed25519PrivateKey) -> dict[str, Any]:
    """``{"report": document, "signature": {...}}`` (see the module docstring)."""
    value = key.sign(CONTEXT + canonical_bytes(document))
    return {
        "report": document,
        "signature": {
            "algorithm": ALGORITHM,
            "key_id": key_id(key.public_key()),
            "value": _b64(value),
        },
    }


def sign_bytes(body: bytes, key: Ed25519PrivateKey) -> bytes:
    """``body`` followed by its signature line (see the module docstring)."""
    if not body.endswith(b"\n"):
        body += b"\n"
    value = key.sign(CONTEXT + body)
    line = f"{ALGORITHM} {key_id(key.public_key())} {_b64(value)}\n".encode()
    return body + MARKER + line


@dataclass(frozen=True)
class Verified:
    form: str  # "json" or "bytes"
    key_id: str
    document: dict[str, Any] | None  # the report, for the JSON form
    body: bytes  # what the signature covers (without the context prefix)


_PLAIN = re.compile(r"[0-9A-Za-z_.-]{1,64}")


def shown(value: object) -> str:
    """A value read from a document, as a message shows it: a plain word as it is, anything
    else (control characters, newlines, a pasted megabyte) escaped and shortened, on one line."""
    if isinstance(value, str) and _PLAIN.fullmatch(value):
        return value
    text = repr(value)
    return text if len(text) <= 80 else f"{text[:60]}...({len(text):,} characters)"


def _check(public: Ed25519PublicKey, claimed: str, value: str, message: bytes) -> None:
    expected = key_id(public)
    if claimed != expected:
        raise SignatureError(
            f"signed with key {shown(claimed)}, not with the table key given ({expected})"
        )
    try:
        signature = base64.b64decode(value, validate=True)
        public.verify(signature, CONTEXT + message)
    except (InvalidSignature, ValueError):
        raise SignatureError(
            "the signature does not match the document: it was changed after signing"
        ) from None


def _first_problem(exc: ConfigError) -> str:
    """The first problem of a refused document, on one line, naming the others' count."""
    if not exc.problems:
        return "unreadable"
    key, reason = exc.problems[0]
    more = len(exc.problems) - 1
    where = "" if key.startswith("(") else f"{key}: "  # (top), (syntax), (file): the whole
    return escaped(where + reason + (f" (and {more} more)" if more else ""))


# The keys of a signed JSON document and of its signature: anything else would be read by
# someone but covered by no signature
SIGNED_KEYS = ("report", "signature")
SIGNATURE_KEYS = ("algorithm", "key_id", "value")


def _key(name: str) -> str:
    """A key of a document as a message quotes it: 'name', escaped when it is not plain."""
    text = shown(name)
    return f"'{text}'" if text == name else text


def _unsigned(found: dict[str, Any], allowed: tuple[str, ...], where: str) -> str | None:
    """The problem of a key of ``found`` outside ``allowed`` (the first, with the others'
    count) or of one of ``allowed`` missing; None when its keys are exactly ``allowed``."""
    extra = [key for key in found if key not in allowed]
    names = [f'"{key}"' for key in allowed]
    holds = ", ".join(names[:-1]) + f" and {names[-1]}"
    if extra:
        more = f" (and {len(extra) - 1} more)" if len(extra) > 1 else ""
        return (
            f"unsigned key {_key(extra[0])}{more} {where} (only {holds} belong there): "
            "no signature covers it"
        )
    missing = [key for key in allowed if key not in found]
    if missing:
        return f'no "{missing[0]}" {where} (it holds {holds})'
    return None


def _verify_json(data: bytes, public: Ed25519PublicKey) -> Verified:
    try:  # held to the limits of every document from outside: size, depth, number length;
        # a key written twice anywhere is refused (json keeps the last, another reader the first)
        signed = loads_json(data, "the document", DOCUMENT_LIMITS)
    except ConfigError as exc:
        if exc.problems and exc.problems[0][0] == "(duplicate)":
            raise SignatureError(_first_problem(exc)) from None
        raise SignatureError(f"not a signed JSON document: {_first_problem(exc)}") from None
    return verify_signed(signed, public)


def verify_signed(signed: Any, public: Ed25519PublicKey) -> Verified:
    """Check a signed JSON document already read (through the checked reader, which refuses
    a key written twice); raises SignatureError naming what is wrong."""
    sig = signed.get("signature") if isinstance(signed, dict) else None
    document = signed.get("report") if isinstance(signed, dict) else None
    if not isinstance(document, dict) or not isinstance(sig, dict):
        raise SignatureError(
            'not a signed JSON document: expected {"report": {...}, "signature": {...}}'
        )
    problem = _unsigned(signed, SIGNED_KEYS, "at the top of the document") or _unsigned(
        sig, SIGNATURE_KEYS, "in the signature"
    )
    if problem:
        raise SignatureError(problem)
    algorithm, claimed, value = sig.get("algorithm"), sig.get("key_id"), sig.get("value")
    if algorithm != ALGORITHM:
        raise SignatureError(f"unsupported signature algorithm {shown(algorithm)}")
    if not isinstance(claimed, str):
        raise SignatureError(f"the signature's key_id is not text: {shown(claimed)}")
    if not isinstance(value, str):
        raise SignatureError(f"the signature's value is not base64 text: {shown(value)}")
    _check(public, claimed, value, canonical_bytes(document))
    return Verified("json", claimed, document, canonical_bytes(document))


def verify_document(data: bytes, public: Ed25519PublicKey) -> Verified:
    """Check a signed document in any form; raises SignatureError naming what is wrong (on one
    line; values from the document escaped)."""
    if len(data) > MAX_SIGNED_BYTES:
        raise SignatureError(
            f"larger than {MAX_SIGNED_BYTES} bytes: not a document the table signs"
        )
    text = data.removeprefix(BOM.encode())  # an editor's byte order mark
    if text.lstrip()[:1] in (b"{", b"["):  # JSON (a CSV starts with its header, a PDF with %PDF)
        return _verify_json(text, public)
    at = data.rfind(b"\n" + MARKER)
    if at < 0 or not data.endswith(b"\n"):
        raise SignatureError("no signature line (%croupier-signature ...) at the end")
    body, line = data[: at + 1], data[at + 1 + len(MARKER) : -1]
    parts = line.decode("ascii", "replace").split(" ")
    if len(parts) != 3 or parts[0] != ALGORITHM:
        raise SignatureError("the signature line is malformed")
    _check(public, parts[1], parts[2], body)
    return Verified("bytes", parts[1], None, body)


ABOUT = ("document", "table", "round", "gaming_day", "generated")  # what a verify line names
CSV_HEADER = b"section,name,field,value\n"


def about(checked: Verified) -> dict[str, str]:
    """What a verified document says it is (its kind, table, gaming day or round, when it
    was made), so that an old signed document passed off as a new one, or one of another
    table signed with its own key, shows in the verify line itself. The JSON form and the
    CSV's ``report`` rows say it; a PDF says it on its pages ({} here). The values as the
    document wrote them (``--json``); a terminal line shows each through :func:`shown`."""
    if checked.document is not None:
        found = {k: checked.document.get(k) for k in ABOUT}
    elif checked.body.startswith(CSV_HEADER):
        import csv
        import io

        lines = io.StringIO(checked.body.decode("utf-8", "replace"))
        found = {f: v for section, _, f, v, *_ in csv.reader(lines) if section == "report"}
    else:
        return {}
    return {k: found[k] for k in ABOUT if found.get(k) not in (None, "")}


def read_signed(path: str | Path) -> bytes:
    """The bytes of a signed document to check (``-``: standard input), at most one byte more
    than :data:`MAX_SIGNED_BYTES` (verify_document refuses that). A regular file only (a fifo
    never blocks); OSError or FileRefused when it cannot be read."""
    import sys

    if str(path) == "-":
        if sys.stdin is None:
            raise CroupierError("standard input is closed")
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a test's StringIO
            return sys.stdin.read(MAX_SIGNED_BYTES + 1).encode()
        return stream.read(MAX_SIGNED_BYTES + 1)
    return read_regular(path, MAX_SIGNED_BYTES + 1)
