#!/usr/bin/env bash
# A real Kubernetes v1.37 control plane on loopback, for dra4j's end-to-end tests.
#
#   e2e/cluster.sh build                 build etcd, kube-apiserver, kube-scheduler,
#                                        kube-controller-manager, kubectl (cached by version)
#   e2e/cluster.sh up [--dir D] [--feature-gates G] [--runtime-config R]
#                                        start them; prints `export ...` lines for eval
#                                        (DRA4J_CLUSTER_DIR, PATH with the built kubectl,
#                                        KUBECONFIG last)
#   e2e/cluster.sh node NAME [--capacity NAME=QTY]... [--kubelet-version V]
#                                        an API-only Node the scheduler accepts
#   e2e/cluster.sh token NAMESPACE SERVICEACCOUNT --node NODE
#                                        a kubeconfig with a pod-bound ServiceAccount token
#   e2e/cluster.sh kubelet NODE --registry-dir D --state-dir S [-- FLAGS...]
#                                        the DRA half of a real kubelet for NODE (the real plugin
#                                        manager and DRA manager, e2e/cluster/kubelet); prints
#                                        its log file
#   e2e/cluster.sh build-node            build what a real node needs (cached by version): the
#                                        kubelet, containerd, its runc shim and ctr, the pause
#                                        and busybox images (no registry), generic-device-plugin
#   e2e/cluster.sh real-node NODE --cdi-dir D
#                                        a real node: containerd (CRI, CDI from D, Debian's runc)
#                                        and the real kubelet for NODE; prints the kubelet's root
#                                        folder (the driver registers in ROOT/plugins_registry)
#   e2e/cluster.sh real-node NODE --stop stop its kubelet, containers and containerd; remove
#                                        its folder and its Node ('down' stops every real node)
#   e2e/cluster.sh real-node --check     prints why this machine cannot run a real node, if so
#                                        (exit 3), else nothing
#   e2e/cluster.sh device-plugin NODE --device SPEC... [--domain D]
#                                        the unmodified generic-device-plugin (built by
#                                        build-node) for real node NODE: registers with its
#                                        kubelet in /var/lib/kubelet/device-plugins, health and
#                                        metrics on loopback; prints its log file
#   e2e/cluster.sh device-plugin NODE --stop
#                                        stop it by its PID (SIGTERM, as deleting its DaemonSet
#                                        pod would); 'down' and 'real-node NODE --stop' do too
#   e2e/cluster.sh kubectl ARGS...       the built kubectl, as cluster admin
#   e2e/cluster.sh stop [--kill] NAME    stop one process (SIGTERM, or SIGKILL: a crash), e.g.
#                                        kube-apiserver or e2e-kubelet-NODE
#   e2e/cluster.sh start NAME [--feature-gates G]
#                                        start it again with the same flags; G (A=true,B=false)
#                                        is added to its gates for this start only
#   e2e/cluster.sh down [--dir D]        stop every process by its PID and remove the folder
#
# Progress goes to stderr; stdout carries only what a caller evaluates or reads (export lines,
# a path). The cluster folder is found from --dir, else $DRA4J_CLUSTER_DIR, else the default.
set -euo pipefail

readonly K8S_VERSION=v1.37.2
readonly SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly CACHE="${DRA4J_CACHE:-$HOME/.cache/dra4j}"
readonly BIN="$CACHE/kubernetes-$K8S_VERSION/bin"
readonly DEFAULT_DIR="${TMPDIR:-/tmp}/dra4j-cluster"
readonly COMPONENTS=(etcd kube-apiserver kube-scheduler kube-controller-manager)
# The real node's container runtime: containerd 2.x from its own Go module (its CRI plugin
# injects CDI devices), with Debian's runc.
readonly CONTAINERD_VERSION=v2.4.2
readonly NODE_BIN="$CACHE/containerd-$CONTAINERD_VERSION/bin"
readonly RUNC=/usr/sbin/runc
# The real node's images, imported into its containerd (pods use imagePullPolicy: Never).
readonly NODE_IMAGES="$CACHE/e2e-node-images"
readonly PAUSE_IMAGE=dra4j.local/e2e/pause:local
readonly BUSYBOX_IMAGE=dra4j.local/e2e/busybox:local
# The device plugin of the migration tests: github.com/squat/generic-device-plugin, unmodified,
# built from the Go module proxy at this version (its go.mod has no replace directives, so
# 'go install module@version' builds it exactly as published).
readonly GDP_MODULE=github.com/squat/generic-device-plugin
readonly GDP_VERSION=v0.0.0-20260515115838-2cc50b05d4d2
readonly GDP_BIN="$CACHE/generic-device-plugin-$GDP_VERSION/bin"
# The kubelet's device-plugin folder: fixed, whatever its --root-dir (k8s.io/kubelet
# pkg/apis/deviceplugin/v1beta1/constants.go DevicePluginPath, used by
# pkg/kubelet/cm/devicemanager/manager.go:135 NewManagerImpl), so one real node per machine.
readonly DEVICE_PLUGIN_DIR=/var/lib/kubelet/device-plugins

# Gates switched on beyond 1.37's defaults because dra4j's features use them: compatibility
# groups and list-typed attributes (alpha), claims reserved for PodGroups (beta, off by default,
# needs the Workload API), and fractional capacity ranges: beta, but v1.37.2's --help says
# "default=false, or default=true if --min-compatibility-version>=1.37", and the minimum
# compatibility version defaults to 1.36, so it is off unless switched on.
readonly DEFAULT_GATES="DRADeviceCompatibilityGroups=true,DRAListTypeAttributes=true,DRAWorkloadResourceClaims=true,GenericWorkload=true,DRAFractionalCapacityRange=true"
readonly DEFAULT_RUNTIME_CONFIG="scheduling.k8s.io/v1beta1=true"
# The controllers a DRA test needs. node-lifecycle-controller is left out on purpose: API-only
# nodes never renew a Lease, so it would taint them not-ready and evict their pods.
# podgroup-protection-controller removes the finalizer the API server puts on PodGroups; without
# it a deleted PodGroup never goes. resourcequota-controller keeps ResourceQuota usage, which the
# migration tests read for pods served through DRA.
readonly CONTROLLERS="podgroup-protection-controller,resourceclaim-controller,resourcequota-controller,device-taint-eviction-controller,garbage-collector-controller,namespace-controller,serviceaccount-controller,serviceaccount-token-controller"

say() { printf '%s\n' "$*" >&2; }
die() { printf 'cluster.sh: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# build

build() {
  command -v go >/dev/null || die "Go is not installed (Go 1.26 or newer builds Kubernetes $K8S_VERSION)"
  local targets=() names=()
  local -A pkg=(
    [etcd]=go.etcd.io/etcd/server/v3
    [kube-apiserver]=k8s.io/kubernetes/cmd/kube-apiserver
    [kube-scheduler]=k8s.io/kubernetes/cmd/kube-scheduler
    [kube-controller-manager]=k8s.io/kubernetes/cmd/kube-controller-manager
    [kubectl]=k8s.io/kubernetes/cmd/kubectl
  )
  local name
  for name in etcd kube-apiserver kube-scheduler kube-controller-manager kubectl; do
    if [ ! -x "$BIN/$name" ]; then targets+=("${pkg[$name]}"); names+=("$name"); fi
  done
  build_kubelet_harness
  if [ ${#targets[@]} -eq 0 ]; then
    say "Kubernetes $K8S_VERSION binaries are up to date in $BIN"
    return
  fi
  local start=$SECONDS tmp="$BIN.partial"
  mkdir -p "$tmp"
  say "building ${names[*]} ($K8S_VERSION) into $BIN; a cold build takes tens of minutes on 2 cores"
  go_build_kubernetes "$tmp" "${targets[@]}"
  # The etcd server module's main package is named after its folder.
  [ -x "$tmp/v3" ] && mv "$tmp/v3" "$tmp/etcd"
  [ -x "$tmp/server" ] && mv "$tmp/server" "$tmp/etcd"
  for name in "${names[@]}"; do
    [ -x "$tmp/$name" ] || die "the build produced no $name"
    mv "$tmp/$name" "$BIN/$name"
  done
  rmdir "$tmp" 2>/dev/null || true
  say "built ${names[*]} in $((SECONDS - start)) s"
}

# go_build_kubernetes OUTDIR PACKAGES...: upstream's flags (hack/lib/golang.sh): static, trimmed,
# selinux and notest tags, the version stamped as a release build stamps it.
go_build_kubernetes() {
  local out=$1; shift
  local ld="-s -w" v
  for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    ld+=" -X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=1 -X $v.gitMinor=37 -X $v.gitTreeState=clean"
    ld+=" -X $v.gitCommit=module-$K8S_VERSION -X $v.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$SCRIPT_DIR/cluster" && CGO_ENABLED=0 GOFLAGS=-mod=mod \
    go build -p "$(nproc)" -trimpath -tags selinux,notest,grpcnotrace -ldflags "$ld" \
      -o "$out/" "$@") || die "the build failed (output above)"
}

# The e2e kubelet harness (e2e/cluster/kubelet, a package of the wrapper module so that it builds
# against the same pinned modules) is our own code: its binary is keyed by a hash of its sources,
# so a change rebuilds it and an unchanged tree does not.
build_kubelet_harness() {
  local flags=(-trimpath -tags selinux,notest -ldflags "-s -w")
  local hash
  hash=$(cd "$SCRIPT_DIR/cluster" && { echo "${flags[*]}"; cat go.mod go.sum $(find kubelet -type f | sort); } |
    sha256sum | cut -c1-12)
  local out="$BIN/e2e-kubelet-$hash"
  if [ ! -x "$out" ]; then
    say "building the e2e kubelet harness (the real plugin manager and DRA manager of $K8S_VERSION)"
    mkdir -p "$BIN"
    local start=$SECONDS
    (cd "$SCRIPT_DIR/cluster" && CGO_ENABLED=0 GOFLAGS=-mod=mod \
      go build -p "$(nproc)" "${flags[@]}" -o "$out.partial" ./kubelet) ||
      die "the kubelet harness build failed (output above)"
    mv "$out.partial" "$out"
    say "built the e2e kubelet harness in $((SECONDS - start)) s"
  fi
  ln -sfn "$(basename "$out")" "$BIN/e2e-kubelet"
}

require_bin() {
  local name
  for name in "$@"; do
    [ -x "$BIN/$name" ] || die "$BIN/$name is missing: run 'e2e/cluster.sh build' first"
  done
}

# ---------------------------------------------------------------------------------------------
# build-node: what a real node needs. Separate from 'build' because it costs more and only the
# real-node test uses it.

build_node() {
  command -v go >/dev/null || die "Go is not installed (Go 1.26 or newer builds Kubernetes $K8S_VERSION)"
  local start=$SECONDS
  if [ ! -x "$BIN/kubelet" ]; then
    say "building kubelet ($K8S_VERSION) into $BIN"
    mkdir -p "$BIN.kubelet.partial"
    go_build_kubernetes "$BIN.kubelet.partial" k8s.io/kubernetes/cmd/kubelet
    mv "$BIN.kubelet.partial/kubelet" "$BIN/kubelet" && rmdir "$BIN.kubelet.partial"
  fi
  if [ ! -x "$NODE_BIN/containerd" ]; then
    say "building containerd $CONTAINERD_VERSION (containerd, containerd-shim-runc-v2, ctr) into $NODE_BIN"
    local m=github.com/containerd/containerd/v2
    # Static, as containerd's releases are; without cgo the btrfs snapshotter is left out.
    GOBIN="$NODE_BIN.partial" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
      go install -p "$(nproc)" -trimpath -ldflags "-s -w -X $m/version.Version=${CONTAINERD_VERSION#v}" \
      "$m/cmd/containerd@$CONTAINERD_VERSION" "$m/cmd/containerd-shim-runc-v2@$CONTAINERD_VERSION" \
      "$m/cmd/ctr@$CONTAINERD_VERSION" || die "the containerd build failed (output above)"
    rm -rf "$NODE_BIN" && mv "$NODE_BIN.partial" "$NODE_BIN"
  fi
  build_device_plugin
  build_node_images
  say "real node binaries and images ready ($((SECONDS - start)) s)"
}

build_device_plugin() {
  [ -x "$GDP_BIN/generic-device-plugin" ] && return 0
  say "building generic-device-plugin $GDP_VERSION into $GDP_BIN"
  local start=$SECONDS
  rm -rf "$GDP_BIN.partial"
  GOBIN="$GDP_BIN.partial" CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
    go install -p "$(nproc)" -trimpath -ldflags "-s -w -X $GDP_MODULE/version.Version=$GDP_VERSION" \
    "$GDP_MODULE@$GDP_VERSION" || die "the generic-device-plugin build failed (output above)"
  mkdir -p "$(dirname "$GDP_BIN")"
  rm -rf "$GDP_BIN" && mv "$GDP_BIN.partial" "$GDP_BIN"
  say "built generic-device-plugin in $((SECONDS - start)) s"
}

# The pause image (e2e/cluster/pause, one static binary) and a busybox image (Debian's
# busybox-static), as docker-archive tars made by examples/images/assemble.py. Each is keyed by
# what it is made of, so an unchanged one is not made again.
build_node_images() {
  mkdir -p "$NODE_IMAGES"
  local hash work
  hash=$(cd "$SCRIPT_DIR/cluster" && { go version; cat pause/main.go; } | sha256sum | cut -c1-12)
  if [ ! -f "$NODE_IMAGES/pause-$hash.tar" ]; then
    work=$(mktemp -d)
    (cd "$SCRIPT_DIR/cluster" && CGO_ENABLED=0 GOFLAGS=-buildvcs=false \
      go build -trimpath -ldflags "-s -w" -o "$work/layer/pause" ./pause) || die "the pause build failed"
    node_image "$work" "$NODE_IMAGES/pause-$hash.tar" "$PAUSE_IMAGE" --entrypoint=/pause
  fi
  ln -sfn "pause-$hash.tar" "$NODE_IMAGES/pause.tar"
  local bb
  bb=$(apt-cache policy busybox-static | sed -n 's/^ *Candidate: //p')
  [ -n "$bb" ] && [ "$bb" != "(none)" ] || die "no busybox-static in apt's lists: run 'apt-get update' first"
  bb=${bb//[^A-Za-z0-9.+-]/_}
  if [ ! -f "$NODE_IMAGES/busybox-$bb.tar" ]; then
    work=$(mktemp -d) && chmod 755 "$work"  # apt's download user writes there
    (cd "$work" && apt-get download busybox-static >/dev/null && dpkg-deb -x busybox-static_*.deb deb) ||
      die "apt-get download busybox-static failed"
    mkdir -p "$work/layer/bin"
    cp "$work/deb/bin/busybox" "$work/layer/bin/busybox"
    local tool
    for tool in sh cat env ls sleep grep; do ln -s busybox "$work/layer/bin/$tool"; done
    node_image "$work" "$NODE_IMAGES/busybox-$bb.tar" "$BUSYBOX_IMAGE" --cmd=/bin/sh \
      --env PATH=/bin
  fi
  ln -sfn "busybox-$bb.tar" "$NODE_IMAGES/busybox.tar"
}

# node_image WORK OUT TAG ASSEMBLE-ARGS...: WORK/layer as the image's one layer; removes WORK.
node_image() {
  local work=$1 out=$2 tag=$3; shift 3
  tar --numeric-owner --owner=0 --group=0 --mtime=@1 -C "$work/layer" -cf "$work/layer.tar" .
  python3 "$SCRIPT_DIR/../examples/images/assemble.py" --out "$out.partial" --tag "$tag" \
    --layer "$work/layer.tar" "$@" >&2 || die "assembling $tag failed"
  mv "$out.partial" "$out"
  rm -rf "$work"
}

# ---------------------------------------------------------------------------------------------
# cluster folder, ports, processes

DIR=""
resolve_dir() { DIR="${DIR:-${DRA4J_CLUSTER_DIR:-$DEFAULT_DIR}}"; DIR="$(realpath -m "$DIR")"; }
require_up() {
  resolve_dir
  [ -f "$DIR/cluster.env" ] || die "no cluster in $DIR: run 'e2e/cluster.sh up' (or pass --dir)"
  # shellcheck disable=SC1091
  . "$DIR/cluster.env"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# start_process NAME BINARY ARGS...: runs $BIN/BINARY (or BINARY, an absolute path) in its own
# session as NAME, logging to logs/NAME.log; its PID goes to pids/NAME.pid and its arguments to
# pids/NAME.args, so 'start NAME' can restart a stopped component with the same flags.
start_process() {
  local name=$1 binary=$2; shift 2
  local pidfile="$DIR/pids/$name.pid"
  if pid_alive "$pidfile"; then die "$name is already running (pid $(cat "$pidfile"))"; fi
  local exe=$binary
  [[ $exe == /* ]] || exe="$BIN/$binary"
  setsid "$exe" "$@" >>"$DIR/logs/$name.log" 2>&1 < /dev/null &
  echo $! >"$pidfile"
  printf '%q ' "$@" >"$DIR/pids/$name.args"
  echo "$binary" >"$DIR/pids/$name.bin"
}

# stop_process NAME [SIGNAL]: SIGTERM (default) or e.g. KILL, then SIGKILL after 10 s.
stop_process() {
  local name=$1 signal=${2:-TERM} pidfile="$DIR/pids/$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid; pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    kill "-$signal" "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$pidfile"
}

# wait_healthy NAME URL [CURL ARGS...]: polls until the URL answers 200, or fails with the log tail.
wait_healthy() {
  local name=$1 url=$2; shift 2
  local i
  for i in $(seq 1 600); do
    if curl -fsS --max-time 2 "$@" "$url" >/dev/null 2>&1; then return 0; fi
    pid_alive "$DIR/pids/$name.pid" || { tail -n 30 "$DIR/logs/$name.log" >&2; die "$name exited"; }
    sleep 0.1
  done
  tail -n 30 "$DIR/logs/$name.log" >&2
  die "$name did not become healthy at $url within 60 s"
}

# ---------------------------------------------------------------------------------------------
# PKI

openssl_q() { openssl "$@" >/dev/null 2>&1 || { openssl "$@"; die "openssl $1 failed"; }; }

# cert NAME CN ORG EXT: a certificate in $DIR/pki signed by the cluster's CA.
cert() {
  local p="$DIR/pki" name=$1 cn=$2 org=$3 ext=$4
  local subj="/CN=$cn"; [ -n "$org" ] && subj="/O=$org$subj"
  openssl_q req -newkey rsa:2048 -nodes -subj "$subj" -keyout "$p/$name.key" -out "$p/$name.csr"
  printf '%s\n' "$ext" >"$p/$name.ext"
  openssl_q x509 -req -in "$p/$name.csr" -CA "$p/ca.crt" -CAkey "$p/ca.key" -CAcreateserial \
    -days 3650 -extfile "$p/$name.ext" -out "$p/$name.crt"
  rm -f "$p/$name.csr" "$p/$name.ext"
  chmod 600 "$p/$name.key"
}

pki() {
  local p="$DIR/pki"
  mkdir -p "$p"
  openssl_q req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=dra4j-e2e-ca" \
    -keyout "$p/ca.key" -out "$p/ca.crt"
  cert apiserver kube-apiserver "" \
    "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:10.0.0.1
extendedKeyUsage=serverAuth
keyUsage=digitalSignature,keyEncipherment"
  cert admin dra4j-e2e-admin system:masters "extendedKeyUsage=clientAuth
keyUsage=digitalSignature,keyEncipherment"
  openssl_q genrsa -out "$p/sa.key" 2048
  openssl_q rsa -in "$p/sa.key" -pubout -out "$p/sa.pub"
  chmod 600 "$p"/*.key
}

# kubeconfig FILE USER-STANZA: a kubeconfig for the cluster with the given user entry.
write_kubeconfig() {
  local file=$1 user=$2
  umask 077
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: dra4j-e2e
  cluster:
    server: https://127.0.0.1:$APISERVER_PORT
    certificate-authority-data: $(base64 -w0 "$DIR/pki/ca.crt")
users:
- name: user
  user:
$user
contexts:
- name: dra4j-e2e
  context: {cluster: dra4j-e2e, user: user}
current-context: dra4j-e2e
EOF
}

# ---------------------------------------------------------------------------------------------
# up / down

up() {
  local gates="$DEFAULT_GATES" runtime_config="$DEFAULT_RUNTIME_CONFIG"
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) DIR=$2; shift 2 ;;
      --dir=*) DIR=${1#--dir=}; shift ;;
      --feature-gates) gates="$gates,$2"; shift 2 ;;
      --feature-gates=*) gates="$gates,${1#--feature-gates=}"; shift ;;
      --runtime-config) runtime_config="$runtime_config,$2"; shift 2 ;;
      --runtime-config=*) runtime_config="$runtime_config,${1#--runtime-config=}"; shift ;;
      *) die "up: unknown argument '$1'" ;;
    esac
  done
  require_bin "${COMPONENTS[@]}" kubectl
  resolve_dir
  if [ -f "$DIR/cluster.env" ]; then
    die "a cluster already uses $DIR: 'e2e/cluster.sh down --dir $DIR' first"
  fi
  local start=$SECONDS
  mkdir -p "$DIR/pids" "$DIR/logs" "$DIR/etcd" "$DIR/kubeconfigs"
  # A failed start leaves nothing running behind: stop what was started, keep the logs.
  trap 'say "start failed; logs are in $DIR/logs"; stop_all; rm -f "$DIR/cluster.env"' EXIT
  ETCD_PORT=$(free_port); ETCD_PEER_PORT=$(free_port); APISERVER_PORT=$(free_port)
  SCHEDULER_PORT=$(free_port); KCM_PORT=$(free_port)
  cat >"$DIR/cluster.env" <<EOF
ETCD_PORT=$ETCD_PORT
ETCD_PEER_PORT=$ETCD_PEER_PORT
APISERVER_PORT=$APISERVER_PORT
SCHEDULER_PORT=$SCHEDULER_PORT
KCM_PORT=$KCM_PORT
FEATURE_GATES=$gates
EOF
  say "cluster folder $DIR (API server on https://127.0.0.1:$APISERVER_PORT)"
  pki
  local admin="$DIR/admin.kubeconfig"
  write_kubeconfig "$admin" "    client-certificate-data: $(base64 -w0 "$DIR/pki/admin.crt")
    client-key-data: $(base64 -w0 "$DIR/pki/admin.key")"

  say "starting etcd"
  start_process etcd etcd --name=dra4j-e2e --data-dir="$DIR/etcd" \
    --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster="dra4j-e2e=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync=true --log-level=warn
  wait_healthy etcd "http://127.0.0.1:$ETCD_PORT/health"

  say "starting kube-apiserver"
  start_process kube-apiserver kube-apiserver --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
    --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$APISERVER_PORT" \
    --cert-dir="$DIR/pki" --tls-cert-file="$DIR/pki/apiserver.crt" --tls-private-key-file="$DIR/pki/apiserver.key" \
    --client-ca-file="$DIR/pki/ca.crt" --service-cluster-ip-range=10.0.0.0/24 --allow-privileged=true \
    --authorization-mode=Node,RBAC --enable-admission-plugins=NodeRestriction \
    --service-account-issuer="https://127.0.0.1:$APISERVER_PORT" \
    --service-account-key-file="$DIR/pki/sa.pub" --service-account-signing-key-file="$DIR/pki/sa.key" \
    --api-audiences="https://127.0.0.1:$APISERVER_PORT" \
    --endpoint-reconciler-type=none \
    --feature-gates="$gates" --runtime-config="$runtime_config" \
    --profiling=false --v=1
  wait_healthy kube-apiserver "https://127.0.0.1:$APISERVER_PORT/readyz" --cacert "$DIR/pki/ca.crt" \
    --cert "$DIR/pki/admin.crt" --key "$DIR/pki/admin.key"

  say "starting kube-scheduler and kube-controller-manager"
  start_process kube-scheduler kube-scheduler --kubeconfig="$admin" --authentication-kubeconfig="$admin" \
    --authorization-kubeconfig="$admin" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --feature-gates="$gates" --v=2
  start_process kube-controller-manager kube-controller-manager --kubeconfig="$admin" --authentication-kubeconfig="$admin" \
    --authorization-kubeconfig="$admin" --leader-elect=false \
    --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --controllers="$CONTROLLERS" \
    --service-account-private-key-file="$DIR/pki/sa.key" --root-ca-file="$DIR/pki/ca.crt" \
    --use-service-account-credentials=false --feature-gates="$gates" --v=1
  wait_healthy kube-scheduler "https://127.0.0.1:$SCHEDULER_PORT/healthz" -k
  wait_healthy kube-controller-manager "https://127.0.0.1:$KCM_PORT/healthz" -k
  trap - EXIT
  say "control plane $K8S_VERSION up in $((SECONDS - start)) s; stop it with: e2e/cluster.sh down --dir $DIR"
  echo "export DRA4J_CLUSTER_DIR=$DIR"
  # The built kubectl first on PATH, so a plain 'kubectl' talks to this cluster as its version.
  echo "export PATH=\"$BIN:\$PATH\""
  echo "export KUBECONFIG=$admin"
}

down() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --dir) DIR=$2; shift 2 ;;
      --dir=*) DIR=${1#--dir=}; shift ;;
      *) die "down: unknown argument '$1'" ;;
    esac
  done
  resolve_dir
  [ -d "$DIR" ] || { say "nothing to stop: $DIR does not exist"; return 0; }
  [ -d "$DIR/pids" ] || [ -f "$DIR/cluster.env" ] || die "$DIR is not a cluster folder; not removing it"
  stop_all
  rm -rf "$DIR"
  say "stopped and removed $DIR"
}

# Every process of the cluster folder by its PID: the kubelet harnesses and any other process
# started there first, then the control plane in reverse start order.
stop_all() {
  local f name i
  stop_real_nodes
  for f in "$DIR"/pids/*.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .pid)
    case " ${COMPONENTS[*]} " in *" $name "*) continue ;; esac
    stop_process "$name"
  done
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do stop_process "${COMPONENTS[$i]}"; done
}

# stop/start one process of the cluster folder, for outage tests (the API server going away and
# coming back) and crash tests (a kubelet killed and restarted on its checkpoint).
component() {
  local verb=$1 signal=TERM name="" gates=""
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --kill) [ "$verb" = stop ] || die "start: unknown flag '$1'"; signal=KILL; shift ;;
      --feature-gates) [ "$verb" = start ] || die "stop: unknown flag '$1'"; gates=$2; shift 2 ;;
      --feature-gates=*) [ "$verb" = start ] || die "stop: unknown flag '$1'"; gates=${1#--feature-gates=}; shift ;;
      -*) die "$verb: unknown flag '$1'" ;;
      *) [ -z "$name" ] || die "$verb: one NAME only"; name=$1; shift ;;
    esac
  done
  require_up
  [ -n "$name" ] || die "$verb: name a process (${COMPONENTS[*]} or e2e-kubelet-NODE)"
  [ -f "$DIR/pids/$name.args" ] || die "$verb: no process '$name' was started in $DIR"
  if [ "$verb" = stop ]; then stop_process "$name" "$signal"; say "stopped $name ($signal)"; return; fi
  local saved; saved=$(cat "$DIR/pids/$name.args")
  local args; eval "args=($saved)"
  if [ -n "$gates" ]; then
    # This start only: the gates are added to the component's own --feature-gates flag; the
    # saved flags stay as they were, so a later plain 'start' gives the cluster's gates again.
    local i found=""
    for i in "${!args[@]}"; do
      case "${args[$i]}" in --feature-gates=*) args[$i]="${args[$i]},$gates"; found=1 ;; esac
    done
    [ -n "$found" ] || args+=("--feature-gates=$gates")
  fi
  start_process "$name" "$(cat "$DIR/pids/$name.bin" 2>/dev/null || echo "$name")" "${args[@]}"
  [ -z "$gates" ] || printf '%s' "$saved" >"$DIR/pids/$name.args"
  case "$name" in
    etcd) wait_healthy etcd "http://127.0.0.1:$ETCD_PORT/health" ;;
    kube-apiserver) wait_healthy kube-apiserver "https://127.0.0.1:$APISERVER_PORT/readyz" \
      --cacert "$DIR/pki/ca.crt" --cert "$DIR/pki/admin.crt" --key "$DIR/pki/admin.key" ;;
    kube-scheduler) wait_healthy "$name" "https://127.0.0.1:$SCHEDULER_PORT/healthz" -k ;;
    kube-controller-manager) wait_healthy "$name" "https://127.0.0.1:$KCM_PORT/healthz" -k ;;
  esac
  say "started $name"
}

# ---------------------------------------------------------------------------------------------
# node / token / kubectl

kc() { "$BIN/kubectl" --kubeconfig "$DIR/admin.kubeconfig" "$@"; }

node() {
  local name="" capacity=() version=$K8S_VERSION
  while [ $# -gt 0 ]; do
    case "$1" in
      --capacity) capacity+=("$2"); shift 2 ;;
      --capacity=*) capacity+=("${1#--capacity=}"); shift ;;
      --kubelet-version) version=$2; shift 2 ;;
      --kubelet-version=*) version=${1#--kubelet-version=}; shift ;;
      --dir) DIR=$2; shift 2 ;;
      -*) die "node: unknown flag '$1'" ;;
      *) [ -z "$name" ] || die "node: one NAME only"; name=$1; shift ;;
    esac
  done
  [ -n "$name" ] || die "node: NAME is required"
  require_up
  local extra="" c
  for c in "${capacity[@]}"; do extra+=",\"${c%%=*}\":\"${c#*=}\""; done
  local resources="{\"cpu\":\"100\",\"memory\":\"1000Gi\",\"pods\":\"110\"$extra}"
  printf '{"apiVersion":"v1","kind":"Node","metadata":{"name":"%s","labels":{"kubernetes.io/hostname":"%s"}}}' \
    "$name" "$name" | kc apply -f - >/dev/null
  # The status a kubelet would report: room for pods, Ready, its version. A device plugin's
  # extended resource appears here too (--capacity example.com/gpu=4).
  local now; now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  kc patch node "$name" --subresource=status --type=merge -p "{\"status\":{\"capacity\":$resources,\"allocatable\":$resources,\"phase\":\"Running\",\"nodeInfo\":{\"kubeletVersion\":\"$version\",\"kubeProxyVersion\":\"\",\"machineID\":\"\",\"systemUUID\":\"\",\"bootID\":\"\",\"kernelVersion\":\"\",\"osImage\":\"\",\"containerRuntimeVersion\":\"\",\"operatingSystem\":\"linux\",\"architecture\":\"amd64\"},\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\",\"reason\":\"KubeletReady\",\"message\":\"API-only node of the dra4j e2e cluster\",\"lastHeartbeatTime\":\"$now\",\"lastTransitionTime\":\"$now\"}]}}" >/dev/null
  # TaintNodesByCondition adds node.kubernetes.io/not-ready at creation; no node controller
  # runs to lift it, so clear the taints here.
  kc patch node "$name" --type=merge -p '{"spec":{"taints":null}}' >/dev/null
  say "node $name is Ready"
}

token() {
  local ns="" sa="" nodename="" positional=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --node) nodename=$2; shift 2 ;;
      --node=*) nodename=${1#--node=}; shift ;;
      --dir) DIR=$2; shift 2 ;;
      -*) die "token: unknown flag '$1'" ;;
      *) positional+=("$1"); shift ;;
    esac
  done
  [ ${#positional[@]} -eq 2 ] || die "token: usage: token NAMESPACE SERVICEACCOUNT --node NODE"
  ns=${positional[0]}; sa=${positional[1]}
  [ -n "$nodename" ] || die "token: --node NODE is required"
  require_up
  kc get node "$nodename" >/dev/null 2>&1 || die "token: node $nodename does not exist ('e2e/cluster.sh node $nodename')"
  kc get namespace "$ns" >/dev/null 2>&1 || kc create namespace "$ns" >/dev/null
  kc -n "$ns" get serviceaccount "$sa" >/dev/null 2>&1 || kc -n "$ns" create serviceaccount "$sa" >/dev/null
  # A placeholder pod bound to the node stands in for the DaemonSet's pod: the token is bound
  # to it, so the API server puts the node name into the token as it does for a real driver pod.
  local pod="$sa-$nodename"
  pod=${pod:0:63}; pod=${pod%-}
  if ! kc -n "$ns" get pod "$pod" >/dev/null 2>&1; then
    kc -n "$ns" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $pod
  labels: {app.kubernetes.io/name: $sa, dra4j.io/placeholder: "true"}
spec:
  serviceAccountName: $sa
  nodeName: $nodename
  automountServiceAccountToken: false
  tolerations: [{operator: Exists}]
  containers:
  - name: placeholder
    image: registry.invalid/dra4j/placeholder:never-pulled
EOF
  fi
  local tok
  tok=$(kc -n "$ns" create token "$sa" --bound-object-kind=Pod --bound-object-name="$pod" --duration=24h)
  local file="$DIR/kubeconfigs/$ns.$sa.$nodename.kubeconfig"
  write_kubeconfig "$file" "    token: $tok"
  say "kubeconfig for system:serviceaccount:$ns:$sa, bound to pod $ns/$pod on node $nodename"
  echo "$file"
}

# node_kubeconfig NODE: the kubelet's own identity, system:node:NODE in system:nodes, so the Node
# authorizer and NodeRestriction limit it as they limit a real kubelet (claims of its pods, its
# own slices, its own Node). Prints the kubeconfig's path.
node_kubeconfig() {
  local nodename=$1 kubeconfig="$DIR/kubeconfigs/node-$1.kubeconfig"
  if [ ! -f "$kubeconfig" ]; then
    cert "node-$nodename" "system:node:$nodename" system:nodes "extendedKeyUsage=clientAuth
keyUsage=digitalSignature,keyEncipherment"
    write_kubeconfig "$kubeconfig" "    client-certificate-data: $(base64 -w0 "$DIR/pki/node-$nodename.crt")
    client-key-data: $(base64 -w0 "$DIR/pki/node-$nodename.key")"
  fi
  echo "$kubeconfig"
}

kubelet() {
  local nodename="" registry="" state="" extra=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --registry-dir) registry=$2; shift 2 ;;
      --state-dir) state=$2; shift 2 ;;
      --dir) DIR=$2; shift 2 ;;
      --) shift; extra+=("$@"); break ;;
      -*) die "kubelet: unknown flag '$1'" ;;
      *) [ -z "$nodename" ] || die "kubelet: one NODE only"; nodename=$1; shift ;;
    esac
  done
  [ -n "$nodename" ] && [ -n "$registry" ] && [ -n "$state" ] ||
    die "kubelet: usage: kubelet NODE --registry-dir D --state-dir S [-- FLAGS...]"
  require_up
  require_bin e2e-kubelet
  mkdir -p "$registry" "$state"
  local kubeconfig; kubeconfig=$(node_kubeconfig "$nodename")
  local name="e2e-kubelet-$nodename"
  start_process "$name" e2e-kubelet --kubeconfig="$kubeconfig" --node-name="$nodename" \
    --registry-dir="$(realpath "$registry")" --state-dir="$(realpath "$state")" --feature-gates="$FEATURE_GATES" "${extra[@]}"
  say "e2e kubelet for $nodename started (log: $DIR/logs/$name.log)"
  echo "$DIR/logs/$name.log"
}

# ---------------------------------------------------------------------------------------------
# real-node: containerd and the real kubelet for one node, in $DIR/nodes/NODE

# Why this machine cannot run a real node, in one line; empty when it can.
real_node_problem() {
  [ "$(id -u)" = 0 ] || { echo "a real node runs containers and needs root (uid is $(id -u))"; return; }
  [ -x "$RUNC" ] || { echo "no $RUNC: install Debian's runc (apt-get install runc)"; return; }
  grep -qw overlay /proc/filesystems || { echo "no overlay filesystem in this kernel (containerd's snapshotter)"; return; }
  [ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] ||
    echo "no memory cgroup mounted at /sys/fs/cgroup"
}

node_ctr() { local nd=$1; shift; "$NODE_BIN/ctr" --address "$nd/containerd.sock" --namespace k8s.io "$@"; }

real_node() {
  local nodename="" cdi="" mode=start
  while [ $# -gt 0 ]; do
    case "$1" in
      --cdi-dir) cdi=$2; shift 2 ;;
      --check) mode=check; shift ;;
      --stop) mode=stop; shift ;;
      --dir) DIR=$2; shift 2 ;;
      -*) die "real-node: unknown flag '$1'" ;;
      *) [ -z "$nodename" ] || die "real-node: one NODE only"; nodename=$1; shift ;;
    esac
  done
  local problem; problem=$(real_node_problem)
  if [ $mode = check ]; then [ -z "$problem" ] || { echo "$problem"; exit 3; }; return 0; fi
  [ -n "$nodename" ] || die "real-node: usage: real-node NODE --cdi-dir D | real-node NODE --stop | real-node --check"
  require_up
  if [ $mode = stop ]; then
    [ -d "$DIR/nodes/$nodename" ] || die "real-node: no real node $nodename in $DIR"
    stop_real_nodes "$nodename"
    kc delete node "$nodename" --ignore-not-found >/dev/null
    rm -rf "$DIR/nodes/$nodename"
    say "real node $nodename stopped and removed"
    return 0
  fi
  [ -n "$cdi" ] || die "real-node: --cdi-dir D is required (the driver's CDI folder)"
  [ -z "$problem" ] || die "real-node: $problem"
  local b
  for b in "$BIN/kubelet" "$NODE_BIN/containerd" "$NODE_BIN/containerd-shim-runc-v2" "$NODE_BIN/ctr" \
    "$NODE_IMAGES/pause.tar" "$NODE_IMAGES/busybox.tar"; do
    [ -e "$b" ] || die "real-node: $b is missing: run 'e2e/cluster.sh build-node' first"
  done
  local nd="$DIR/nodes/$nodename"
  [ ! -e "$nd" ] || die "real-node: $nd exists: node $nodename was started already"
  # The kubelet's device-plugin folder is the machine's, not the node's: one real node at a time.
  if device_plugin_dir_served; then
    die "real-node: a kubelet already serves $DEVICE_PLUGIN_DIR/kubelet.sock (another real node, of this cluster or another): that folder is fixed, so one real node runs per machine"
  fi
  clear_device_plugin_dir
  # A Unix socket's path has at most 107 bytes; the longest here is a driver's registration one.
  local longest="$nd/kubelet/plugins_registry/gpu.example.com-reg.sock"
  [ ${#longest} -le 107 ] ||
    die "real-node: $nd is too deep for Unix socket paths ($longest has ${#longest} bytes, at most 107): use a shorter --dir"
  mkdir -p "$nd/containerd" "$nd/kubelet" "$nd/pod-logs" "$nd/pki" "$cdi"
  cdi=$(realpath "$cdi")
  # A failed start leaves nothing running behind; the logs stay.
  trap 'say "real node $nodename failed to start; logs are in $DIR/logs"; stop_real_nodes "$nodename"; rm -rf "$nd"' EXIT

  # containerd, all its folders in the node's: its CRI plugin with CDI specs from the driver's
  # folder (always on in 2.x: 'enable_cdi' is gone, an unknown key), runc without systemd, our
  # pause image as the sandbox image, no CNI (pods use the host's network), the streaming server
  # on loopback. Root here lacks CAP_SYS_RESOURCE, so runc cannot lower a process's
  # oom_score_adj (the sandbox's -998 fails with "nsexec: failed to update
  # /proc/self/oom_score_adj: Permission denied"): containerd clamps it at its own instead.
  cat >"$nd/containerd.toml" <<EOF
version = 4
root = "$nd/containerd/root"
state = "$nd/containerd/state"
temp = "$nd/containerd/tmp"
[plugins.'io.containerd.server.v1.grpc']
  address = "$nd/containerd.sock"
[plugins.'io.containerd.server.v1.ttrpc']
  address = "$nd/containerd.sock.ttrpc"
[plugins.'io.containerd.cri.v1.images']
  snapshotter = "overlayfs"
  [plugins.'io.containerd.cri.v1.images'.pinned_images]
    sandbox = "$PAUSE_IMAGE"
[plugins.'io.containerd.cri.v1.runtime']
  restrict_oom_score_adj = true
  cdi_spec_dirs = ["$cdi"]
  [plugins.'io.containerd.cri.v1.runtime'.cni]
    conf_dir = "$nd/cni"
    bin_dirs = ["$nd/cni-bin"]
  [plugins.'io.containerd.cri.v1.runtime'.containerd]
    default_runtime_name = "runc"
    [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
        BinaryName = "$RUNC"
        Root = "$nd/runc"
        SystemdCgroup = false
[plugins.'io.containerd.grpc.v1.cri']
  stream_server_address = "127.0.0.1"
  stream_server_port = "0"
EOF
  start_process "containerd-$nodename" "$NODE_BIN/containerd" --config "$nd/containerd.toml"
  local i
  for i in $(seq 1 300); do
    node_ctr "$nd" version >/dev/null 2>&1 && break
    pid_alive "$DIR/pids/containerd-$nodename.pid" || { tail -n 30 "$DIR/logs/containerd-$nodename.log" >&2; die "containerd exited"; }
    sleep 0.1
  done
  node_ctr "$nd" version >/dev/null || die "containerd did not answer on $nd/containerd.sock within 30 s"
  local image
  for image in pause busybox; do
    node_ctr "$nd" images import --snapshotter overlayfs "$NODE_IMAGES/$image.tar" >&2 ||
      die "importing the $image image into containerd failed"
  done

  # The kubelet: the reference's relaxations for these machines (cgroup v1, no swap accounting,
  # no QoS cgroups, no eviction), its identity system:node:NODE, its API on loopback only.
  local kubeconfig; kubeconfig=$(node_kubeconfig "$nodename")
  local port healthz gates=""
  port=$(free_port); healthz=$(free_port)
  local g
  IFS=, read -ra g <<<"$FEATURE_GATES"
  for i in "${g[@]}"; do gates+="  ${i%%=*}: ${i#*=}"$'\n'; done
  cat >"$nd/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: 127.0.0.1
port: $port
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $healthz
containerRuntimeEndpoint: unix://$nd/containerd.sock
podLogsDir: $nd/pod-logs
failSwapOn: false
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupsPerQOS: false
enforceNodeAllocatable: []
evictionHard: {nodefs.available: "0%", imagefs.available: "0%", nodefs.inodesFree: "0%", imagefs.inodesFree: "0%"}
imageGCHighThresholdPercent: 100
localStorageCapacityIsolation: false
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
authorization: {mode: Webhook}
featureGates:
$gates
EOF
  start_process "kubelet-$nodename" "$BIN/kubelet" --config="$nd/kubelet.yaml" --kubeconfig="$kubeconfig" \
    --hostname-override="$nodename" --root-dir="$nd/kubelet" --cert-dir="$nd/pki" --v=2
  wait_healthy "kubelet-$nodename" "http://127.0.0.1:$healthz/healthz"
  for i in $(seq 1 300); do kc get node "$nodename" >/dev/null 2>&1 && break; sleep 0.1; done
  kc get node "$nodename" >/dev/null 2>&1 || die "the kubelet did not register node $nodename within 30 s"
  # No CNI, so the runtime's network stays not ready and so does the node; the scheduler only
  # reads the taint, which no node controller lifts here. Host-network pods run all the same.
  kc patch node "$nodename" --type=merge -p '{"spec":{"taints":null}}' >/dev/null
  trap - EXIT
  say "real node $nodename: kubelet $K8S_VERSION on containerd $CONTAINERD_VERSION (logs: $DIR/logs/kubelet-$nodename.log, $DIR/logs/containerd-$nodename.log)"
  echo "$nd/kubelet"
}

# Whether a live kubelet answers in the machine's device-plugin folder.
device_plugin_dir_served() {
  [ -S "$DEVICE_PLUGIN_DIR/kubelet.sock" ] && python3 -c 'import socket, sys
socket.socket(socket.AF_UNIX).connect(sys.argv[1])' "$DEVICE_PLUGIN_DIR/kubelet.sock" 2>/dev/null
}

# What a stopped kubelet left in the device-plugin folder: its socket, and its checkpoint, which
# would make the next kubelet list that kubelet's device plugins.
clear_device_plugin_dir() {
  rm -f "$DEVICE_PLUGIN_DIR/kubelet.sock" "$DEVICE_PLUGIN_DIR/kubelet_internal_checkpoint"
  rmdir "$DEVICE_PLUGIN_DIR" "$(dirname "$DEVICE_PLUGIN_DIR")" 2>/dev/null || true
}

# stop_real_nodes [NODE]: each real node's device plugin and kubelet (or NODE's only), then its
# containers (killed: nothing outlives the folder), then its containerd, then whatever is still
# mounted below it.
stop_real_nodes() {
  local nd nodename id
  for nd in "$DIR"/nodes/${1:-*}/; do
    [ -d "$nd" ] || continue
    nd=${nd%/}; nodename=$(basename "$nd")
    stop_process "device-plugin-$nodename"
    stop_process "kubelet-$nodename"
    if pid_alive "$DIR/pids/containerd-$nodename.pid"; then
      for id in $(node_ctr "$nd" containers list --quiet 2>/dev/null); do
        node_ctr "$nd" tasks delete --force "$id" >/dev/null 2>&1 || true
        node_ctr "$nd" containers delete "$id" >/dev/null 2>&1 || true
      done
    fi
    stop_process "containerd-$nodename"
    device_plugin_dir_served || clear_device_plugin_dir
    # A shim whose task could not be deleted still names this node's socket in its arguments.
    local p
    for p in /proc/[0-9]*; do
      grep -qzxF -- "$nd/containerd.sock" "$p/cmdline" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null || true
    done
  done
  local m
  for m in $(awk -v d="$DIR/nodes/${1:+$1/}" 'index($2, d) == 1 {print $2}' /proc/self/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
  # The containers' parent cgroup (runc removed the containers' own); kept while another real
  # node's containers are in it, as rmdir refuses a cgroup with children.
  rmdir /sys/fs/cgroup/*/k8s.io 2>/dev/null || true
}

# ---------------------------------------------------------------------------------------------
# device-plugin: the real device plugin beside a real node's kubelet

device_plugin() {
  local nodename="" mode=start specs=() domain=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --device) specs+=("$2"); shift 2 ;;
      --device=*) specs+=("${1#--device=}"); shift ;;
      --domain) domain=$2; shift 2 ;;
      --domain=*) domain=${1#--domain=}; shift ;;
      --stop) mode=stop; shift ;;
      --dir) DIR=$2; shift 2 ;;
      -*) die "device-plugin: unknown flag '$1'" ;;
      *) [ -z "$nodename" ] || die "device-plugin: one NODE only"; nodename=$1; shift ;;
    esac
  done
  [ -n "$nodename" ] || die "device-plugin: usage: device-plugin NODE --device SPEC... | device-plugin NODE --stop"
  require_up
  local name="device-plugin-$nodename"
  if [ $mode = stop ]; then
    stop_process "$name"
    say "stopped $name"
    return 0
  fi
  [ ${#specs[@]} -gt 0 ] || die "device-plugin: at least one --device SPEC (generic-device-plugin's JSON)"
  [ -d "$DIR/nodes/$nodename" ] || die "device-plugin: no real node $nodename in $DIR ('e2e/cluster.sh real-node $nodename')"
  [ -x "$GDP_BIN/generic-device-plugin" ] || die "device-plugin: $GDP_BIN/generic-device-plugin is missing: run 'e2e/cluster.sh build-node' first"
  local args=(--plugin-directory "$DEVICE_PLUGIN_DIR/" --log-level info) spec port
  for spec in "${specs[@]}"; do args+=(--device "$spec"); done
  [ -z "$domain" ] || args+=(--domain "$domain")
  port=$(free_port)
  args+=(--listen "127.0.0.1:$port")
  # It reads config.yaml from its working folder and every variable named like a flag (viper's
  # AutomaticEnv): start it in the node's folder with an environment of PATH alone.
  (cd "$DIR/nodes/$nodename" && start_process "$name" /usr/bin/env -i "PATH=$PATH" "$GDP_BIN/generic-device-plugin" "${args[@]}")
  wait_healthy "$name" "http://127.0.0.1:$port/health"
  say "generic-device-plugin $GDP_VERSION for $nodename (health and metrics on 127.0.0.1:$port; log: $DIR/logs/$name.log)"
  echo "$DIR/logs/$name.log"
}

main() {
  local cmd=${1:-help}
  [ $# -gt 0 ] && shift
  case "$cmd" in
    build) build "$@" ;;
    up) up "$@" ;;
    down) down "$@" ;;
    node) node "$@" ;;
    token) token "$@" ;;
    kubelet) kubelet "$@" ;;
    build-node) build_node "$@" ;;
    real-node) real_node "$@" ;;
    device-plugin) device_plugin "$@" ;;
    stop|start) component "$cmd" "$@" ;;
    kubectl) require_up; kc "$@" ;;
    bin) echo "$BIN" ;;
    help|-h|--help) sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d' | sed 's/^# \{0,1\}//' >&2 ;;
    *) die "unknown command '$cmd' (see e2e/cluster.sh help)" ;;
  esac
}

main "$@"
