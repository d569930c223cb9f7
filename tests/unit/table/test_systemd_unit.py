"""The systemd unit and its installer: `systemd-analyze verify` prints nothing, hardening rates
'OK' or better, install.sh stages every file and its options edit the Pi's boot files once.
The unit booted under a real systemd: tests/system/test_unit_boot.py."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from drivers.gpio.buses import bus_pins

REPO = Path(__file__).resolve().parents[3]
UNIT = REPO / "systemd" / "croupierd.service"
analyze = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(analyze is None, reason="systemd-analyze is not installed")


@pytest.fixture
def unit(tmp_path):
    # verify checks that ExecStart exists: point it at this environment's croupierd
    daemon = Path(sys.executable).with_name("croupierd")
    text = UNIT.read_text().replace("/opt/croupier/venv/bin/croupierd", str(daemon))
    path = tmp_path / "croupierd.service"
    path.write_text(text)
    return path


@needs_analyze
def test_verify_prints_nothing(unit):
    run = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True)
    assert run.returncode == 0
    assert run.stdout + run.stderr == ""


@needs_analyze
def test_security_exposure_is_ok_or_better(unit):
    run = subprocess.run(
        [analyze, "security", "--offline=true", str(unit)], capture_output=True, text=True
    )
    match = re.search(r"Overall exposure level for \S+: ([\d.]+) (\w+)", run.stdout)
    assert match, run.stdout[-500:]
    assert float(match.group(1)) <= 4.0
    assert match.group(2) in ("SAFE", "OK")


def test_unit_is_notify_with_watchdog_and_restart():
    text = UNIT.read_text()
    for line in (
        "Type=notify",
        "Restart=on-failure",
        "StateDirectory=croupier",
        "RuntimeDirectory=croupier",
        "WatchdogSec=",
    ):
        assert line in text
    assert re.search(r"SupplementaryGroups=.*gpio.*spi.*dialout", text)


def install(destdir, **options):
    script = UNIT.parent / "install.sh"
    env = {"DESTDIR": str(destdir), "PATH": "/usr/bin:/bin", **options}
    return subprocess.run([str(script)], env=env, capture_output=True, text=True)


def test_install_script_stages_every_file(tmp_path):
    run = install(tmp_path, PROFILE="ch-bg")
    assert run.returncode == 0, run.stderr
    for path in (
        "etc/systemd/system/croupierd.service",
        "etc/udev/rules.d/99-croupier-shuffler.rules",
        "etc/tmpfiles.d/croupier.conf",
        "etc/croupier/table.toml",
        "usr/share/doc/croupier/install.md",
        "usr/share/doc/croupier/LICENSE",
        "usr/share/bash-completion/completions/croupier",  # once written on a live install only
    ):
        assert (tmp_path / path).is_file(), path
    completion = (tmp_path / "usr/share/bash-completion/completions/croupier").read_text()
    assert completion == (REPO / "controller/cli/completions/croupier.bash").read_text()
    # the messages name the staged files, not the live system's
    assert f"staged config/ch-bg.toml as {tmp_path}/etc/croupier/table.toml" in run.stdout
    assert "installed config" not in run.stdout
    assert f"croupier config check {tmp_path}/etc/croupier/table.toml" in run.stdout
    assert f"staged under {tmp_path}: " in run.stdout
    assert 'profile = "ch-bg"' in (tmp_path / "etc/croupier/table.toml").read_text()
    for command in ("croupier", "croupierd"):  # on PATH, into the venv
        link = tmp_path / "usr/local/bin" / command
        assert os.readlink(link) == f"/opt/croupier/venv/bin/{command}"
    assert not (tmp_path / "etc/systemd/system.conf.d").exists()  # options are opt-in


@pytest.mark.parametrize("unit_file", sorted(UNIT.parent.glob("*.service")), ids=lambda p: p.name)
def test_documentation_names_an_installed_file(tmp_path, unit_file):
    """Every unit's Documentation= (croupier-web's named web.md, which was not installed)."""
    assert install(tmp_path).returncode == 0
    docs = re.findall(r"^Documentation=file://(\S+)", unit_file.read_text(), re.M)
    assert docs and all((tmp_path / d.lstrip("/")).is_file() for d in docs), docs


CMDLINE = "console=serial0,115200 console=tty1 root=PARTUUID=1234-02 rootfstype=ext4 quiet\n"


@pytest.fixture
def boot(tmp_path):
    firmware = tmp_path / "boot/firmware"
    firmware.mkdir(parents=True)
    (firmware / "config.txt").write_text("dtparam=audio=on\n[cm4]\notg_mode=1\n")
    (firmware / "cmdline.txt").write_text(CMDLINE)
    return firmware


def test_spi_uart_and_watchdog_options_edit_the_boot_config_once(tmp_path, boot):
    options = {"ENABLE_SPI": "1", "ENABLE_UART": "1", "HARDWARE_WATCHDOG": "1"}
    said = []
    for _ in range(2):  # a second run changes nothing
        run = install(tmp_path, **options)
        assert run.returncode == 0, run.stderr
        said.append(run.stdout)
    config = (boot / "config.txt").read_text()
    # after the [cm4] section, so under [all]: for every board
    assert config == "dtparam=audio=on\n[cm4]\notg_mode=1\n\n[all]\ndtparam=spi=on\nenable_uart=1\n"
    cmdline = (boot / "cmdline.txt").read_text()
    assert "console=serial0" not in cmdline and "console=tty1 root=PARTUUID" in cmdline
    assert f"{boot}/config.txt: enable_uart=1" in said[0]  # the staged file named
    watchdog = (tmp_path / "etc/systemd/system.conf.d/croupier-watchdog.conf").read_text()
    assert "RuntimeWatchdogSec=15s" in watchdog
    # what install.sh enabled is what `config check` reserves (drivers.gpio.buses)
    assert set(bus_pins(config, None)) == {7, 8, 9, 10, 11, 14, 15}


def test_a_missing_boot_config_is_named(tmp_path):
    run = install(tmp_path, ENABLE_UART="1")
    assert run.returncode == 1 and "config.txt: is BOOT right?" in run.stderr


def test_unit_lets_the_gpio_backends_see_the_board_and_opens_the_pis_uarts():
    text = UNIT.read_text()
    assert not re.search(r"^ProcSubset=pid", text, re.M)  # hides /proc/cpuinfo, device-tree
    assert "Environment=LG_WD=/run/croupier" in text
    for device in ("char-ttyAMA", "char-ttyS", "char-gpiochip", "char-spi"):
        assert f"DeviceAllow={device} rw" in text
