#!/bin/sh
# Install croupierd on a Raspberry Pi (run as root from the source tree): `make install`.
# Step by step, with what each option does: docs/install.md.
#
#   build tools       gcc, python3-dev, python3-venv (RPi.GPIO, lgpio and spidev build from source)
#   user and groups   croupier (system user) in gpio, spi, dialout, plugdev (created if missing)
#   software          /opt/croupier/venv (pip install '.[pi]'), its self-check manifest;
#                     croupier and croupierd on PATH (/usr/local/bin)
#   configuration     /etc/croupier/table.toml (from config/$PROFILE.toml if none exists yet)
#   units             croupierd.service, the shuffler's udev rule, tmpfiles for /etc/croupier
#   documentation     /usr/share/doc/croupier (the unit's Documentation=)
#   completion        /usr/share/bash-completion/completions/croupier
#
# Options (environment variables):
#   PROFILE=uth-gr        the example configuration installed as /etc/croupier/table.toml
#   TECHNICIAN=login      add this login to the croupier group (the CLI's control socket)
#   ENABLE_SPI=1          dtparam=spi=on in config.txt (the LED sign on SPI0; GPIO7-11)
#   ENABLE_UART=1         enable_uart=1 in config.txt, the serial console off (a shuffler on
#                         /dev/serial0; GPIO14/15)
#   HARDWARE_WATCHDOG=1   systemd pets the Pi's hardware watchdog (RuntimeWatchdogSec=15s)
#   BOOT=/boot/firmware   where config.txt and cmdline.txt are (/boot on Pi OS before bookworm)
# The boot options take effect at the next reboot.
#   web service       croupier-web (system user in group croupier), croupier-web.service
#
# DESTDIR=/some/root installs the files under that root and skips the steps that change the
# running system (packages, user, venv, keys, systemctl, udevadm): for packaging and for the
# tests; every message then names the staged path.
set -eu
cd "$(dirname "$0")/.."
DESTDIR=${DESTDIR:-}
PROFILE=${PROFILE:-uth-gr}
BOOT=${BOOT:-/boot/firmware}
PREFIX=/opt/croupier/venv
DOC=/usr/share/doc/croupier
COMPLETIONS=/usr/share/bash-completion/completions
live() { [ -z "$DESTDIR" ]; }

# config.txt: add "key=value" under a final [all] section unless the line is there already.
boot_line() {
    config="$DESTDIR$BOOT/config.txt"
    [ -f "$config" ] || { echo "no $config: is BOOT right?" >&2; exit 1; }
    grep -qx "$1" "$config" && return 0
    last=$(grep -E '^\[.*\]' "$config" | tail -n 1)
    [ -z "$last" ] || [ "$last" = "[all]" ] || printf '\n[all]\n' >> "$config"
    echo "$1" >> "$config"
    echo "$DESTDIR$BOOT/config.txt: $1 (takes effect at the next reboot)"
}

if live; then
    if command -v apt-get >/dev/null; then
        apt-get update -q && apt-get install -y -q gcc python3-dev python3-venv
    fi
    id croupier >/dev/null 2>&1 || useradd --system --home-dir /var/lib/croupier \
        --shell /usr/sbin/nologin --user-group croupier
    for group in gpio spi dialout plugdev; do  # the unit's SupplementaryGroups=
        getent group "$group" >/dev/null || groupadd --system "$group"
        usermod -a -G "$group" croupier
    done
    python3 -m venv "$PREFIX"
    "$PREFIX/bin/pip" install --quiet --upgrade pip
    "$PREFIX/bin/pip" install --quiet '.[pi]'
    "$PREFIX/bin/croupier" selfcheck manifest   # what the power-up self-check compares
    if [ -n "${TECHNICIAN:-}" ]; then
        usermod -a -G croupier "$TECHNICIAN"
        echo "$TECHNICIAN is in the croupier group (log in again to use croupier status)"
    fi
    id croupier-web >/dev/null 2>&1 || useradd --system --no-create-home \
        --shell /usr/sbin/nologin --user-group --groups croupier croupier-web
fi

install -d -m 0755 "$DESTDIR/etc/systemd/system" "$DESTDIR/etc/udev/rules.d" \
    "$DESTDIR/etc/tmpfiles.d" "$DESTDIR/usr/local/bin" "$DESTDIR$DOC"
install -d -m 0750 "$DESTDIR/etc/croupier"
install -m 0644 systemd/croupierd.service "$DESTDIR/etc/systemd/system/croupierd.service"
install -m 0644 systemd/croupier-web.service "$DESTDIR/etc/systemd/system/croupier-web.service"
install -m 0644 systemd/99-croupier-shuffler.rules "$DESTDIR/etc/udev/rules.d/99-croupier-shuffler.rules"
install -m 0644 systemd/croupier.conf "$DESTDIR/etc/tmpfiles.d/croupier.conf"
install -m 0644 docs/install.md docs/web.md README.md LICENSE "$DESTDIR$DOC/"
for command in croupier croupierd; do
    ln -sf "$PREFIX/bin/$command" "$DESTDIR/usr/local/bin/$command"
done
# bash completion of the croupier CLI: the script the source ships, made from the CLI's own
# parser (`croupier completion bash` prints the same), so that a staged tree has it too
install -d -m 0755 "$DESTDIR$COMPLETIONS"
install -m 0644 controller/cli/completions/croupier.bash "$DESTDIR$COMPLETIONS/croupier"
if [ ! -e "$DESTDIR/etc/croupier/table.toml" ]; then
    install -m 0640 "config/$PROFILE.toml" "$DESTDIR/etc/croupier/table.toml"
    if live; then
        echo "installed config/$PROFILE.toml as /etc/croupier/table.toml: edit it, then"
        echo "  croupier config check /etc/croupier/table.toml"
    else
        echo "staged config/$PROFILE.toml as $DESTDIR/etc/croupier/table.toml" \
            "(/etc/croupier/table.toml once installed): edit it, then"
        echo "  croupier config check $DESTDIR/etc/croupier/table.toml"
    fi
fi

if [ "${ENABLE_SPI:-0}" = 1 ]; then
    boot_line "dtparam=spi=on"
fi
if [ "${ENABLE_UART:-0}" = 1 ]; then
    boot_line "enable_uart=1"
    cmdline="$DESTDIR$BOOT/cmdline.txt"
    if [ -f "$cmdline" ] && grep -Eq 'console=(serial0|ttyAMA0|ttyS0),[0-9]+' "$cmdline"; then
        sed -E -i 's/ ?console=(serial0|ttyAMA0|ttyS0),[0-9]+//g' "$cmdline"
        echo "$DESTDIR$BOOT/cmdline.txt: the serial console is off (the UART is the shuffler's)"
    fi
    if live; then
        systemctl disable --now serial-getty@serial0.service serial-getty@ttyAMA0.service \
            serial-getty@ttyS0.service 2>/dev/null || true
    fi
fi
if [ "${HARDWARE_WATCHDOG:-0}" = 1 ]; then
    install -d -m 0755 "$DESTDIR/etc/systemd/system.conf.d"
    printf '[Manager]\nRuntimeWatchdogSec=15s\nRebootWatchdogSec=2min\n' \
        > "$DESTDIR/etc/systemd/system.conf.d/croupier-watchdog.conf"
    echo "hardware watchdog ($DESTDIR/etc/systemd/system.conf.d/croupier-watchdog.conf):" \
        "systemd pets it every 7.5 s; a hung Pi reboots after 15 s"
fi

if live; then
    chgrp croupier /etc/croupier /etc/croupier/table.toml
    if [ ! -e /etc/croupier/ledger.key ]; then   # the per-table ledger key, once (docs/ledger.md)
        "$PREFIX/bin/croupier" ledger-key create --key /etc/croupier/ledger.key   # mode 0400
        chown croupier:croupier /etc/croupier/ledger.key
    fi
    # the table's report signing key (docs/regulatory.md); its .pub.pem goes to the regulator
    [ -e /etc/croupier/report-key.pem ] || "$PREFIX/bin/croupier" report keygen --key /etc/croupier/report-key.pem
    chown croupier:croupier /etc/croupier/report-key.pem
    systemctl daemon-reload
    udevadm control --reload-rules && udevadm trigger --subsystem-match=tty --subsystem-match=usb
    echo "start it with: systemctl enable --now croupierd"
else
    echo "staged under $DESTDIR: units, udev rule, tmpfiles, configuration, documentation," \
        "bash completion; not done: packages, users, the venv in $PREFIX and its manifest," \
        "the ledger and report keys, systemctl and udevadm (docs/install.md)"
fi
