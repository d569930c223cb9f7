"""Output helpers shared by the CLI commands: one place decides how JSON is printed."""

from __future__ import annotations

import json
import sys
from typing import Any


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=False)
    sys.stdout.write("\n")


def add_json_flag(parser: Any) -> None:
    """``--json``, a global option: also accepted before the command (controller.cli.main)."""
    from controller.cli.main import add_global_options

    add_global_options(parser, "--json")
