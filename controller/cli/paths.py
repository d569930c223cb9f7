"""Where an installed table keeps what the CLI reads when it is not told (systemd/install.sh).
Plain strings: pathlib is not imported by the quick commands (``croupier status``)."""

from __future__ import annotations

SYSTEM_CONFIG = "/etc/croupier/table.toml"  # the table configuration croupierd reads
STATE_DIR = "/var/lib/croupier"  # the table's state directory (ledger, round files)
# the report signing key and its public half (controller.books.reports.signing.DEFAULT_KEY;
# tests/unit/cli/test_cli_light_choices.py holds them equal)
REPORT_KEY = "/etc/croupier/report-key.pem"
REPORT_PUBLIC_KEY = "/etc/croupier/report-key.pub.pem"
