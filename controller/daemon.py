"""``croupierd``: the table daemon. Until the daemon lands it reports its version only."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from controller import __version__


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="croupierd", description="Croupier table daemon")
    parser.add_argument("--version", action="version", version=f"croupierd {__version__}")
    parser.parse_args(argv)
    print(f"croupierd {__version__}: the table daemon is not built yet (see issues)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
