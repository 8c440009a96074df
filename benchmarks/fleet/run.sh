#!/usr/bin/env bash
# The fleet benchmark in one command, from the repository root or anywhere:
#   benchmarks/fleet/run.sh [--nodes 100] [harness flags]     (--help lists them)
# Builds the harness (Maven), makes sure the Kubernetes v1.37.2 binaries are there
# (e2e/cluster.sh build: a no-op when cached), starts a control plane of its own in
# $DRA4J_FLEET_DIR (default $TMPDIR/dra4j-fleet), runs the harness against it and stops it again.
# The table goes to stdout (and benchmarks/fleet/target/fleet-table.md), the figures to
# benchmarks/fleet/target/fleet-figures.json, the QPS plots to benchmarks/fleet/target/*.png.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
base="${DRA4J_FLEET_DIR:-${TMPDIR:-/tmp}/dra4j-fleet}"
cluster="$base/cluster"
work="$base/nodes"

./mvnw -q -pl benchmarks -am package -DskipTests \
  dependency:build-classpath -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=runtime >&2
e2e/cluster.sh build >&2
e2e/cluster.sh down --dir "$cluster" >&2
mkdir -p "$base"
e2e/cluster.sh up --dir "$cluster" >/dev/null
trap 'e2e/cluster.sh down --dir "$cluster" >&2; rm -rf "$work"' EXIT
rm -rf "$work" && mkdir -p "$work"
# A node has a few sockets, an HTTP/2 connection and epoll descriptors; 500 nodes need more
# than the usual 1024.
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" || true
java -Djava.awt.headless=true \
  -cp "benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)" \
  io.dra4j.benchmarks.fleet.FleetBench --cluster-dir "$cluster" --script e2e/cluster.sh \
  --work "$work" --out benchmarks/fleet/target "$@"
