import pytest

from controller.table.credentials import CredentialError, check_stored, hash_credential, verify


def test_round_trip_and_salt():
    a, b = hash_credential("1234-tech"), hash_credential("1234-tech")
    assert a != b  # salted
    assert verify("1234-tech", a) and verify("1234-tech", b)
    assert not verify("1234-tecH", a)
    assert "1234-tech" not in a


def test_malformed_stored_strings():
    assert check_stored("plain") is not None
    assert check_stored("scrypt$3$8$1$00$" + "00" * 32) is not None  # N not a power of two
    with pytest.raises(CredentialError):
        verify("x", "scrypt$16384$8$1$zz$00")
    with pytest.raises(CredentialError):
        hash_credential("")
