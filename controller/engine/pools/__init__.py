"""Progressive pools (RULES.md PRG-1..6): the pure rules of awards and contributions."""
