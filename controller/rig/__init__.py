"""The hardware-in-the-loop rig: a real ``croupierd`` driven through its pins, its shuffler
and its control socket (scenarios, soak, the simulated table of ``make demo``)."""
