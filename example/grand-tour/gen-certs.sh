#!/bin/sh
# Meridian grand tour: mints the throwaway cluster CA and one leaf certificate per node for the
# gossip backend's mutual TLS (spec 05 §5.2). The CA is the membership allowlist: only a node
# holding a leaf it signed can join. P-256 keys: nine RSA keys cost seconds of CPU.
#
#   gen-certs.sh OUT_DIR [NAME[=EXTRA_SANS] ...]
#
# NAME defaults to meridian-a ... meridian-i. Each leaf carries DNS:NAME (the host the other nodes
# dial in Docker, which the TLS check matches) plus any EXTRA_SANS, e.g. a loopback alias for a
# local run:  gen-certs.sh /tmp/certs meridian-a=IP:127.0.0.11 meridian-b=IP:127.0.0.12
#
# Writes OUT_DIR/ca.pem, ca.key, and NAME.pem / NAME.key per node. Idempotent: an existing
# ca.pem is kept (so restarting the compose file does not split the fleet across two CAs) and
# only missing leaves are minted. CERT_OWNER=uid:gid (set by the compose file) hands the files to
# the unprivileged user the nodes run as.
set -eu

out=${1:?usage: gen-certs.sh OUT_DIR [NAME[=EXTRA_SANS] ...]}
shift
[ $# -gt 0 ] || set -- meridian-a meridian-b meridian-c meridian-d meridian-e meridian-f meridian-g meridian-h meridian-i
days=${CERT_DAYS:-825}

command -v openssl >/dev/null 2>&1 || { echo "gen-certs.sh: openssl is not installed" >&2; exit 2; }
mkdir -p "$out"
cd "$out"
umask 077

if [ ! -s ca.pem ] || [ ! -s ca.key ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout ca.key -out ca.pem -days "$days" -subj "/CN=meridian-cluster-ca" \
    -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
  echo "gen-certs: new cluster CA in $out/ca.pem"
fi

for spec in "$@"; do
  name=${spec%%=*}
  extra=
  [ "$name" = "$spec" ] || extra=",${spec#*=}"
  [ -s "$name.pem" ] && [ -s "$name.key" ] && continue
  cat >"$name.ext" <<EOF
basicConstraints=CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=serverAuth,clientAuth
subjectAltName=DNS:$name,DNS:localhost$extra
EOF
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$name.key" -out "$name.csr" -subj "/CN=$name" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
    -days "$days" -extfile "$name.ext" -out "$name.pem" 2>/dev/null
  rm -f "$name.csr" "$name.ext"
  echo "gen-certs: $name"
done

chmod 0644 ./*.pem
chmod 0600 ./*.key
if [ -n "${CERT_OWNER:-}" ]; then
  for f in ./*.pem ./*.key; do [ "$f" = ./ca.key ] || chown "$CERT_OWNER" "$f"; done
fi
