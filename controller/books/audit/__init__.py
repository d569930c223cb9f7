"""Audits of the shuffler: position statistics and uniformity tests."""
