"""``[control] observers``: a user named there (the web service) may only read and send
credentialed commands, whatever group it is in: a compromised web process cannot enter stakes,
cards, LOCK or CONFIRM (docs/security.md, "Observers")."""

from __future__ import annotations

import logging
import pwd

import pytest
from table_fixture import CREDENTIAL, PEER, InProcessTable, manual_table_config

from controller.table.commands import ARGS, OBSERVER_COMMANDS, READ_COMMANDS, observer_uids
from controller.table.control.guard import Peer
from controller.validation import ConfigError

NOBODY = pwd.getpwnam("nobody").pw_uid
OBSERVER = Peer(4343, NOBODY, NOBODY)


@pytest.fixture
def table(tmp_path):
    t = InProcessTable(tmp_path, manual_table_config(control={"observers": ["nobody"]})).start()
    yield t
    t.close()


def test_every_command_is_either_open_to_observers_or_not():
    assert set(ARGS) >= READ_COMMANDS
    for name, args in ARGS.items():
        if "technician" in args:
            assert name in OBSERVER_COMMANDS, name
    for name in (
        "round.stake",
        "round.lock",
        "round.confirm",
        "round.cards",
        "round.misdeal",
        "round.decide",
        "round.seats",
        "round.expose",
        "software.verify",
    ):
        assert name not in OBSERVER_COMMANDS, name


def test_an_observer_reads_but_cannot_enter_what_the_dealer_enters(table):
    assert "result" in table.request("status", peer=OBSERVER)
    assert "result" in table.request("meters", peer=OBSERVER)
    for cmd, args in [
        ("round.stake", {"seat": 1, "stakes": {"ante": 500, "blind": 500}}),
        ("round.lock", {}),
        ("round.confirm", {}),
        ("round.misdeal", {"rule": "MD-S1", "reason": "x"}),
    ]:
        reply = table.request(cmd, peer=OBSERVER, **args)
        assert reply["code"] == "forbidden", reply
        assert "observer" in reply["error"]
    assert not staked_seats(table)  # nothing reached the table


def staked_seats(table):
    seats = table.request("status")["result"]["seats"]
    return [s for s in (seats.values() if isinstance(seats, dict) else seats) if s["in_play"]]


def test_the_same_command_from_the_dealers_tablet_is_taken(table):
    reply = table.request("round.stake", seat=1, stakes={"ante": 500, "blind": 500})
    assert "result" in reply, reply
    assert staked_seats(table)


def test_a_credentialed_command_passes_the_observer_gate_and_meets_the_credential(table):
    wrong = table.request("jackpot.ack", credential="0000", peer=OBSERVER)
    assert wrong["code"] == "unauthorised"
    right = table.request("jackpot.ack", credential=CREDENTIAL, peer=OBSERVER)
    assert right.get("code") != "forbidden", right


def test_observer_refusals_are_journaled(table):
    table.request("round.lock", peer=OBSERVER)
    table.wait_for(
        lambda: any(
            e["kind"] == "access-refused" and "observer" in str(e)
            for e in table.request("events.tail", n=20)["result"]
        ),
        "the refusal in the journal",
    )


def test_unknown_observer_names_are_logged_and_skipped(caplog):
    with caplog.at_level(logging.WARNING, logger="croupier.control"):
        assert observer_uids(("nobody", "no-such-user-x")) == frozenset({NOBODY})
    assert "no-such-user-x" in caplog.text


@pytest.mark.parametrize(
    "value, message",
    [
        (["Root"], "not a login name"),
        (["a b"], "not a login name"),
        ([7], "not a login name"),
        ([f"u{i}" for i in range(17)], "at most 16"),
        ("croupier-web", "list"),
    ],
)
def test_bad_observer_lists_are_refused_naming_the_field(value, message):
    with pytest.raises(ConfigError, match=f"control.observers.*{message}|{message}.*observers"):
        manual_table_config(control={"observers": value})


def test_peer_is_the_default_dealer_tablet():
    assert PEER.uid != NOBODY
