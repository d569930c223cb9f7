"""The daemon's alerts (issue 19): ``alerts`` (read-only) and ``alert.ack`` (credential,
journaled with who did it), on a real croupierd with a stuck seat sensor."""

from __future__ import annotations

import pytest

from controller.table.control.wire import ControlError

pytestmark = pytest.mark.integration


def test_a_sensor_fault_alert_stays_until_acknowledged_and_the_ack_is_journaled(sim_table):
    table = sim_table
    assert table.call("alerts") == []  # a table that opened normally raises nothing
    for _ in range(10):  # chatter excludes the seat (docs/tableio.md)
        table.io.place_stake(4)
        table.io.lift_stake(4)
    alert = table.wait_until(
        lambda: next((a for a in table.call("alerts") if a["subject"] == "seat 4"), None),
        "sensor alert",
    )
    assert alert["kind"] == "stuck-sensor" and alert["state"] == "active"
    with pytest.raises(ControlError, match="wrong or missing technician credential"):
        table.call_with("wrong", "alert.ack", id=alert["id"])
    with pytest.raises(ControlError, match="'id': '1' is not an alert number"):
        table.call("alert.ack", privileged=True, id="1")
    done = table.call("alert.ack", privileged=True, id=alert["id"], technician="alice")
    assert done["acknowledged_by"] == "alice" and done["state"] == "acknowledged"
    with pytest.raises(ControlError, match="acknowledged already"):
        table.call("alert.ack", privileged=True, id=alert["id"])
    entry = table.wait_until(lambda: table.journal("alert-acknowledged"), "journal entry")[0]
    assert entry == {
        "alert": alert["id"],
        "kind": "stuck-sensor",
        "subject": "seat 4",
        "technician": "alice",
    }
    table.call("seat.clear", privileged=True, seat=4)
    table.wait_until(
        lambda: table.call("alerts") == [], "the acknowledged alert leaves once cleared"
    )
