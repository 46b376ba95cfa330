#!/bin/sh
# Three cronstable nodes on loopback sharing one state directory, leader elected over it
# (filesystem backend), all running example/dag-cluster/dags.yaml. Dashboards on
# http://127.0.0.1:8080/ .. :8082/; Ctrl-C stops every node. Extra arguments go to the fleet
# runner (e.g. --web-port 9080, --dir /tmp/dagfleet --keep to look at the store afterwards).
set -e
cd "$(dirname "$0")/../.."
npm run --silent build
exec npm run --silent fleet -- --nodes 3 --backend filesystem --jobs example/dag-cluster/dags.yaml "$@"
