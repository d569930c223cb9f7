"""The CLI's argparse parser, where the CLI's modules take it: it lives in the shared base
(controller.arguments), so that croupierd and ``make demo`` read their command lines with it
too."""

from controller.arguments import CroupierParser, HelpFormatter, VersionAction, terminal_columns

__all__ = ["CroupierParser", "HelpFormatter", "VersionAction", "terminal_columns"]
