#!/bin/sh
# Meridian grand tour: assembles one node's config directory and starts cronstable on it.
#
# Docker runs this as every node's entrypoint; the local tour (`npm run grand-tour`) runs the same
# script once per node, so both paths load the same files. The job set (platform.yaml and its
# companions) is shared by all nine nodes; what differs per node or per machine comes from the
# environment below (the contract is in README.md, "What the runner must provide"):
#
#   NODE_NAME      this node's name (default: $HOSTNAME)
#   BACKEND        gossip (default) | filesystem | none (no cluster section: one plain node)
#   DISTRIBUTION   spread (default on gossip) | single-leader; filesystem is single-leader only
#   WEB_TOKEN      when set, turns on web.authToken (read from this same variable at start)
#   CONFIG_SRC     the example directory (default /config)
#   CONFIG_DIR     where the assembled config goes (default /tmp/cronstable.d)
#   STATE_DIR      the shared state directory (default /var/lib/cronstable/state)
#   WEB_LISTEN     the dashboard/API listen URL (default http://0.0.0.0:8080)
#   CRONSTABLE_URL the URL the probes and the release canary poll (default http://127.0.0.1:8080)
#   PEER_LISTEN    the mTLS /peer listener (default 0.0.0.0:8443)
#   PEERS          every member as name=host:port, space separated (default meridian-a..i on :8443)
#   CERT_DIR       ca.pem, <NODE_NAME>.pem, <NODE_NAME>.key from gen-certs.sh (default /certs)
#   GOSSIP_INTERVAL, DRIFT_AFTER, LEASE_TTL   cluster timings (default 10, 2, 15)
#   SMTP_HOST, SMTP_PORT         the mail sink (default mailpit:1025)
#   WEBHOOK_URL                  the webhook sink's base URL (default http://webhook-sink:8080)
#   STATSD_HOST, STATSD_PORT     the statsd sink (default statsd-exporter:9125)
#   CRONSTABLE_BIN the daemon to exec (default /usr/local/bin/cronstable)
#   ASSEMBLE_ONLY  1: write CONFIG_DIR and exit instead of starting the daemon
#
# Reporter secrets (SMTP_PASSWORD, SENTRY_DSN, REPORT_API_TOKEN) are read by the daemon from its
# environment at report/run time; this script only passes them through.
set -eu

NODE_NAME=${NODE_NAME:-${HOSTNAME:-$(hostname)}}
BACKEND=${BACKEND:-gossip}
DISTRIBUTION=${DISTRIBUTION:-}
WEB_TOKEN=${WEB_TOKEN:-}
CONFIG_SRC=${CONFIG_SRC:-/config}
CONFIG_DIR=${CONFIG_DIR:-/tmp/cronstable.d}
STATE_DIR=${STATE_DIR:-/var/lib/cronstable/state}
WEB_LISTEN=${WEB_LISTEN:-http://0.0.0.0:8080}
CRONSTABLE_URL=${CRONSTABLE_URL:-http://127.0.0.1:8080}
PEER_LISTEN=${PEER_LISTEN:-0.0.0.0:8443}
PEERS=${PEERS:-meridian-a=meridian-a:8443 meridian-b=meridian-b:8443 meridian-c=meridian-c:8443 meridian-d=meridian-d:8443 meridian-e=meridian-e:8443 meridian-f=meridian-f:8443 meridian-g=meridian-g:8443 meridian-h=meridian-h:8443 meridian-i=meridian-i:8443}
CERT_DIR=${CERT_DIR:-/certs}
GOSSIP_INTERVAL=${GOSSIP_INTERVAL:-10}
DRIFT_AFTER=${DRIFT_AFTER:-2}
LEASE_TTL=${LEASE_TTL:-15}
SMTP_HOST=${SMTP_HOST:-mailpit}
SMTP_PORT=${SMTP_PORT:-1025}
WEBHOOK_URL=${WEBHOOK_URL:-http://webhook-sink:8080}
STATSD_HOST=${STATSD_HOST:-statsd-exporter}
STATSD_PORT=${STATSD_PORT:-9125}
CRONSTABLE_BIN=${CRONSTABLE_BIN:-/usr/local/bin/cronstable}
ASSEMBLE_ONLY=${ASSEMBLE_ONLY:-0}

fail() {
  echo "node-entrypoint ($NODE_NAME): $*" >&2
  exit 2
}

case "$BACKEND" in
  gossip) DISTRIBUTION=${DISTRIBUTION:-spread} ;;
  filesystem)
    # One lease file elects one leader: there is no per-job owner to spread over.
    [ -z "$DISTRIBUTION" ] || [ "$DISTRIBUTION" = single-leader ] ||
      fail "BACKEND=filesystem elects a single leader over the lease file; DISTRIBUTION=$DISTRIBUTION needs BACKEND=gossip"
    DISTRIBUTION=single-leader
    ;;
  none) ;;
  *) fail "BACKEND must be gossip, filesystem or none, got '$BACKEND'" ;;
esac
case "$DISTRIBUTION" in
  '' | spread | single-leader) ;;
  *) fail "DISTRIBUTION must be spread or single-leader, got '$DISTRIBUTION'" ;;
esac
# Relative paths would change meaning once the daemon runs elsewhere: anchor them here.
abs() { case "$1" in /*) printf '%s' "$1" ;; *) printf '%s/%s' "$(pwd)" "$1" ;; esac; }
CONFIG_SRC=$(abs "$CONFIG_SRC")
CONFIG_DIR=$(abs "$CONFIG_DIR")
STATE_DIR=$(abs "$STATE_DIR")
CERT_DIR=$(abs "$CERT_DIR")
[ -f "$CONFIG_SRC/platform.yaml" ] || fail "CONFIG_SRC=$CONFIG_SRC holds no platform.yaml"

# Escapes a value for the right-hand side of a sed s### command.
esc() { printf '%s' "$1" | sed -e 's/[\\&#]/\\&/g'; }

rm -rf "$CONFIG_DIR"
mkdir -p "$CONFIG_DIR/secrets"
cp "$CONFIG_SRC/_defaults.yaml" "$CONFIG_SRC/legacy.crontab" "$CONFIG_SRC/platform.env" "$CONFIG_DIR/"
cp "$CONFIG_SRC/secrets/"* "$CONFIG_DIR/secrets/"

# platform.yaml names the Docker hosts and relative files (the daemon resolves those against its
# working directory; made absolute here so `cronstable -c $CONFIG_DIR` works from any directory,
# e.g. `docker compose exec`). Each value below is an exact line or token of it, so a
# rename there without this script following fails the example's tests, not a node at 3 a.m.
token_on=
[ -n "$WEB_TOKEN" ] && token_on=1
sed \
  -e "s#^  path: /var/lib/cronstable/state\$#  path: $(esc "$STATE_DIR")#" \
  -e "s#^    - http://0.0.0.0:8080\$#    - $(esc "$WEB_LISTEN")#" \
  -e "s#smtpHost: mailpit\$#smtpHost: $(esc "$SMTP_HOST")#" \
  -e "s#smtpPort: 1025\$#smtpPort: $(esc "$SMTP_PORT")#" \
  -e "s#http://webhook-sink:8080/#$(esc "$WEBHOOK_URL")/#" \
  -e "s#host: statsd-exporter\$#host: $(esc "$STATSD_HOST")#" \
  -e "s#port: 9125\$#port: $(esc "$STATSD_PORT")#" \
  -e "s#env_file: platform.env\$#env_file: $(esc "$CONFIG_DIR")/platform.env#" \
  -e "s#fromFile: secrets/signing.key\$#fromFile: $(esc "$CONFIG_DIR")/secrets/signing.key#" \
  ${token_on:+-e 's/^  # authToken:$/  authToken:/' -e 's/^  #   fromEnvVar: WEB_TOKEN$/    fromEnvVar: WEB_TOKEN/'} \
  "$CONFIG_SRC/platform.yaml" >"$CONFIG_DIR/platform.yaml"

peer_list() {
  for entry in $PEERS; do
    name=${entry%%=*}
    host=${entry#*=}
    [ "$name" = "$NODE_NAME" ] && continue
    echo "    - host: $host"
  done
}

check_certs() {
  for f in ca.pem "$NODE_NAME.pem" "$NODE_NAME.key"; do
    [ -r "$CERT_DIR/$f" ] || fail "missing $CERT_DIR/$f: run gen-certs.sh first"
  done
}

tls_block() {
  cat <<EOF
  tls:
    ca: $CERT_DIR/ca.pem
    cert: $CERT_DIR/$NODE_NAME.pem
    key: $CERT_DIR/$NODE_NAME.key
EOF
}

cluster=$CONFIG_DIR/cluster.yaml
case "$BACKEND" in
  gossip)
    check_certs
    {
      echo "# Generated by node-entrypoint.sh for $NODE_NAME (BACKEND=gossip, DISTRIBUTION=$DISTRIBUTION)."
      echo "# [feature: mTLS attestation, quorum election, distribution: spread]"
      echo "cluster:"
      echo "  backend: gossip"
      echo "  nodeName: $NODE_NAME"
      echo "  electLeader: true"
      echo "  distribution: $DISTRIBUTION"
      echo "  interval: $GOSSIP_INTERVAL"
      echo "  driftAfter: $DRIFT_AFTER"
      echo "  listen: $PEER_LISTEN"
      tls_block
      echo "  peers:"
      peer_list
    } >"$cluster"
    ;;
  filesystem)
    {
      echo "# Generated by node-entrypoint.sh for $NODE_NAME (BACKEND=filesystem)."
      echo "# [feature: filesystem backend] the election is one lease on the shared state volume."
      echo "cluster:"
      echo "  backend: filesystem"
      echo "  nodeName: $NODE_NAME"
      echo "  filesystem:"
      echo "    path: $STATE_DIR"
      echo "    ttl: $LEASE_TTL"
      echo "    deploymentId: meridian-prod"
      echo "    topology: shared"
      # With certs at hand, an election-inert mesh still feeds the dashboard's fleet view
      # (spec 05 §11); without them the nodes simply show no fleet panel.
      if [ -r "$CERT_DIR/ca.pem" ]; then
        check_certs
        echo "  observability:"
        echo "    shareNodeStats: true"
        echo "    interval: $GOSSIP_INTERVAL"
        echo "    listen: $PEER_LISTEN"
        tls_block | sed 's/^/  /'
        echo "    peers:"
        peer_list | sed 's/^/  /'
      fi
    } >"$cluster"
    ;;
  none) ;;
esac

echo "node-entrypoint: $NODE_NAME assembled $CONFIG_DIR (BACKEND=$BACKEND${DISTRIBUTION:+, DISTRIBUTION=$DISTRIBUTION}${token_on:+, web.authToken on})"
[ "$ASSEMBLE_ONLY" = 1 ] && exit 0

export NODE_NAME CRONSTABLE_URL WEB_TOKEN
# The daemon's working directory is the assembled config, as a reader of platform.yaml expects.
cd "$CONFIG_DIR"
exec "$CRONSTABLE_BIN" -c "$CONFIG_DIR"
