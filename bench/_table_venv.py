"""How a benchmark starts the daemon and the CLI of the checkout it measures: a
:class:`Launcher`.

Two ways, both with the checkout's own code, both with a software manifest, so that the
daemon's power-up self-check hashes the installed software before READY as on a table:

- :func:`installed`: the table as systemd/install.sh installs it on a Pi: ``python3 -m venv``
  from the distribution's interpreter (``/usr/bin/python3``: Raspberry Pi OS's is Debian's
  build), pip upgraded, ``pip install CHECKOUT[pi]`` (the ``pi`` extras' markers make them
  nothing off a Pi), ``croupier selfcheck manifest``, then its ``croupier`` and ``croupierd``
  scripts. The dependencies are pinned to the development venv's versions, so that only the
  interpreter and the install differ between the two. pip builds from a copy of the checkout
  (a build in place leaves ``build/`` behind, whose stale modules a later build would ship).
  What bench/pi_budget.py and bench/cli_help.py measure by default.
- :func:`development`: the checkout's development venv as ``make venv`` makes it (this
  interpreter, an editable install with coverage's start-up hook), with the checkout as the
  working directory so that its code comes first, and a manifest of it in the scratch
  directory (``$CROUPIER_MANIFEST``). ``--venv development``; ``--venv both`` measures the two
  side by side.

Until session 9 this VM's development venv had pyenv's CPython 3.11.7 (built here from source,
with a shared ``libpython``; the Makefile now prefers the distribution's ``/usr/bin/python3``,
Debian 12's 3.11.2, whose executable has the interpreter linked in). The same work cost about
a fifth more CPU on the first (docs/daemon.md, "Fast on a slow CPU", session 9): figures taken
with another interpreter than the table's say little about the table.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

# what `python3` is on a Pi OS or Debian table (systemd/install.sh: `python3 -m venv`)
DISTRIBUTION_PYTHON = "/usr/bin/python3"
# the checkout's packages, compiled before a development run: this VM sets
# PYTHONDONTWRITEBYTECODE, and a tree edited since its last compile would otherwise compile its
# changed modules again in every process measured (pip compiles what it installs)
PACKAGES = ("controller", "drivers", "firmware_bridge", "display")
# what the installed `croupier` script runs (not `-m`: runpy costs every command more)
CROUPIER = "import sys; from controller.cli.main import main; sys.exit(main())"
# not copied for pip's build: version control, venvs, caches, earlier builds
NOT_BUILT = shutil.ignore_patterns(
    ".git", ".venv", "build", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis", ".sim"
)
INSTALL_TIMEOUT = 900.0  # seconds for one step (pip over a slow network)


class InstallError(Exception):
    """A table's venv could not be made (no such interpreter, no venv module, pip failed)."""


@dataclass(frozen=True)
class Launcher:
    """The commands that start one checkout's processes."""

    label: str  # what the report says was measured
    python: list[str]  # the interpreter, for the bare `python -c pass` beside the figures
    cli: list[str]  # `croupier`, arguments follow
    daemon: list[str]  # `croupierd`, arguments follow
    # every process's working directory: the checkout in development (its code first on the
    # path); an installed table's venv, where no `controller` package lies, so that the
    # installed code runs
    cwd: Path
    env: dict[str, str] = field(default_factory=dict)  # added to every process's environment

    def environment(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        """This process's environment with the launcher's and ``extra``'s variables."""
        return {**os.environ, **self.env, **(extra or {})}

    def run(self, argv: list[str], preexec: Callable[[], None] | None = None) -> None:
        """Run ``argv`` (one of this checkout's commands) to its end, its output discarded;
        ``preexec`` runs in the child before exec (a CPU quota's ``enter``)."""
        subprocess.run(
            argv,
            cwd=self.cwd,
            env=self.environment(),
            capture_output=True,
            preexec_fn=preexec,
            check=False,
        )

    def median_wall(
        self, argv: list[str], runs: int, preexec: Callable[[], None] | None = None
    ) -> float:
        """The median wall seconds of ``runs`` runs of ``argv`` (see :meth:`run`)."""
        times = []
        for _ in range(runs):
            started = time.perf_counter()
            self.run(argv, preexec)
            times.append(time.perf_counter() - started)
        return statistics.median(times)


def _run(step: str, argv: list[str], env: dict[str, str] | None = None) -> str:
    """Run one step of an install; its output, or :class:`InstallError` with its last lines."""
    try:
        done = subprocess.run(
            argv, capture_output=True, text=True, env=env, timeout=INSTALL_TIMEOUT, check=False
        )
    except OSError as exc:
        raise InstallError(f"cannot {step}: {exc.strerror or exc}") from None
    except subprocess.TimeoutExpired:
        raise InstallError(f"cannot {step}: no end after {INSTALL_TIMEOUT:g} s") from None
    if done.returncode != 0:
        last = " | ".join(done.stderr.strip().splitlines()[-3:]) or "(no message)"
        raise InstallError(f"cannot {step} (status {done.returncode}): {last}")
    return done.stdout


def development(tree: Path, scratch: Path) -> Launcher:
    """The checkout's development venv (this interpreter), its code imported from ``tree``,
    its manifest in ``scratch``."""
    _run(
        "compile the checkout",
        [sys.executable, "-m", "compileall", "-q", *(str(tree / p) for p in PACKAGES)],
    )
    env = {"CROUPIER_MANIFEST": str(scratch / "manifest.json")}
    cli = [sys.executable, "-c", CROUPIER]
    _run("write the manifest", [*cli, "selfcheck", "manifest"], {**os.environ, **env})
    return Launcher(
        label=f"development venv ({sys.executable}, Python {sys.version.split()[0]})",
        python=[sys.executable],
        cli=cli,
        daemon=[sys.executable, "-m", "controller.table.daemon"],
        cwd=tree,
        env=env,
    )


def installed(tree: Path, scratch: Path, python: str = DISTRIBUTION_PYTHON) -> Launcher:
    """``tree`` installed as systemd/install.sh installs a table, in a new venv under
    ``scratch`` made from ``python``. Raises :class:`InstallError` naming the step that
    failed."""
    venv, source = scratch / "venv", scratch / "source"
    bin_dir = venv / "bin"
    pip = [str(bin_dir / "pip"), "install", "--quiet", "--disable-pip-version-check"]
    pins = scratch / "constraints.txt"  # the development venv's versions
    pins.write_text(
        _run(
            "list the development venv's packages",
            [sys.executable, "-m", "pip", "freeze", "--exclude-editable"],
        )
    )
    shutil.copytree(tree, source, ignore=NOT_BUILT)
    _run(f"make a venv with {python}", [python, "-m", "venv", str(venv)])
    _run("upgrade pip", [*pip, "--upgrade", "pip"])
    _run(f"install {tree}", [*pip, "--constraint", str(pins), f"{source}[pi]"])
    _run("write the manifest", [str(bin_dir / "croupier"), "selfcheck", "manifest"])
    version = _run(
        "ask the venv's Python its version",
        [str(bin_dir / "python"), "-c", "import platform; print(platform.python_version())"],
    ).strip()
    return Launcher(
        label=f"installed table (venv from {python}, Python {version})",
        python=[str(bin_dir / "python")],
        cli=[str(bin_dir / "croupier")],
        daemon=[str(bin_dir / "croupierd")],
        cwd=venv,
    )


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--venv`` and ``--table-python``, for a benchmark that measures checkouts."""
    parser.add_argument(
        "--venv",
        choices=("installed", "development", "both"),
        default="installed",
        help="measure each checkout as an installed table, in its development venv, or both"
        " side by side (%(default)s)",
    )
    parser.add_argument(
        "--table-python",
        default=DISTRIBUTION_PYTHON,
        metavar="PATH",
        help="the interpreter an installed table's venv is made from (%(default)s)",
    )


def launchers(
    args: argparse.Namespace, trees: dict[str, Path], scratch: Path
) -> dict[str, Launcher]:
    """Each checkout of ``trees`` as ``--venv`` says, made under ``scratch``; with ``both``
    each name gets a " (development)" and an " (installed)" launcher. Exits with the reason
    when a checkout cannot be installed (``--venv development`` needs no install)."""
    made = {}
    for n, (name, tree) in enumerate(trees.items()):
        if args.venv in ("development", "both"):
            place = scratch / f"development-{n}"
            place.mkdir()
            made[f"{name} (development)" if args.venv == "both" else name] = development(
                tree, place
            )
        if args.venv in ("installed", "both"):
            print(f"installing {tree} as a table ({args.table_python}) ...", file=sys.stderr)
            place = scratch / f"installed-{n}"
            place.mkdir()
            try:
                launcher = installed(tree, place, args.table_python)
            except InstallError as exc:
                why = f"{exc} (--venv development measures the checkout's venv)"
                raise SystemExit(why) from None
            made[f"{name} (installed)" if args.venv == "both" else name] = launcher
    return made
