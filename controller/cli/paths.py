"""Where an installed table keeps what the CLI reads when it is not told (systemd/install.sh).
Plain strings: pathlib is not imported by the quick commands (``croupier status``)."""

from __future__ import annotations

SYSTEM_CONFIG = "/etc/croupier/table.toml"  # the table configuration croupierd reads
