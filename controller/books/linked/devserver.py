"""A throwaway PostgreSQL server for tests, benchmarks and trying linked pools on one machine.

``DevServer(root).start()`` creates a private cluster under ``root`` with the distribution's
PostgreSQL binaries (Debian: ``apt-get install postgresql``) and starts it on a Unix socket in
``root`` (and on 127.0.0.1 when ``tcp`` is set), so it never clashes with a system cluster or
another developer's server. PostgreSQL refuses to run as root; when this process is root, the
cluster belongs to the ``postgres`` user and every server command runs as that user
(``runuser``). Authentication is ``trust`` for the one role ``croupier``: it is a test server.

``stop()`` / ``start()`` stop and restart the same cluster (the tests stop the server in the
middle of a soak); ``kill()`` is an immediate stop, as a crash or power loss would be.

Not for production: a production store is a managed PostgreSQL server (docs/linked-pools.md).
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
from pathlib import Path

from controller.errors import CroupierError

ROLE = "croupier"
SERVER_USER = "postgres"


class DevServerError(CroupierError, RuntimeError):
    """The test server cannot be created or started; the message says why."""


def find_bindir() -> Path | None:
    """The directory of ``initdb`` and ``pg_ctl``: ``$PG_BINDIR``, ``pg_config --bindir``, or
    the newest ``/usr/lib/postgresql/*/bin`` (Debian keeps them off the PATH)."""
    candidates = []
    if os.environ.get("PG_BINDIR"):
        candidates.append(Path(os.environ["PG_BINDIR"]))
    if shutil.which("pg_config"):
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            out = subprocess.run(
                ["pg_config", "--bindir"], capture_output=True, text=True, timeout=10, check=True
            )
            candidates.append(Path(out.stdout.strip()))
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name or 0)
    )
    candidates.extend(Path(p) for p in reversed(versions))
    return next(
        (d for d in candidates if (d / "initdb").exists() and (d / "pg_ctl").exists()), None
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DevServer:
    def __init__(
        self, root: Path, *, tcp: bool = False, port: int | None = None, durable: bool = False
    ) -> None:
        """``durable``: keep ``fsync`` on (benchmarks); tests turn it off for speed, which
        changes nothing the tests look at (a stopped or killed server keeps what it
        committed; only an operating-system crash would lose it)."""
        bindir = find_bindir()
        if bindir is None:
            raise DevServerError(
                "PostgreSQL server binaries not found (Debian: apt-get install postgresql; or set "
                "PG_BINDIR to the directory holding initdb and pg_ctl)"
            )
        self.bindir = bindir
        self.root = Path(root)
        self.data = self.root / "data"
        self.tcp = tcp
        self.port = port or (free_port() if tcp else 5432)
        self.durable = durable
        self._as_user: list[str] = []
        if os.geteuid() == 0:
            try:
                pwd.getpwnam(SERVER_USER)
            except KeyError:
                raise DevServerError(
                    f"running as root and there is no {SERVER_USER!r} user to run PostgreSQL "
                    "(it refuses to run as root)"
                ) from None
            self._as_user = ["runuser", "-u", SERVER_USER, "--"]

    @property
    def dsn(self) -> str:
        host = "127.0.0.1" if self.tcp else str(self.root)
        return f"host={host} port={self.port} user={ROLE} dbname=postgres"

    def dsn_for(self, dbname: str) -> str:
        return self.dsn.replace("dbname=postgres", f"dbname={dbname}")

    def _run(self, *args: str, timeout: float = 60) -> None:
        try:
            subprocess.run(
                [*self._as_user, *args],
                check=True,
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.CalledProcessError as exc:
            detail = (exc.stderr or exc.stdout or "").strip().splitlines()[-3:]
            raise DevServerError(f"{Path(args[0]).name} failed: {' / '.join(detail)}") from None
        except subprocess.TimeoutExpired:
            raise DevServerError(f"{Path(args[0]).name} did not finish in {timeout} s") from None

    def init(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        if self._as_user:
            blocked = [p for p in self.root.resolve().parents if not os.stat(p).st_mode & 0o001]
            if blocked:
                raise DevServerError(
                    f"the {SERVER_USER} user cannot reach {self.root} ({blocked[0]} is closed to "
                    "other users): put the server in a directory such as /tmp/NAME"
                )
            shutil.chown(self.root, SERVER_USER, SERVER_USER)
        self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            ROLE,
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )

    def start(self) -> None:
        if not (self.data / "PG_VERSION").exists():
            self.init()
        listen = "127.0.0.1" if self.tcp else ""
        options = [
            f"-c listen_addresses='{listen}'",
            f"-k {self.root}",
            f"-p {self.port}",
            "-c max_connections=200",
            "-c shared_buffers=64MB",
        ]
        if not self.durable:
            options += ["-c fsync=off", "-c full_page_writes=off"]
        self._run(
            str(self.bindir / "pg_ctl"),
            "-D",
            str(self.data),
            "-l",
            str(self.root / "log"),
            "-w",
            "-t",
            "60",
            "-o",
            " ".join(options),
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: ``fast`` (clients are disconnected, a clean shutdown) or
        ``immediate`` (no shutdown checkpoint: a crash, recovered at the next start)."""
        self._run(str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def kill(self) -> None:
        self.stop("immediate")

    def is_running(self) -> bool:
        return (self.data / "postmaster.pid").exists()

    def destroy(self) -> None:
        if self.is_running():
            with contextlib.suppress(DevServerError):
                self.stop("immediate")
        shutil.rmtree(self.root, ignore_errors=True)
