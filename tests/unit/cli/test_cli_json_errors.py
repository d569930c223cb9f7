"""`croupier settle|eval|par --json` errors: a JSON object with the message and the rule ID on
stdout, exit status 1 (a failure, not a usage error), and the same one line on stderr for people."""

import json
from pathlib import Path

import pytest

from controller.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_settle_json_error_names_the_rule(capsys, tmp_path):
    round_file = tmp_path / "r.json"
    data = json.loads((EXAMPLES / "uth-gr-royal.json").read_text())
    data["profile"] = "uth-sk"  # uth-sk has no progressive: the progressive stakes are refused
    data.pop("pools")
    round_file.write_text(json.dumps(data))
    status, out, err = run(capsys, "settle", str(round_file), "--json")
    assert status == 1
    error = json.loads(out)["error"]
    assert error["rule"] == "UTH-2" and error["type"] == "WagerNotOffered"
    assert "has no progressive pool" in error["message"]
    assert err.startswith("croupier settle: ")


@pytest.mark.parametrize(
    ("argv", "rule", "words", "exit_status"),
    [  # bad arguments are usage errors (2); a file that cannot be used is a failure (1)
        (["eval", "As", "As", "Kd", "Qd", "Jd", "--json"], "POK-1", "appears twice", 2),
        (["eval", "As", "Zz", "Kd", "Qd", "Jd", "--json"], "POK-1", "Zz", 2),
        (["par", "--profile", "uth-gr", "--decks", "6", "--json"], "POK-1", "52-card deck", 2),
        (["settle", "/nonexistent/round.json", "--json"], None, "cannot read", 1),
    ],
)
def test_eval_par_settle_json_errors(capsys, argv, rule, words, exit_status):
    status, out, _ = run(capsys, *argv)
    assert status == exit_status
    error = json.loads(out)["error"]
    assert error["rule"] == rule and words in error["message"]


def test_a_bad_profile_lists_its_problems_with_rules(capsys, tmp_path):
    profile = tmp_path / "bad.toml"
    text = (Path(__file__).resolve().parents[3] / "config/profiles/trilux-gr.toml").read_text()
    profile.write_text(text.replace('blackjack = "3:2"', 'blackjack = "6:5"'))
    status, out, _ = run(capsys, "par", "--profile", str(profile), "--json")
    assert status == 2  # the --profile argument names a profile that cannot be used
    error = json.loads(out)["error"]
    assert error["rule"] == "BJ-5"
    assert error["problems"] == [
        {
            "key": "paytables.main.blackjack",
            "reason": "the rule book pays 3:2 for blackjack, this profile pays 6:5 (BJ-5)",
            "rule": "BJ-5",
        }
    ]


def test_without_json_errors_stay_on_stderr(capsys):
    status, out, err = run(capsys, "eval", "As", "As", "Kd", "Qd", "Jd")
    assert status == 2 and out == "" and "appears twice" in err
