"""A simulated table whose configuration is refused leaves no working folder behind: the
rig makes its ``croupier-rig-*`` folder under the temporary directory before it reads the
configuration (into it), and removed it only in ``close``, which a failed start never
reaches (one such folder, holding only table.toml, was found in /tmp)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from controller.rig.table import REPO_CONFIG, SimTable
from controller.validation import ConfigError


@pytest.fixture
def temporary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_configuration_that_cannot_be_read_leaves_no_folder(temporary: Path) -> None:
    with pytest.raises(ConfigError):
        SimTable(temporary / "missing.toml")
    assert list(temporary.glob("croupier-rig-*")) == []


def test_a_configuration_refused_once_written_leaves_no_folder(temporary: Path) -> None:
    with pytest.raises(ConfigError, match=r"shuffler\.port"):  # written, then checked
        SimTable(REPO_CONFIG, overrides={"shuffler": {"emulate": False}})
    assert list(temporary.glob("croupier-rig-*")) == []
