"""`croupier eval` and `croupier settle` through main(argv), as a technician runs them."""

import json
from pathlib import Path

from controller.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def test_eval_json(capsys):
    assert main(["eval", "As", "Ks", "Qs", "Js", "10s", "2c", "3d", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hand"] == "royal-flush"
    assert out["best_five"] == ["As", "Ks", "Qs", "Js", "Ts"]


def test_eval_error_is_one_line(capsys):
    assert main(["eval", "As", "As", "Kd", "Qd", "Jd"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "croupier eval: hand: As appears twice, but there is one deck"


def test_settle_example_json(capsys):
    assert main(["settle", str(EXAMPLES / "uth-gr-royal.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    seats = {s["seat"]: s for s in out["seats"]}
    # dealer 2d 3d on As Ks Qs Js 4c: ace high, does not qualify (UTH-5)
    assert out["dealer"] == {
        "hand": "high-card",
        "qualifies": False,
        "cards": ["As", "Ks", "Qs", "Js", "4c"],
    }
    assert seats[1]["wagers"]["progressive"] == {
        "stake": 100,
        "result": "win",
        "paid": 1234567,
        "rule": "PRG-3",
        "line": "royal-flush",
    }
    assert seats[2]["wagers"]["envy"]["paid"] == 10000
    assert seats[3]["wagers"]["ante"] == {
        "stake": 500,
        "result": "lose",
        "paid": 0,
        "rule": "UTH-4",
    }


def test_settle_human_output(capsys):
    assert main(["settle", str(EXAMPLES / "ch-bg-jumbo7.json")]) == 0
    out = capsys.readouterr().out
    assert "seat 1: straight-flush" in out
    assert "jumbo7" in out and "CH-9" in out


def test_settle_reports_bad_input_in_one_line(tmp_path, capsys):
    bad = tmp_path / "r.json"
    bad.write_text(
        json.dumps(
            {
                "profile": "uth-gr",
                "dealer": ["As", "Kd"],
                "community": ["2c", "7d", "9h", "Js", "As"],
                "seats": [{"seat": 1, "cards": ["3c", "4c"]}],
            }
        )
    )
    assert main(["settle", str(bad)]) == 1
    err = capsys.readouterr().err.strip()
    assert err == "croupier settle: As dealt twice (dealer and community); one deck (POK-1)"
    bad.write_text("{not json")
    assert main(["settle", str(bad)]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert main(["settle", str(tmp_path / "missing.json")]) == 1
    assert "cannot read" in capsys.readouterr().err


def test_settle_shows_every_amount_as_money(capsys):
    """Each stake, payment and total a person reads carries its currency, as the meters and
    status do ("EUR 12,345.67"), not a bare number under a header."""
    assert main(["settle", str(EXAMPLES / "uth-gr-royal.json")]) == 0
    lines = capsys.readouterr().out.splitlines()
    wagers = [line for line in lines if " stake " in line]
    assert wagers and all(line.count("EUR ") == 2 for line in wagers), lines
    assert any("paid  EUR 12,345.67  PRG-3 [royal-flush]" in line for line in lines), lines


def test_the_pool_is_named_as_the_ledger_names_it_where_the_table_says(capsys):
    """A settlement keeps its pool by the wager that feeds it; away from the table (a round
    file) the pool is shown as the wager's, never as a pool named ``progressive``; with the
    table's names (``round show``/``round settle``) as ``croupier meters`` names it."""
    from controller.cli.settle_cmd import print_human
    from controller.engine.games import settle
    from controller.engine.profiles import load_profile
    from display.money import currency

    assert main(["settle", str(EXAMPLES / "uth-gr-royal.json")]) == 0
    out = capsys.readouterr().out
    assert "pool (progressive wager): before EUR" in out and "pool progressive" not in out
    data = json.loads((EXAMPLES / "uth-gr-royal.json").read_text())
    result = settle(load_profile("uth-gr"), data)
    print_human(result, currency("EUR"), {"main": "progressive"})
    assert "pool main (progressive wager): before EUR" in capsys.readouterr().out


def test_a_profile_named_on_the_command_line_that_does_not_exist(capsys):
    """A usage error (exit status 2) for settle as for par, with the nearest profile."""
    for argv in (
        ["settle", str(EXAMPLES / "uth-gr-royal.json"), "--profile", "uthgr"],
        ["par", "--profile", "uth_gr"],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.rstrip().endswith("did you mean uth-gr?"), err


def test_an_empty_profile_is_refused_not_passed_over(capsys):
    """``--profile ''`` is a usage error naming the empty name, not the round's own profile
    taken silently; an empty "profile" in the round file is the round's problem (status 1)."""
    round_file = str(EXAMPLES / "uth-gr-royal.json")
    for argv in (["settle", round_file, "--profile", ""], ["par", "--profile", " "]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "(profile): a profile name like 'uth-gr'" in err, err
        assert "(profile): (profile)" not in err


def test_pool_init_without_its_profile_is_a_usage_error(capsys):
    argv = ["pool", "init", "--dsn", "host=/nonexistent dbname=x", "--pool", "jumbo7-bg"]
    assert main(argv) == 2
    assert "needs --profile and --seed" in capsys.readouterr().err


def _royal(tmp_path, **changes):
    data = json.loads((EXAMPLES / "uth-gr-royal.json").read_text())
    data.update(changes)
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_a_pool_the_profile_does_not_have_is_refused_by_name(tmp_path, capsys):
    """uth-gr's one pool is 'progressive': a 'jumbo7' beside it was silently ignored, as a
    typo ('progresive') would have been."""
    for pools in ({"progressive": 1000, "jumbo7": 5}, {"progresive": 1234567}):
        assert main(["settle", _royal(tmp_path, pools=pools)]) == 1
        err = capsys.readouterr().err
        assert "profile uth-gr has one pool, 'progressive'" in err and err.count("\n") == 1


def test_the_rounds_id_is_text_or_a_number(tmp_path, capsys):
    assert main(["settle", _royal(tmp_path, round="SIM-1-000042")]) == 0
    assert main(["settle", _royal(tmp_path, round=42)]) == 0
    capsys.readouterr()
    assert main(["settle", _royal(tmp_path, round={"id": 1})]) == 1
    assert "round: the table's round ID is text or a number" in capsys.readouterr().err


def test_files_saved_with_a_byte_order_mark_are_read(tmp_path, capsys):
    """Windows editors start a UTF-8 file with a byte order mark: a round or a configuration
    saved so is read (settle said "Unexpected UTF-8 BOM (decode using utf-8-sig)", Python's
    advice, and config check "Invalid statement (at line 1, column 1)")."""
    round_file = tmp_path / "round.json"
    round_file.write_bytes(b"\xef\xbb\xbf" + (EXAMPLES / "uth-gr-royal.json").read_bytes())
    assert main(["settle", str(round_file)]) == 0
    config = tmp_path / "table.toml"
    config.write_bytes(b"\xef\xbb\xbf" + (EXAMPLES.parent / "config" / "sim.toml").read_bytes())
    capsys.readouterr()
    assert main(["config", "check", str(config)]) == 0
    assert ": OK (table SIM-1" in capsys.readouterr().out


def test_a_profile_that_is_not_a_name_is_named_as_such(tmp_path, capsys):
    """ "profile": 5 said the round "names no profile"; it names one of the wrong kind."""
    assert main(["settle", _royal(tmp_path, profile=5)]) == 1
    assert "profile: a profile's name (text, like 'uth-gr'), not 5" in capsys.readouterr().err


def test_a_seat_number_of_the_wrong_kind_is_named(tmp_path, capsys):
    """ "seat": true said only "each seat is an object with seat, cards, stakes, decision"."""
    data = json.loads((EXAMPLES / "uth-gr-royal.json").read_text())
    for wrong, shown in ((True, "True"), (1.0, "1.0"), ("1", "'1'")):
        data["seats"][0]["seat"] = wrong
        path = tmp_path / "round.json"
        path.write_text(json.dumps(data))
        assert main(["settle", str(path)]) == 1
        err = capsys.readouterr().err
        assert f"seat {shown}: a seat is a whole number 1..6 in profile uth-gr (UTH-1)" in err


def test_a_refusal_shows_its_amounts_as_money_and_json_keeps_minor_units(tmp_path, capsys):
    """Issue 17: a stake refused by the engine was told in minor units ("ante 8000 is above
    the table maximum 5000"); a person reads money, a script the integers."""
    data = json.loads((EXAMPLES / "uth-gr-limits.json").read_text())
    data["seats"][0]["stakes"]["blind"] = data["seats"][0]["stakes"]["ante"] + 500
    path = tmp_path / "round.json"
    path.write_text(json.dumps(data))
    ante = data["seats"][0]["stakes"]["ante"]
    assert main(["settle", str(path)]) == 1
    err = capsys.readouterr().err
    blind = f"EUR {(ante + 500) / 100:,.2f}"
    assert f"Blind {blind} must equal Ante EUR {ante / 100:,.2f} (UTH-2)" in err, err
    assert main(["settle", str(path), "--json"]) == 1
    error = json.loads(capsys.readouterr().out)["error"]
    assert f"Blind {ante + 500} must equal Ante {ante}" in error["message"]
    assert error["rule"] == "UTH-2"
