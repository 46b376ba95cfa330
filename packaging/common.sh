# Shared by the package scripts (spec 10 §7.2); each package's own script sources nothing at run
# time: scripts/package.mjs inlines this text into them. Every step is allowed to fail: a package
# script that fails would leave the package half-installed for a reason the operator cannot fix.

cronstable_user() {
  if ! getent group cronstable >/dev/null 2>&1; then
    groupadd --system cronstable >/dev/null 2>&1 || true
  fi
  if ! getent passwd cronstable >/dev/null 2>&1; then
    useradd --system --gid cronstable --home-dir /var/lib/cronstable --no-create-home \
      --shell /usr/sbin/nologin --comment "cronstable job scheduler" cronstable >/dev/null 2>&1 || true
  fi
}

# systemctl only where systemd runs (not in a container build or a chroot).
cronstable_systemctl() {
  if [ -d /run/systemd/system ]; then
    systemctl "$@" >/dev/null 2>&1 || true
  fi
}
