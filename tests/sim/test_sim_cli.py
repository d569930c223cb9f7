"""``croupier sim`` as a command: the JSON object, the exit status, the replay line and the
trace of a failing round."""

import json
import os
import subprocess
import sys

from simsweep import plant_a_void_that_forgets_one_stake

from controller.cli.main import main


def run(capsys, *argv):
    status = main(["sim", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_json_reports_one_object_and_exit_0(capsys):
    status, out, _ = run(capsys, "--profile", "ch-bg", "--rounds", "5", "--seed", "4", "--json")
    data = json.loads(out)
    assert status == 0
    assert {"rounds", "rounds_per_s", "digest", "violations", "seed"} <= set(data)
    assert data["rounds"] == 5 and data["violations"] == [] and data["seed"] == 4
    assert len(data["digest"]) == 64


def test_a_violation_exits_1_with_the_replay_command_and_the_trace(capsys, monkeypatch):
    plant_a_void_that_forgets_one_stake(monkeypatch)
    argv = ("--rounds", "40", "--seed", "1", "--faults", "0.5", "--crash-rate", "0")
    status, out, _ = run(capsys, *argv, "--trace")
    assert status == 1
    assert "FAILED" in out and "replay: croupier sim --profile uth-gr" in out
    assert "trace of the failing round" in out and "VIOLATION void" in out
    status, out, _ = run(capsys, *argv, "--json", "--trace")
    data = json.loads(out)
    assert status == 1 and data["violations"][0]["invariant"] in ("void", "books")
    assert data["replay"].startswith("croupier sim ") and data["trace"]


def test_the_digest_is_the_same_in_another_process_whatever_its_hash_seed():
    """Set and dict orders that depend on PYTHONHASHSEED would break the replay."""
    sim = "sim --profile uth-it --rounds 15 --seed 5 --faults 0.4 --crash-rate 0.1 --json"
    argv = [sys.executable, "-m", "controller.cli.main", *sim.split()]
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == 0, done.stderr
        digests.add(json.loads(done.stdout)["digest"])
    assert len(digests) == 1
