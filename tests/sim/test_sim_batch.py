"""``make sim``'s runner (controller/rig/sim/batch.py): the runs it cuts, their JSON lines, the
totals, and the exit status when a run fails."""

import io
import json
import sys

from controller.rig.sim import batch


def _fake(report: dict, status: int = 0) -> list[str]:
    """A command that prints ``report`` as a run's JSON and exits with ``status``."""
    code = f"import sys; print({json.dumps(json.dumps(report))}); sys.exit({status})"
    return [sys.executable, "-c", code]


def test_each_profile_is_cut_into_pieces_with_their_own_seeds():
    commands = batch.sim_commands(["uth-gr", "ch-bg"], 1001, 7, 2, 0.2, 0.01)
    runs = [(c[5], c[6], c[7]) for c in commands]
    assert sorted(runs) == [
        ("--profile=ch-bg", "--rounds=501", "--seed=7"),
        ("--profile=ch-bg", "--rounds=501", "--seed=8"),
        ("--profile=uth-gr", "--rounds=501", "--seed=7"),
        ("--profile=uth-gr", "--rounds=501", "--seed=8"),
    ]
    assert all(c[1:5] == ["-m", "controller.cli.main", "sim", "--json"] for c in commands)


def test_totals_add_the_rounds_and_every_json_line_is_printed():
    out = io.StringIO()
    commands = [_fake({"rounds": 3, "violations": []}), _fake({"rounds": 4, "violations": []})]
    totals = batch.run_jobs(commands, 2, out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert sorted(r["rounds"] for r in lines) == [3, 4]
    assert (totals.runs, totals.rounds, totals.failures) == (2, 7, [])
    assert totals.cpu_seconds > 0 and totals.wall_seconds > 0
    assert "7 rounds" in totals.summary(2) and totals.summary(2).endswith("OK")


def test_a_violation_fails_with_its_replay_and_no_new_run_starts():
    bad = _fake({"rounds": 2, "violations": [{"invariant": "once"}], "replay": "croupier sim X"}, 1)
    good = _fake({"rounds": 5, "violations": []})
    totals = batch.run_jobs([bad, good], 1, io.StringIO())
    assert totals.runs == 1 and totals.failures == ["croupier sim X"]
    assert "FAILED" in totals.summary(1)


def test_keep_going_runs_the_rest_after_a_failure():
    bad = _fake({"rounds": 2, "violations": [{"invariant": "once"}], "replay": "croupier sim X"}, 1)
    good = _fake({"rounds": 5, "violations": []})
    totals = batch.run_jobs([bad, good], 1, io.StringIO(), keep_going=True)
    assert (totals.runs, totals.rounds, totals.failures) == (2, 7, ["croupier sim X"])


def test_a_run_that_prints_no_json_fails():
    out = io.StringIO()
    totals = batch.run_jobs([[sys.executable, "-c", "raise SystemExit('no ledger')"]], 1, out)
    assert totals.runs == 1 and len(totals.failures) == 1
    assert json.loads(out.getvalue())["error"] == "no ledger"


def test_main_runs_real_simulations_on_two_cores(capsys):
    status = batch.main(["--profiles", "uth-gr", "--rounds", "4", "--jobs", "2"])
    out = capsys.readouterr().out.splitlines()
    reports = [json.loads(line) for line in out[:-1]]
    assert status == 0
    assert sorted(r["seed"] for r in reports) == [1, 2]
    assert all(r["rounds"] == 2 and r["violations"] == [] for r in reports)
    assert out[-1].startswith("sim: 2 runs on 2 core(s), 4 rounds")
