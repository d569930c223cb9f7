"""Configuration and file inputs (issue 13, point 7): every document from outside goes through
the checked reader (controller.validation), so a hostile file is one clear line naming the key
and a nonzero exit, never a hang, a RecursionError or a traceback."""

import contextlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tomli_w
from fuzz_budget import scale
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.cli.main import main
from controller.engine.games import settle
from controller.engine.profiles import load_profile
from controller.errors import CroupierError
from controller.table.credentials import check_stored
from controller.table.tableconfig import load_table_config, parse_table_config
from controller.validation import (
    MONEY_MAX,
    ConfigError,
    loads_json,
    loads_toml,
    parse_fraction,
)

ROOT = Path(__file__).resolve().parents[2]
SIM = tomllib.loads((ROOT / "config" / "sim.toml").read_text())
ROYAL = json.loads((ROOT / "examples" / "uth-gr-royal.json").read_text())
EXIT_TIMEOUT = 20  # seconds: a hang is a failure, not a slow pass


def croupier(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli.main", *args],
        input=stdin,
        capture_output=True,
        timeout=EXIT_TIMEOUT,
        cwd=ROOT,
    )


class Ran:
    """What a CLI run left: exit status and everything it printed."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def in_process(capsys, *args: str) -> Ran:
    """The CLI in this process (fast); the cases that could hang run in a subprocess."""
    capsys.readouterr()
    code = main(list(args))
    out = capsys.readouterr()
    return Ran(code, out.out, out.err)


def one_line_failure(proc: subprocess.CompletedProcess | Ran, *words: str) -> str:
    err, out = proc.stderr, proc.stdout
    err = (err.decode() if isinstance(err, bytes) else err) + (
        out.decode() if isinstance(out, bytes) else out
    )
    assert proc.returncode != 0, err
    assert "Traceback" not in err, err
    for word in words:
        assert word in err, err
    return err


def sim_with(tmp_path: Path, text_edit=None, **sections) -> Path:
    data = json.loads(json.dumps(SIM))
    for section, values in sections.items():
        target = data
        for part in section.split("."):
            target = target.setdefault(part, {})
        target.update(values)
    path = tmp_path / "table.toml"
    text = tomli_w.dumps(data)
    path.write_text(text_edit(text) if text_edit else text)
    return path


# --- croupier config check -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        # a number with a huge exponent: Fraction() would compute 10**999999999
        (
            lambda t: t.replace('contribution_rate = "15%"', 'contribution_rate = "1e999999999"'),
            "pools.main.contribution_rate",
        ),
        (lambda t: t.replace("seed = 500000", "seed = 1e999999999"), "pools.main.seed"),
        (lambda t: t.replace('profile = "uth-gr"', 'profile = ""'), "table.profile"),
        (
            lambda t: t.replace("packet_timeout = 10.0", "packet_timeout = inf"),
            "shuffler.packet_timeout",
        ),
        (
            lambda t: t.replace("packet_timeout = 10.0", "packet_timeout = nan"),
            "shuffler.packet_timeout",
        ),
        (
            lambda t: t.replace("settled_display = 10.0", "settled_display = 1e300"),
            "timing.settled_display",
        ),
        (lambda t: t.replace("seed = 500000", "seed = 9223372036854775808"), "pools.main.seed"),
        (lambda t: t.replace("seed = 500000", f"seed = {MONEY_MAX + 1}"), "pools.main.seed"),
        (lambda t: t.replace('path = "ledger.sqlite3"', 'path = ""'), "ledger.path"),
        (lambda t: t.replace('socket = "control.sock"', 'socket = ""'), "control.socket"),
        (lambda t: t + "\n[limits]\nstake_max = 1000000000000\n", "limits.stake_max"),
        (
            lambda t: t.replace("[control]", "[control]\nmax_connections = 100000"),
            "control.max_connections",
        ),
        (lambda t: t.replace("[control]", "[control]\nidle_timeout = -1"), "control.idle_timeout"),
    ],
)
def test_config_check_names_the_key_and_exits_nonzero(tmp_path, capsys, edit, key):
    text = (ROOT / "config" / "sim.toml").read_text()
    changed = edit(text)
    assert changed != text, "the edit must apply"
    path = tmp_path / "table.toml"
    path.write_text(changed)
    if "1e999999999" in changed:  # the case that used to hang: a subprocess with a timeout
        one_line_failure(croupier("config", "check", str(path)), key)
    else:
        one_line_failure(in_process(capsys, "config", "check", str(path)), key)


def test_config_check_reports_every_problem_with_values_outside_the_limits(tmp_path, capsys):
    """Two numbers no field could take (not finite, past 64 bits) and two fields wrong in
    their own way: one report names all four, where it stopped at the first number."""
    text = (ROOT / "config" / "sim.toml").read_text()
    changed = (
        text.replace("seed = 500000", "seed = 1e400")
        .replace("packet_timeout = 10.0", "packet_timeout = 99999999999999999999999")
        .replace('id = "SIM-1"', "id = 5")
        .replace('path = "ledger.sqlite3"', 'path = ""')
    )
    path = tmp_path / "table.toml"
    path.write_text(changed)
    assert main(["config", "check", str(path), "--json"]) == 1
    found = {p["key"] for p in json.loads(capsys.readouterr().out)["problems"]}
    assert found == {"pools.main.seed", "shuffler.packet_timeout", "table.id", "ledger.path"}


def test_an_integer_written_out_with_a_billion_digits_is_refused_by_size(tmp_path, capsys):
    path = tmp_path / "table.toml"
    with path.open("w") as f:  # 10**10**9 written out would be a gigabyte; 2 MB is enough
        f.write("[table]\nid = 1")
        f.write("0" * 2_000_000)
        f.write("\n")
    one_line_failure(croupier("config", "check", str(path)), "larger than")
    path.write_text("[table]\nid = 1" + "0" * 5000 + "\n")  # past Python's 4300-digit limit
    one_line_failure(in_process(capsys, "config", "check", str(path)), "number too long")


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda p: p.write_text("root:x:0:0:root:/root:/bin/bash\n"), "is not a ledger"),
        (lambda p: p.mkdir(), "is not a regular file"),
    ],
)
def test_config_check_names_a_ledger_path_that_holds_no_ledger(tmp_path, capsys, make, words):
    """`[ledger] path = "/etc/passwd"` said OK; the daemon then failed at its first start."""
    make(tmp_path / "not-a-ledger")
    path = sim_with(tmp_path, ledger={"path": str(tmp_path / "not-a-ledger")})
    one_line_failure(in_process(capsys, "config", "check", str(path)), "ledger.path", words)


def test_config_check_takes_a_ledger_an_empty_file_or_none_yet(tmp_path, capsys):
    import sqlite3

    sqlite3.connect(tmp_path / "real.sqlite3").execute("CREATE TABLE t (x)").connection.close()
    (tmp_path / "empty.sqlite3").touch()
    for name in ("real.sqlite3", "empty.sqlite3", "not-yet.sqlite3"):
        path = sim_with(tmp_path, ledger={"path": str(tmp_path / name)})
        assert in_process(capsys, "config", "check", str(path)).returncode == 0, name


def test_the_units_configuration_keeps_its_ledger_where_the_sandbox_lets_it_write(tmp_path):
    """croupierd's unit (ProtectSystem=strict) writes only in its StateDirectory; checked for
    the file the unit reads (/etc/croupier/table.toml), not for a rig's or a lab's."""
    from controller.cli.config_cmd import _installation_problems
    from controller.cli.paths import SYSTEM_CONFIG
    from controller.table.tableconfig import load_table_config

    elsewhere = load_table_config(sim_with(tmp_path, ledger={"path": "/srv/ledger.sqlite3"}))
    (problem,) = _installation_problems(SYSTEM_CONFIG, elsewhere)
    assert problem[0] == "ledger.path" and "outside /var/lib/croupier" in problem[1]
    assert _installation_problems(str(tmp_path / "table.toml"), elsewhere) == []
    assert _installation_problems("/etc/croupier//table.toml", elsewhere) != []  # one file
    out = "/var/lib/croupier/../../srv/ledger.sqlite3"  # the text starts inside; it is not
    escaping = load_table_config(sim_with(tmp_path, ledger={"path": out}))
    assert [k for k, _ in _installation_problems(SYSTEM_CONFIG, escaping)] == ["ledger.path"]
    inside = load_table_config(sim_with(tmp_path, ledger={"path": "/var/lib/croupier/x.db"}))
    assert _installation_problems(SYSTEM_CONFIG, inside) == []
    relative = load_table_config(sim_with(tmp_path))  # ledger.sqlite3, under the state dir
    assert _installation_problems(SYSTEM_CONFIG, relative) == []


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ("control", "socket"),
        ("control", "group"),
        ("ledger", "path"),
        ("ledger", "key"),
        ("report", "key"),
        ("table", "id"),
    ],
)
def test_a_nul_character_in_any_text_of_the_configuration_is_named(tmp_path, capsys, section, key):
    """A NUL passed config check ([control] socket, [ledger] key...) or crashed it ([ledger]
    path: "embedded null byte"), and croupierd died with a traceback on bind() or open()."""
    path = sim_with(tmp_path, **{section: {key: "a\x00b"}})
    one_line_failure(in_process(capsys, "config", "check", str(path)), f"{section}.{key}", "NUL")
    daemon = subprocess.run(
        [
            *(sys.executable, "-m", "controller.table.daemon", "--config", str(path)),
            *("--state-dir", str(tmp_path / "s"), "--runtime-dir", str(tmp_path / "r")),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert daemon.returncode == 2 and f"{section}.{key}" in daemon.stderr, daemon.stderr
    assert "Traceback" not in daemon.stderr


def test_a_nul_character_in_a_key_or_a_round_file_is_named(tmp_path, capsys):
    path = tmp_path / "table.toml"
    path.write_text((ROOT / "config" / "sim.toml").read_text() + '\n[x]\n"a\\u0000b" = 1\n')
    one_line_failure(in_process(capsys, "config", "check", str(path)), "NUL")
    round_file = tmp_path / "round.json"
    round_file.write_text('{"profile": "uth\\u0000-gr"}')
    one_line_failure(in_process(capsys, "settle", str(round_file)), "profile", "NUL")


def test_a_round_file_with_a_key_written_twice_is_refused(tmp_path, capsys):
    """json keeps the last of a repeated key: a surveillance file saying two things about a
    disputed round was settled on one of them without a word."""
    round_file = tmp_path / "round.json"
    text = (ROOT / "examples" / "uth-gr-royal.json").read_text()
    round_file.write_text(text.replace('"profile"', '"profile": "uth-sk", "profile"', 1))
    assert round_file.read_text() != text
    one_line_failure(in_process(capsys, "settle", str(round_file)), "duplicate key 'profile'")


def test_gpio_seats_beyond_the_profile_are_refused(tmp_path, capsys):
    path = sim_with(tmp_path, **{"gpio.seats": {"7": {"sensor": 7, "lamp": 8}}})
    ran = in_process(capsys, "config", "check", str(path))
    one_line_failure(ran, "gpio.seats.7", "seats 1..6")


@pytest.mark.parametrize(
    "stored",
    [
        "scrypt$1073741824$8$1$" + "00" * 16 + "$" + "00" * 32,  # N = 2**30: minutes, 128 GiB
        "scrypt$16384$1024$1$" + "00" * 16 + "$" + "00" * 32,  # r = 1024
        "scrypt$16384$8$99999$" + "00" * 16 + "$" + "00" * 32,  # p
        "scrypt$" + "9" * 5000 + "$8$1$" + "00" * 16 + "$" + "00" * 32,
        "scrypt$16384$8$1$" + "00" * 4096 + "$" + "00" * 32,  # a 4 kB salt
    ],
)
def test_unbounded_kdf_parameters_are_refused(tmp_path, capsys, stored):
    assert check_stored(stored) is not None
    path = sim_with(tmp_path, technician={"credential": stored})
    one_line_failure(in_process(capsys, "config", "check", str(path)), "technician.credential")


def test_shipped_credential_is_within_the_kdf_limits():
    assert check_stored(SIM["technician"]["credential"]) is None


# --- croupierd start-up ----------------------------------------------------------------------


def croupierd(config: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.table.daemon",
            "--config",
            str(config),
            "--state-dir",
            str(tmp_path / "state"),
            "--runtime-dir",
            str(tmp_path / "run"),
        ],
        capture_output=True,
        timeout=60,
        cwd=ROOT,
    )


def test_daemon_with_a_missing_control_group_says_so(tmp_path):
    path = sim_with(tmp_path, control={"group": "no-such-group-croupier"})
    err = one_line_failure(croupierd(path, tmp_path), "no-such-group-croupier")
    assert "control.group" in err


def test_daemon_with_an_empty_ledger_path_says_so(tmp_path):
    path = sim_with(tmp_path, ledger={"path": ""})
    proc = croupierd(path, tmp_path)
    one_line_failure(proc, "ledger.path")
    assert proc.returncode == 2


# --- croupier settle -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"\xff\xfe{}", ("not UTF-8",)),
        (b"[" * 100_000 + b"]" * 100_000, ("nested deeper",)),
        (b'{"profile": "uth-gr", "x": ' + b"9" * 5000 + b"}", ("not allowed",)),
        (b'{"profile": "uth-gr", "x": 1e999}', ("x: inf is not a finite number",)),
        (b'{"profile": "uth-gr", "x": NaN}', ("not allowed",)),
        (json.dumps({**ROYAL, "dealer": [0, 1]}).encode(), ("dealer cards", "notation")),
        (json.dumps({**ROYAL, "dealer": [True, 1]}).encode(), ("dealer cards", "notation")),
        (json.dumps({**ROYAL, "profile": ""}).encode(), ("profile",)),
        (json.dumps({**ROYAL, "profile": 7}).encode(), ("profile",)),
    ],
)
def test_settle_refuses_hostile_round_files_in_one_line(tmp_path, capsys, payload, words):
    path = tmp_path / "round.json"
    path.write_bytes(payload)
    err = one_line_failure(in_process(capsys, "settle", str(path)), *words)
    assert len(err.strip().splitlines()) == 1, err


def test_settle_from_standard_input_is_checked_too():
    one_line_failure(croupier("settle", "-", stdin=b"[" * 100_000), "nested deeper")


def test_settle_refuses_huge_stakes(tmp_path, capsys):
    data = json.loads(json.dumps(ROYAL))
    data["seats"][0]["stakes"]["ante"] = 2**70
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    one_line_failure(in_process(capsys, "settle", str(path)), "seats[0].stakes.ante")


# --- the checked reader, fuzzed --------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=40,
)


@settings(settings.get_profile("adversarial"), max_examples=scale(60, 2000))
@given(json_values)
def test_round_files_only_ever_fail_with_a_clear_error(value):
    """Any JSON document, settled as a round of any profile: a result or one CroupierError."""
    text = json.dumps(value)
    try:
        data = loads_json(text, "round.json")
    except ConfigError:
        return
    for name in ("uth-gr", "ch-bg", "trilux-gr"):
        with contextlib.suppress(CroupierError):  # anything else fails the test
            settle(load_profile(name), data if isinstance(data, dict) else {"x": data})


@settings(settings.get_profile("adversarial"))
@given(st.text(max_size=200))
def test_any_text_is_a_document_or_a_config_error(text):
    for parse in (loads_toml, loads_json):
        try:
            parse(text, "doc")
        except ConfigError as exc:
            assert exc.problems and all(isinstance(k, str) for k, _ in exc.problems)


@settings(settings.get_profile("adversarial"))
@given(st.text(max_size=40) | st.integers())
def test_fractions_are_exact_or_a_value_error(text):
    try:
        value = parse_fraction(text)
    except ValueError:
        return
    assert abs(value.numerator) < 10**40 and value.denominator < 10**40


@pytest.mark.parametrize("text", ["\u0662\u0660%", "0.\u0661\u0665", "3/\u0662\u0660", "\uff11"])
def test_fractions_are_written_in_ascii_digits(text):
    """A rate in another script's digits (which Fraction() reads) is refused, as a number of
    the CLI is: nobody checking the file sees it as the value it is."""
    with pytest.raises(ValueError, match="not a number like"):
        parse_fraction(text)


config_edits = st.dictionaries(
    st.sampled_from(
        [
            "table",
            "shuffler",
            "pools",
            "ledger",
            "technician",
            "control",
            "timing",
            "limits",
            "gpio",
            "sign",
        ]
    ),
    st.dictionaries(
        st.sampled_from(
            [
                "id",
                "profile",
                "seats",
                "port",
                "emulate",
                "baud",
                "packet_timeout",
                "path",
                "credential",
                "socket",
                "group",
                "settled_display",
                "stake_max",
                "max_connections",
                "idle_timeout",
                "main",
                "seed",
                "kind",
                "pin_factory",
            ]
        ),
        json_values,
        max_size=3,
    ),
    max_size=3,
)


@settings(settings.get_profile("adversarial"), max_examples=scale(80, 1000))
@given(config_edits)
def test_table_configurations_only_ever_fail_with_a_config_error(edits):
    data = json.loads(json.dumps(SIM))
    for section, values in edits.items():
        if isinstance(data.get(section), dict):
            data[section].update(values)
        else:
            data[section] = values
    try:
        parse_table_config(data, "fuzzed.toml")
    except ConfigError as exc:
        assert exc.problems
    except CroupierError as exc:  # the profile loader's or a section's own error
        assert str(exc)


def test_every_shipped_configuration_still_loads():
    """Every shipped table loads; the examples' only problem is the all-zero firmware
    placeholder a technician must replace (refused outside the simulated table)."""
    for path in sorted((ROOT / "config").glob("*.toml")):
        try:
            load_table_config(path)
        except ConfigError as exc:
            assert [key for key, _ in exc.problems] == ["shuffler.firmware_allow[0]"], path


# --- what the profile's rules do not have: one line naming the rule (audit h40) ---------------


def _royal_with(**seat_one) -> dict:
    data = json.loads(json.dumps(ROYAL))
    data["seats"][0].update(seat_one)
    return data


@pytest.mark.parametrize(
    ("data", "words"),
    [
        # MD-X4 is Italian: a Greek seat left in without a Play bet is refused
        (_royal_with(decision=["check", "no-play"]), ("profile uth-gr", "(MD-X4)")),
        (_royal_with(decision="no-play"), ("profile uth-gr", "(MD-X4)")),
    ],
)
def test_settle_refuses_what_the_profile_does_not_have_in_one_line(tmp_path, capsys, data, words):
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    err = one_line_failure(in_process(capsys, "settle", str(path)), *words)
    assert len(err.strip().splitlines()) == 1, err


def _profile_with(tmp_path: Path, name: str, section: str, **values) -> Path:
    """Shipped profile ``name`` with keys of ``section`` changed, written to ``tmp_path``."""
    data = tomllib.loads((ROOT / "config" / "profiles" / f"{name}.toml").read_text())
    data[section].update(values)
    path = tmp_path / f"{name}-changed.toml"
    path.write_text(tomli_w.dumps(data))
    return path


@pytest.mark.parametrize(
    ("name", "section", "values", "round_file", "words"),
    [
        # CH-9 shares one jackpot by stake: several hits are never paid in seat order
        (
            "ch-bg",
            "progressive",
            {"multiple_hits": "seat-order"},
            "ch-bg-jumbo7.json",
            ("progressive.multiple_hits", "award = 'share-round'", "(CH-9)"),
        ),
        # UTH-11: the Slovak deal burns 2, the Greek none, the Italian 3 by hand
        ("uth-sk", "rules", {"burns": 3}, "uth-sk-burns.json", ("rules.burns", "(UTH-11)")),
        ("uth-gr", "rules", {"burns": 2}, "uth-gr-royal.json", ("rules.burns", "(UTH-11)")),
        ("uth-it", "rules", {"burns": 2}, "uth-sk-burns.json", ("rules.burns", "(UTH-11)")),
    ],
)
def test_settle_refuses_a_profile_outside_the_rule_book_in_one_line(
    tmp_path, capsys, name, section, values, round_file, words
):
    profile = _profile_with(tmp_path, name, section, **values)
    args = ("settle", str(ROOT / "examples" / round_file), "--profile", str(profile))
    err = one_line_failure(in_process(capsys, *args), *words)
    assert len(err.strip().splitlines()) == 1, err


def test_settle_refuses_a_stake_of_a_fraction_of_a_chip_in_one_line(tmp_path, capsys):
    # audit k02: chips of 25, an Ante of 1010 (40.4 chips) was taken and its 1:1 win paid 1000
    profile = _profile_with(tmp_path, "uth-gr", "money", chip_unit=25)
    data = json.loads(json.dumps(ROYAL))
    data["profile"] = str(profile)
    data["seats"][0]["stakes"].update(ante=1010, blind=1010)
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    words = ("seat 1: ante EUR 10.10 is not a whole number of chips", "chip_unit", "(UTH-2)")
    err = one_line_failure(in_process(capsys, "settle", str(path)), *words)
    assert len(err.strip().splitlines()) == 1, err
