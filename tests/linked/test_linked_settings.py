"""A linked pool in the table configuration: every problem reported with its key (no server
needed)."""

import pytest

from controller.books.linked.settings import (
    LinkedSettings,
    check_linked_entry,
    is_linked,
    linked_settings,
    table_id_problem,
)
from controller.validation import ConfigError, Problems, Section

DSN = "host=pools.example.net dbname=croupier user=table_sofia_07 sslmode=verify-full"


def test_a_complete_entry():
    entry = {"dsn": DSN, "pool": "jumbo7-bg", "heartbeat": 2, "operation_timeout": 1.5}
    assert is_linked(entry) and not is_linked({"seed": 100})
    assert check_linked_entry("jumbo7", entry) == LinkedSettings(
        name="jumbo7", dsn=DSN, pool="jumbo7-bg", heartbeat=2.0, operation_timeout=1.5
    )


def test_the_pool_name_defaults_to_the_entry_name():
    assert check_linked_entry("jumbo7", {"dsn": DSN}).pool == "jumbo7"


def test_every_problem_at_once_with_its_key():
    entry = {
        "dsn": "host=x port=5432 nonsense",
        "pool": "Jumbo 7",
        "heartbeat": 0,
        "connect_timeout": "5",
        "seed": 100_000,
        "contribution_rat": "20%",
    }
    with pytest.raises(ConfigError) as caught:
        check_linked_entry("jumbo7", entry, source="table.toml")
    keys = [key for key, _ in caught.value.problems]
    assert keys == [
        "pools.jumbo7.dsn",
        "pools.jumbo7.pool",
        "pools.jumbo7.connect_timeout",
        "pools.jumbo7.heartbeat",
        "pools.jumbo7.seed",
        "pools.jumbo7.contribution_rat",
    ]
    reasons = dict(caught.value.problems)
    assert "not a PostgreSQL connection string" in reasons["pools.jumbo7.dsn"]
    assert "croupier pool init" in reasons["pools.jumbo7.seed"]
    assert reasons["pools.jumbo7.contribution_rat"] == "unknown key"
    assert str(caught.value).startswith("table.toml: pools.jumbo7.dsn:")


def test_the_loader_keeps_its_own_problems_list():
    """The table configuration loader passes its Section; problems land in its list."""
    problems = Problems("table.toml")
    problems.add("table.id", "an earlier problem")
    section = Section({"pool": "jumbo7"}, "pools.jumbo7", problems)
    assert linked_settings("jumbo7", section) is None
    assert problems.items == [
        ("table.id", "an earlier problem"),
        ("pools.jumbo7.dsn", "required key is missing"),
    ]


@pytest.mark.parametrize("table", ["sofia-07", "T1", "casino.bg:07"])
def test_table_ids(table):
    assert table_id_problem(table) is None


@pytest.mark.parametrize("table", ["", "a/b", "-x", "x" * 41, 7])
def test_bad_table_ids(table):
    assert "table ID" in table_id_problem(table)


def test_connection_parameters_notice_a_dead_link():
    params = LinkedSettings(name="j", dsn=DSN, pool="j", heartbeat=3, operation_timeout=2)
    assert params.connection_params("croupier sofia-07") == {
        "connect_timeout": 5,
        "application_name": "croupier sofia-07",
        "keepalives": 1,
        "keepalives_idle": 3,
        "keepalives_interval": 3,
        "keepalives_count": 2,
        "tcp_user_timeout": 2000,
    }
