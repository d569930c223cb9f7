"""Linked progressive pools (PRG-6, CH-9) on PostgreSQL: the store, the table client."""
