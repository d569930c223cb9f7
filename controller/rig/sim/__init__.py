"""The deterministic simulator of a whole table (``croupier sim``, docs/sim.md).

The real code on a simulated clock, every choice drawn from one seed: the pure table core
(:class:`controller.table.core.TableLogic`), the real ``HostSession`` against the emulator's
real firmware over a simulated wire (:mod:`.wire`, :mod:`.shuffler`), the real GPIO core with
simulated sensor levels (:mod:`.gpio`), the real ledger on a SQLite file, a simulated dealer
and players (:mod:`.players`), crash and restart at any step (:mod:`.world`). After every
step an independent tally checks the invariants (:mod:`.tally`); the run's digest
(:mod:`.digest`) is the same byte for byte for the same seed.
"""
