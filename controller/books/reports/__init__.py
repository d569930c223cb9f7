"""Documents for regulators and test labs, built from the ledger (docs/regulatory.md)."""
