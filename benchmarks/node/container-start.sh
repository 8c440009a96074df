#!/usr/bin/env bash
# Container start → registration on a real node, for the fake driver's images:
#   benchmarks/node/container-start.sh [--dir D] [--starts N] IMAGE.tar [IMAGE.tar ...]
# Starts a control plane and a real node (e2e/cluster.sh up and real-node: the v1.37.2 kubelet on
# containerd 2.x with Debian's runc, as RealNodeIT's), imports each image tar
# (examples/images/build.sh fake-driver) into the node's containerd and runs it N times (default
# 3), the images alternating, as a host-network pod placed on the node the way the DaemonSet's is
# (the kubelet's registry and plugin folders and the CDI folder mounted, a 160Mi memory limit, the
# image's own entrypoint and JVM flags). Per start: from containerd's StartContainer for the
# driver's container to the kubelet's DRA plugin manager connected to the driver ("Connection
# changed ... connected=true", after GetInfo and NotifyRegistrationStatus), from the two
# processes' logs, and from the driver's own log when it served its sockets and when the kubelet
# called GetInfo. Prints per image the median and each start (ms). Needs root and
# `e2e/cluster.sh build` and `build-node`; stops the cluster (D, default /tmp/dra4j-cs) at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=/tmp/dra4j-cs starts=3 images=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir=$2; shift 2 ;;
    --starts) starts=$2; shift 2 ;;
    -*) echo "unknown flag $1" >&2; exit 2 ;;
    *) images+=("$(realpath "$1")"); shift ;;
  esac
done
[ ${#images[@]} -gt 0 ] || { echo "usage: $0 [--dir D] [--starts N] IMAGE.tar ..." >&2; exit 2; }
node=cs
trap 'e2e/cluster.sh down --dir "$dir" >/dev/null 2>&1 || true' EXIT
eval "$(e2e/cluster.sh up --dir "$dir")"
root="$(e2e/cluster.sh real-node "$node" --cdi-dir "$dir/cdi")"
ctr=("${DRA4J_CACHE:-$HOME/.cache/dra4j}/containerd-v2.4.2/bin/ctr" --address "$dir/nodes/$node/containerd.sock" --namespace k8s.io)
kubelet_log="$dir/logs/kubelet-$node.log" containerd_log="$dir/logs/containerd-$node.log"

# Each tar under a tag of its own: two builds of one driver carry the same name.
tags=()
for i in "${!images[@]}"; do
  tag="$(tar -xOf "${images[$i]}" manifest.json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["RepoTags"][0])')"
  "${ctr[@]}" images import --snapshotter overlayfs "${images[$i]}" >&2
  "${ctr[@]}" images tag --force "$tag" "dra4j.local/bench/driver-$i:local" >&2
  tags+=("dra4j.local/bench/driver-$i:local")
done

pod() { # name, image
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: default}
spec:
  nodeName: $node
  hostNetwork: true
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: 10
  tolerations: [{operator: Exists}]
  containers:
  - name: driver
    image: $2
    imagePullPolicy: Never
    args: [run, --kubeconfig, /etc/driver/kubeconfig, --registrar-dir, $root/plugins_registry,
      --plugin-dir, $root/plugins/gpu.example.com, --cdi-dir, /var/run/cdi, --health-port, "-1",
      --devices, "1", --device-nodes, /dev/null]
    env:
    - {name: DRIVER_NAME, value: gpu.example.com}
    - {name: NODE_NAME, value: $node}
    - name: POD_UID
      valueFrom: {fieldRef: {fieldPath: metadata.uid}}
    resources: {limits: {memory: 160Mi}}
    securityContext: {privileged: true}
    volumeMounts:
    - {name: registry, mountPath: $root/plugins_registry}
    - {name: plugins, mountPath: $root/plugins}
    - {name: cdi, mountPath: /var/run/cdi}
    - {name: kubeconfig, mountPath: /etc/driver/kubeconfig, readOnly: true}
  volumes:
  - {name: registry, hostPath: {path: $root/plugins_registry}}
  - {name: plugins, hostPath: {path: $root/plugins}}
  - {name: cdi, hostPath: {path: $dir/cdi}}
  - {name: kubeconfig, hostPath: {path: $KUBECONFIG, type: File}}
EOF
}

# Seconds since the epoch of containerd's time="..." and of a klog header (IMMDD hh:mm:ss.us, UTC).
containerd_time() { date -u -d "$(sed -n 's/^time="\([^"]*\)".*/\1/p' <<<"$1")" +%s.%N; }
klog_time() { date -u -d "$(date -u +%Y)-${1:1:2}-${1:3:2} ${1:6:15}" +%s.%N; }
since() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; }

declare -A results
for n in $(seq 1 "$starts"); do
  for i in "${!tags[@]}"; do
    name="driver-$i-$n"
    k0=$(wc -l <"$kubelet_log") c0=$(wc -l <"$containerd_log")
    pod "$name" "${tags[$i]}" | kubectl apply -f - >/dev/null
    connected=""
    for _ in $(seq 1 600); do
      connected="$(tail -n +$((k0 + 1)) "$kubelet_log" | grep -m1 'Connection changed.*connected=true' || true)"
      [ -n "$connected" ] && break
      sleep 0.1
    done
    [ -n "$connected" ] || { kubectl describe pod "$name" >&2; echo "$name: no registration within 60 s" >&2; exit 1; }
    t0="$(containerd_time "$(tail -n +$((c0 + 1)) "$containerd_log" | grep -m1 'msg="StartContainer for ')")"
    ms=$(since "$t0" "$(klog_time "$connected")")
    results[$i]+="$ms "
    # Where the time went, from the driver's own log (its lines start with their UTC time): its
    # sockets served, then the kubelet's plugin watcher calling GetInfo.
    log="$(echo "$dir/nodes/$node/pod-logs/default_${name}_"*/driver/0.log)"
    served="$(grep -m1 ' serving \[' "$log" | awk '{print $4}')"
    getinfo="$(grep -m1 ' GetInfo ' "$log" | awk '{print $4}')"
    echo "${images[$i]}: start $n: $ms ms (the driver serving after $(since "$t0" "$(date -u -d "$served" +%s.%N)") ms," \
      "the kubelet's GetInfo after $(since "$t0" "$(date -u -d "$getinfo" +%s.%N)") ms)" >&2
    kubectl delete pod "$name" --wait=true >/dev/null
  done
done
for i in "${!images[@]}"; do
  sorted=($(tr ' ' '\n' <<<"${results[$i]}" | grep . | sort -n))
  echo "${images[$i]}: container start → registration median ${sorted[$(( ${#sorted[@]} / 2 ))]} ms (${results[$i]% })"
done
