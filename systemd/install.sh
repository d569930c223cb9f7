#!/bin/sh
# Install croupierd on a Raspberry Pi (run as root from the source tree): `make install`.
#
#   user and groups   croupier (system user) in gpio, spi, dialout, plugdev
#   software          /opt/croupier/venv (pip install '.[pi]'), its self-check manifest
#   configuration     /etc/croupier/table.toml (from config/$PROFILE.toml if none exists yet)
#   units             croupierd.service, the shuffler's udev rule, tmpfiles for /etc/croupier
#
# DESTDIR=/some/root installs the files under that root and skips the steps that change the
# running system (user, venv, systemctl, udevadm): for packaging and for the tests.
set -eu
cd "$(dirname "$0")/.."
DESTDIR=${DESTDIR:-}
PROFILE=${PROFILE:-uth-gr}
PREFIX=/opt/croupier/venv
live() { [ -z "$DESTDIR" ]; }

if live; then
    id croupier >/dev/null 2>&1 || useradd --system --home-dir /var/lib/croupier \
        --shell /usr/sbin/nologin --user-group croupier
    for group in gpio spi dialout plugdev; do
        if getent group "$group" >/dev/null; then usermod -a -G "$group" croupier; fi
    done
    python3 -m venv "$PREFIX"
    "$PREFIX/bin/pip" install --quiet --upgrade pip
    "$PREFIX/bin/pip" install --quiet '.[pi]'
    "$PREFIX/bin/croupier" selfcheck manifest   # what the power-up self-check compares
fi

install -d -m 0755 "$DESTDIR/etc/systemd/system" "$DESTDIR/etc/udev/rules.d" \
    "$DESTDIR/etc/tmpfiles.d"
install -d -m 0750 "$DESTDIR/etc/croupier"
install -m 0644 systemd/croupierd.service "$DESTDIR/etc/systemd/system/croupierd.service"
install -m 0644 systemd/99-croupier-shuffler.rules "$DESTDIR/etc/udev/rules.d/99-croupier-shuffler.rules"
install -m 0644 systemd/croupier.conf "$DESTDIR/etc/tmpfiles.d/croupier.conf"
if [ ! -e "$DESTDIR/etc/croupier/table.toml" ]; then
    install -m 0640 "config/$PROFILE.toml" "$DESTDIR/etc/croupier/table.toml"
    echo "installed config/$PROFILE.toml as /etc/croupier/table.toml: edit it, then"
    echo "  croupier config check /etc/croupier/table.toml"
fi

if live; then
    chgrp croupier /etc/croupier /etc/croupier/table.toml
    # the table's report signing key (docs/regulatory.md); its .pub.pem goes to the regulator
    [ -e /etc/croupier/report-key.pem ] || "$PREFIX/bin/croupier" report keygen --key /etc/croupier/report-key.pem
    chown croupier:croupier /etc/croupier/report-key.pem
    systemctl daemon-reload
    udevadm control --reload-rules && udevadm trigger --subsystem-match=tty --subsystem-match=usb
    echo "start it with: systemctl enable --now croupierd"
fi
