#!/usr/bin/env bash
# The migration of a real node from a device plugin to DRA and back, narrated (./demo.sh --migrate):
# the real Kubernetes v1.37.2 control plane and kubelet on containerd (e2e/cluster.sh), the
# unmodified generic-device-plugin serving /dev/fuse as devic.es/fuse, and dra4j's host-device
# driver (examples/hostdev-driver) reading the same --device specification under the default guard
# policy, wait. The same pod manifest runs on the device plugin, then on DRA, then on the plugin
# again, and opens /dev/fuse each time. Prints a timeline from the plugin's stop.
#
#   e2e/migrate-demo.sh [--grace]   --grace also waits for the kubelet to drop the stopped plugin's
#                                   capacity (5 minutes after its stop)
#
# Needs what a real node needs (root, runc, overlay; e2e/cluster.sh real-node --check) and builds
# what is missing on first use (the binaries: tens of minutes; the jar: a few minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
grace=no
for a in "$@"; do
  case "$a" in
    --grace) grace=yes ;;
    *) echo "usage: $0 [--grace]" >&2; exit 2 ;;
  esac
done
JAR=examples/hostdev-driver/target/hostdev-dra-driver.jar
NODE=demo
DRIVER=hostdev.example.com
SPEC='{"name": "fuse", "groups": [{"count": 4, "paths": [{"path": "/dev/fuse"}]}]}'

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say() { printf '   %s\n' "$*"; }
now_ms() { date +%s%3N; }
since() { echo "+$(( ($(now_ms) - t0) ))ms"; }

if problem=$(e2e/cluster.sh real-node --check); then :; else
  echo "this machine cannot run a real node: $problem" >&2; exit 3
fi
if [ ! -f "$JAR" ] || [ -n "$(find examples/hostdev-driver dra-runtime dra-api -name '*.java' -newer "$JAR" 2>/dev/null | head -n 1)" ]; then
  echo "building the host-device driver (first run, or sources changed)..." >&2
  ./mvnw -q -B -pl examples/hostdev-driver -am package -DskipTests >&2
fi
e2e/cluster.sh build >/dev/null
e2e/cluster.sh build-node >/dev/null

dir=$(mktemp -d /tmp/dra4j-migrate.XXXXXX)
rmdir "$dir"
driver_pid=""
cleanup() {
  [ -z "$driver_pid" ] || kill "$driver_pid" 2>/dev/null || true
  e2e/cluster.sh down --dir "$dir" >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM
eval "$(e2e/cluster.sh up --dir "$dir" 2>/dev/null)"
kc() { kubectl "$@"; }
root=$(e2e/cluster.sh real-node "$NODE" --cdi-dir "$dir/cdi" 2>/dev/null)
kc create namespace demo >/dev/null
kc create namespace dra4j-system >/dev/null
for f in serviceaccount rbac validatingadmissionpolicy; do
  kc apply -f "examples/hostdev-driver/deploy/$f.yaml" >/dev/null
done
token=$(e2e/cluster.sh token dra4j-system hostdev-dra-driver --node "$NODE" 2>/dev/null)

pod() {
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: fuse-user, namespace: demo}
spec:
  hostNetwork: true
  automountServiceAccountToken: false
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  containers:
  - name: main
    image: dra4j.local/e2e/busybox:local
    imagePullPolicy: Never
    command: [sh, -c, 'r=\$( (exec 3</dev/fuse) 2>&1 ) && echo "open /dev/fuse: ok" || echo "open /dev/fuse: \$r"; exec sleep 3600']
    resources:
      limits: {devic.es/fuse: "1"}
EOF
}
run_pod() { # waits for the pod, prints how it is served and what its open() did
  pod | kc create -f - >/dev/null
  kc wait -n demo pod/fuse-user --for=jsonpath='{.status.phase}'=Running --timeout=120s >/dev/null
  local uid log claim
  uid=$(kc get pod -n demo fuse-user -o jsonpath='{.metadata.uid}')
  log=""
  for _ in $(seq 1 50); do
    log=$(cat "$dir/nodes/$NODE/pod-logs/demo_fuse-user_$uid/main/0.log" 2>/dev/null | cut -d' ' -f4-)
    [ -n "$log" ] && break
    sleep 0.1
  done
  claim=$(kc get pod -n demo fuse-user -o jsonpath='{.status.extendedResourceClaimStatus.resourceClaimName}')
  if [ -n "$claim" ]; then
    say "fuse-user Running ($(since)), served by DRA: the scheduler's claim $claim, device" \
      "$(kc get resourceclaim -n demo "$claim" -o jsonpath='{.status.allocation.devices.results[0].device}')"
  else
    say "fuse-user Running ($(since)), served by the device plugin (no extendedResourceClaimStatus)"
  fi
  say "the container says: $log"
}
drain() {
  kc drain "$NODE" --pod-selector='dra4j.io/placeholder!=true' --force --grace-period=1 --timeout=120s >/dev/null 2>&1
}
values() {
  kc get node "$NODE" -o jsonpath='capacity {.status.capacity.devic\.es/fuse}, allocatable {.status.allocatable.devic\.es/fuse}'
}
slice_devices() {
  kc get resourceslices --field-selector spec.nodeName="$NODE" -o jsonpath='{range .items[*]}{range .spec.devices[*]}{.name}{" "}{end}{end}' | wc -w
}

t0=$(now_ms)
step "1. The device plugin serves devic.es/fuse on node $NODE"
e2e/cluster.sh device-plugin "$NODE" --device "$SPEC" >/dev/null 2>&1
until [ "$(kc get node "$NODE" -o jsonpath='{.status.allocatable.devic\.es/fuse}')" = 4 ]; do sleep 0.2; done
say "generic-device-plugin registered with the kubelet: $(values)"
run_pod

step "2. The DeviceClass maps the name to DRA; the dra4j driver starts beside the plugin (guard: wait)"
java -jar "$JAR" deviceclass --driver-name "$DRIVER" --device "$SPEC" | kc apply -f - | sed 's/^/   /'
java -jar "$JAR" run --driver-name "$DRIVER" --node-name "$NODE" --kubeconfig "$token" \
  --registrar-dir "$root/plugins_registry" --plugin-dir "$root/plugins/$DRIVER" --cdi-dir "$dir/cdi" \
  --health-port 0 --device "$SPEC" >"$dir/driver.log" 2>&1 &
driver_pid=$!
until grep -q "phase device-plugin" "$dir/driver.log"; do sleep 0.2; done
say "the guard: $(grep -o 'phase device-plugin.*' "$dir/driver.log" | head -1 | cut -c1-110)"
say "devices published while the plugin serves the name: $(slice_devices)"

step "3. Cordon and drain the node, stop the device plugin"
drain
say "drained: $(kc get pods -n demo --no-headers 2>/dev/null | wc -l) pods left in demo"
t0=$(now_ms)
e2e/cluster.sh device-plugin "$NODE" --stop >/dev/null 2>&1
say "plugin stopped (+0ms)"
until [ "$(kc get node "$NODE" -o jsonpath='{.status.allocatable.devic\.es/fuse}')" = 0 ]; do sleep 0.1; done
say "allocatable 0 ($(since)): $(values); the scheduler now hands devic.es/fuse to DRA"
until [ "$(slice_devices)" -gt 0 ]; do sleep 0.1; done
say "the guard lets the devices out ($(since)): $(slice_devices) devices published"

step "4. Uncordon; the same pod manifest runs through DRA"
kc uncordon "$NODE" >/dev/null
kc delete pod -n demo fuse-user --ignore-not-found --wait=true >/dev/null 2>&1
run_pod
if [ "$grace" = yes ]; then
  say "waiting for the kubelet to forget the stopped plugin (endpointStopGracePeriod, 5 minutes)..."
  until [ "$(kc get node "$NODE" -o jsonpath='{.status.capacity.devic\.es/fuse}')" = 0 ]; do sleep 1; done
  say "capacity 0 ($(since)): $(values); the name stays at 0 for good"
else
  say "$(values): capacity follows 5 minutes after the stop (--grace waits for it)"
fi

step "5. Rollback: drain, stop the DRA driver, the kubelet wipes its slices, start the plugin"
drain
t0=$(now_ms)
kill "$driver_pid"; wait "$driver_pid" 2>/dev/null || true; driver_pid=""
say "driver stopped (+0ms)"
until [ "$(kc get resourceslices --field-selector spec.nodeName="$NODE" -o name | wc -l)" = 0 ]; do sleep 0.2; done
say "the kubelet wiped the driver's slices ($(since))"
e2e/cluster.sh device-plugin "$NODE" --device "$SPEC" >/dev/null 2>&1
until [ "$(kc get node "$NODE" -o jsonpath='{.status.allocatable.devic\.es/fuse}')" = 4 ]; do sleep 0.1; done
say "plugin started, $(values) ($(since))"
kc uncordon "$NODE" >/dev/null
run_pod

step "Done: the same manifest ran on the device plugin, on DRA and on the plugin again."
say "the full story, with the fail and warn guards and the timeline sampled every 100 ms:"
say "./mvnw -Pe2e -pl e2e -am verify -Dit.test=MigrationIT (see README, Migrating a node)"
