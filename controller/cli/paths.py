"""Where an installed table keeps what the CLI reads when it is not told (systemd/install.sh)."""

from __future__ import annotations

from pathlib import Path

SYSTEM_CONFIG = Path("/etc/croupier/table.toml")  # the table configuration croupierd reads
