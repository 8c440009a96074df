#!/usr/bin/env bash
# Loads an example's image tar (examples/images/build.sh) with podman and runs the driver inside
# it: its help, one real command, and proof that the image's JVM maps the image's CDS archive
# (our own classes load from it). As root; podman from Debian.
#   examples/images/test-image.sh fake-driver|nvidia-driver|hostdev-driver
#
# On these machines (cgroup v1 mounted beside a cgroup2 tree, no systemd, a root without
# CAP_SYS_RESOURCE) podman needs: runc instead of crun ("crun: cgroups in hybrid mode not
# supported"), the cgroupfs manager and file events (no systemd), no network, and rlimits no
# higher than ours (crun and runc cannot raise RLIMIT_NOFILE / RLIMIT_NPROC).
set -euo pipefail
cd "$(dirname "$0")/../.."
example="${1:?usage: $0 fake-driver|nvidia-driver|hostdev-driver}"
case "$example" in
  fake-driver) jar=fake-dra-driver; main=io.dra4j.examples.fake.FakeDriverMain; help=(--help) ;;
  nvidia-driver) jar=nvidia-dra-driver; main=io.dra4j.examples.nvidia.NvidiaDriverMain; help=(run --help) ;;
  hostdev-driver) jar=hostdev-dra-driver; main=io.dra4j.examples.hostdev.HostdevDriverMain; help=(run --help) ;;
  *) echo "unknown example $example" >&2; exit 2 ;;
esac
tar="examples/$example/target/$jar-image.tar"
podman=(podman --runtime runc --cgroup-manager cgroupfs --events-backend file)
run=(run --rm --network none --ulimit nofile=4096:4096 --ulimit nproc=4096:4096)
failed=0
check() { # name, expected text, command...
  local name="$1" want="$2"; shift 2
  local out
  out="$("$@" 2>&1)" || true
  if grep -qF -- "$want" <<<"$out"; then echo "ok: $example image: $name"
  else echo "FAILED: $example image: $name: no \"$want\" in:"; sed 's/^/    /' <<<"$out" | tail -20; failed=1; fi
}

image="$("${podman[@]}" load -q -i "$tar" | sed -n 's/^Loaded image: //p' | head -1)"
test -n "$image" || { echo "podman load -i $tar loaded nothing" >&2; exit 1; }
if [ "$example" = fake-driver ]; then
  check "--help" "Usage: fake-dra-driver.jar" "${podman[@]}" "${run[@]}" "$image" --help
  check "deviceclass" "extendedResourceName: example.com/gpu" \
    "${podman[@]}" "${run[@]}" "$image" deviceclass --extended-resource-name example.com/gpu
elif [ "$example" = hostdev-driver ]; then
  check "run --help" "--device-config FILE" "${podman[@]}" "${run[@]}" "$image" "${help[@]}"
  check "deviceclass" "extendedResourceName: devic.es/fuse" "${podman[@]}" "${run[@]}" "$image" \
    deviceclass --device '{"name": "fuse", "groups": [{"paths": [{"path": "/dev/fuse"}]}]}'
else
  check "run --help" "--driver-name" "${podman[@]}" "${run[@]}" "$image" "${help[@]}"
  check "discover without a GPU" "cannot load the NVIDIA management library" "${podman[@]}" "${run[@]}" "$image" discover
fi
# -Xshare:on refuses to start when the archive does not fit this JVM and this jar.
check "CDS archive in use" "$main source: shared objects file (top)" \
  "${podman[@]}" "${run[@]}" --entrypoint java "$image" \
  -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:SharedArchiveFile="/app/$jar.jsa" -Xshare:on \
  -Xlog:class+load=info -jar "/app/$jar.jar" "${help[@]}"
if [ "$example" = fake-driver ]; then
  # `train` went through the node's path: the API client and the kubelet's messages are archived.
  check "the run path in the archive" "io.dra4j.proto.dra.v1.NodePrepareResourcesRequest app_loader" \
    "${podman[@]}" "${run[@]}" --entrypoint java "$image" \
    -XX:SharedArchiveFile="/app/$jar.jsa" -XX:+PrintSharedArchiveAndExit -jar "/app/$jar.jar"
fi
"${podman[@]}" rmi -f "$image" >/dev/null 2>&1 || true
exit "$failed"
