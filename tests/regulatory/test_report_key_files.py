"""Report key files: every way a key file can be wrong gives one KeyFileError naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ec import SECP256R1, generate_private_key

from controller.books.reports.signing import (
    KeyFileError,
    create_key,
    load_private,
    load_public,
    public_key_path,
)


def test_a_created_key_loads_in_both_halves(tmp_path: Path) -> None:
    public = create_key(tmp_path / "report-key.pem")
    private = load_private(tmp_path / "report-key.pem")
    assert private.public_key() == public
    assert load_public(public_key_path(tmp_path / "report-key.pem")) == public


@pytest.mark.parametrize("load", [load_private, load_public])
def test_missing_garbage_and_foreign_keys_are_one_line_errors(tmp_path: Path, load) -> None:
    missing = tmp_path / "absent.pem"
    with pytest.raises(KeyFileError, match=f"no .* at {missing}"):
        load(missing)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text("not a key\n")
    with pytest.raises(KeyFileError, match="unreadable"):
        load(garbage)
    foreign = tmp_path / "ec.pem"
    ec = generate_private_key(SECP256R1())
    if load is load_private:
        pem = ec.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    else:
        pem = ec.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        )
    foreign.write_bytes(pem)
    with pytest.raises(KeyFileError, match="not an Ed25519 key") as caught:
        load(foreign)
    assert "\n" not in str(caught.value)


def test_a_missing_private_key_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="croupier report keygen"):
        load_private(tmp_path / "report-key.pem")
