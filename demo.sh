#!/usr/bin/env sh
# The demo: builds the fake driver once (Maven wrapper, Java 17), then runs
# `fake-dra-driver.jar demo`. Flags are passed on: ./demo.sh --keep
#
# ./demo.sh --cluster runs the same story against a real Kubernetes v1.37.2 control plane
# (e2e/cluster.sh: built from its Go modules on first use, tens of minutes, then cached), where
# the real kube-scheduler places the pod instead of the test kit's allocator. The cluster is
# stopped when the demo ends (with --keep: when you press Ctrl-C).
#
# ./demo.sh --migrate [--grace] moves a real node (the v1.37.2 kubelet on containerd) from the
# unmodified generic-device-plugin to dra4j's host-device driver and back, narrated with its
# timeline (e2e/migrate-demo.sh; needs root and runc, see README "Migrating a node").
set -eu
cd "$(dirname "$0")"
if [ "${1:-}" = --migrate ]; then
  shift
  exec e2e/migrate-demo.sh "$@"
fi
JAR=examples/fake-driver/target/fake-dra-driver.jar
if [ ! -f "$JAR" ] || [ -n "$(find . -path ./.git -prune -o \( -name '*.java' -o -name pom.xml \) -newer "$JAR" -print 2>/dev/null | head -n 1)" ]; then
  echo "building the fake driver (first run, or sources changed; takes a few minutes)..." >&2
  ./mvnw -q -B -pl examples/fake-driver -am package -DskipTests >&2
fi

cluster=no
for a in "$@"; do [ "$a" = --cluster ] && cluster=yes; done
if [ "$cluster" = no ]; then
  exec java -jar "$JAR" demo "$@"
fi

args=""
for a in "$@"; do [ "$a" = --cluster ] || args="$args $a"; done
e2e/cluster.sh build
dir=$(mktemp -d "${TMPDIR:-/tmp}/dra4j-demo-cluster.XXXXXX")
rmdir "$dir"
trap 'e2e/cluster.sh down --dir "$dir"' EXIT INT TERM
eval "$(e2e/cluster.sh up --dir "$dir")"
e2e/cluster.sh node demo-node
# shellcheck disable=SC2086 # $args holds the demo's own flags, one word each
java -jar "$JAR" demo --kubeconfig "$KUBECONFIG" $args
