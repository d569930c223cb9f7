"""``croupier-web``: the pit's and the floor's view of the tables (docs/web.md)."""
