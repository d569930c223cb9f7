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


def test_a_refused_configuration_is_named_as_the_file_given_not_the_rigs_copy(
    temporary: Path,
) -> None:
    """The problems are the user's file's: naming the rig's ``croupier-rig-*/table.toml``
    sent the technician to a file that is gone once the rig stops."""
    uth = REPO_CONFIG.parent / "uth-gr.toml"  # a real table's example: a placeholder firmware
    with pytest.raises(ConfigError) as refused:
        SimTable(uth)
    assert str(refused.value).startswith(f"{uth}: shuffler.firmware_allow[0]: ")
    assert "croupier-rig-" not in str(refused.value)
    with pytest.raises(ConfigError, match=rf"^{uth} \(with the rig's overrides\): "):
        SimTable(uth, overrides={"timing": {"settled_display": 0.05}})


def test_an_override_of_a_table_the_configuration_lacks_writes_no_none() -> None:
    """The soak's ``{"shuffler": {"emulator": {"baud": None}}}`` on a configuration without
    [shuffler.emulator] (``rig soak --config config/uth-gr.toml``) was a TypeError from the
    TOML writer: an internal error, not the configuration's problem."""
    from controller.rig.table import merged

    base = {"shuffler": {"port": "/dev/ttyUSB0"}}
    overrides = {"shuffler": {"emulator": {"baud": None}}, "rig": {"a": {"b": None}, "c": 1}}
    assert merged(base, overrides) == {"shuffler": {"port": "/dev/ttyUSB0"}, "rig": {"c": 1}}


def test_a_linked_soak_tables_overrides_still_remove_the_pools_local_parameters():
    """The linked soak merges its link into the soak's overrides (keep_none): its Nones must
    reach the table's file, where they remove the pool's seed and rate (a linked pool's are
    the store's). Dropped there, every linked table was refused at its start."""
    from controller.rig.soak_linked import POOL, link_overrides

    pool = link_overrides("CH-9", "postgresql://x")["pools"][POOL]
    assert pool["seed"] is None and pool["contribution_rate"] is None
