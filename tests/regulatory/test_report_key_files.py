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


def test_keygen_never_replaces_a_public_key_a_regulator_may_hold(tmp_path: Path) -> None:
    public = tmp_path / "k2.pub.pem"
    public.write_text("precious\n")
    with pytest.raises(KeyFileError, match=f"{public} already exists") as caught:
        create_key(tmp_path / "k2.pem")
    assert "\n" not in str(caught.value)
    assert public.read_text() == "precious\n" and not (tmp_path / "k2.pem").exists()


def test_keygen_refuses_a_private_key_named_like_a_public_one(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="name of a public key"):
        create_key(tmp_path / "a.pub.pem")
    assert list(tmp_path.iterdir()) == []


def report(capsys, *words: str) -> tuple[int, str]:
    """``croupier report WORDS``: its exit status (argparse's usage error included) and what
    it printed, stdout then stderr."""
    from controller.cli.main import main

    try:
        code = main(["report", *words])
    except SystemExit as exc:  # argparse's usage error
        code = exc.code  # type: ignore[assignment]
    out, err = capsys.readouterr()
    return code, out + err


def _keygen(capsys, *args: str) -> tuple[int, str]:
    return report(capsys, "keygen", *args)


def test_the_cli_refuses_to_replace_either_half(capsys, tmp_path: Path) -> None:
    (tmp_path / "k2.pub.pem").write_text("precious\n")
    code, said = _keygen(capsys, "--key", str(tmp_path / "k2.pem"))
    assert code == 1 and said.count("\n") == 1 and "k2.pub.pem already exists" in said
    assert (tmp_path / "k2.pub.pem").read_text() == "precious\n"


@pytest.mark.parametrize(
    ("name", "says"),
    [("a.pub.pem", "name of a public key"), ("newdir/x.pem", "no folder")],
)
def test_a_bad_key_path_is_a_usage_error_naming_the_option(
    capsys, tmp_path: Path, name: str, says: str
) -> None:
    code, said = _keygen(capsys, "--key", str(tmp_path / name))
    assert code == 2 and said.count("\n") == 1, said
    assert "--key" in said and says in said
    assert list(tmp_path.iterdir()) == []


def test_keygen_without_key_names_the_default_when_its_folder_is_missing(
    capsys, monkeypatch, tmp_path: Path
) -> None:
    from controller.cli import report_cmd

    monkeypatch.setattr(report_cmd, "REPORT_KEY", str(tmp_path / "etc" / "report-key.pem"))
    code, said = _keygen(capsys)
    assert code == 2 and said.count("\n") == 1 and "--key (default" in said and "no folder" in said
