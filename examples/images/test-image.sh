#!/usr/bin/env bash
# Loads an example's image tar (examples/images/build.sh) with podman and runs the driver inside
# it: its help, real commands on the image's jlinked JDK 25 runtime (the NVIDIA driver's through
# JNA into a fake NVML, gcc-built from spi-nvidia's test sources), and proof that the image's JVM
# uses the image's AOT cache (our own classes load from it). As root; podman from Debian.
#   examples/images/test-image.sh fake-driver|nvidia-driver|hostdev-driver
#   examples/images/test-image.sh PROJECT   (a project generated from dra4j-driver-archetype, its
#                                           image built by its image/build.sh)
#
# On these machines (cgroup v1 mounted beside a cgroup2 tree, no systemd, a root without
# CAP_SYS_RESOURCE) podman needs: runc instead of crun ("crun: cgroups in hybrid mode not
# supported"), the cgroupfs manager and file events (no systemd), no network, and rlimits no
# higher than ours (crun and runc cannot raise RLIMIT_NOFILE / RLIMIT_NPROC).
set -euo pipefail
cd "$(dirname "$0")/../.."
example="${1:?usage: $0 fake-driver|nvidia-driver|hostdev-driver|PROJECT}"
case "$example" in
  fake-driver) jar=fake-dra-driver; main=io.dra4j.examples.fake.FakeDriverMain; help=(--help) ;;
  nvidia-driver) jar=nvidia-dra-driver; main=io.dra4j.examples.nvidia.NvidiaDriverMain; help=(run --help) ;;
  hostdev-driver) jar=hostdev-dra-driver; main=io.dra4j.examples.hostdev.HostdevDriverMain; help=(run --help) ;;
  *)
    test -f "$example/pom.xml" || { echo "unknown example $example (and no generated project's pom.xml)" >&2; exit 2; }
    jar="$(sed -n 's:^  <artifactId>\(.*\)</artifactId>$:\1:p' "$example/pom.xml" | head -n 1)"
    main="$(unzip -p "$example/target/$jar.jar" META-INF/MANIFEST.MF | tr -d '\r' | sed -n 's/^Main-Class: //p')"
    help=(--help) ;;
esac
tar="examples/$example/target/$jar-image.tar"
test -f "$example/pom.xml" && tar="$example/target/$jar-image.tar"
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
elif [ "$example" = nvidia-driver ]; then
  check "run --help" "--driver-name" "${podman[@]}" "${run[@]}" "$image" "${help[@]}"
  check "discover without a GPU" "cannot load the NVIDIA management library" "${podman[@]}" "${run[@]}" "$image" discover
  # The runtime has no java.desktop, which JNA names only for AWT window handles: its calls work.
  nvml="$(mktemp -d)"
  gcc -shared -fPIC -O1 -o "$nvml/libnvidia-ml.so.1" spi-nvidia/src/test/c/fake_nvml.c -lpthread
  check "discover through JNA, a fake NVML" "discovered 1 GPUs, published 1 devices" \
    "${podman[@]}" "${run[@]}" -v "$nvml:/nvml:ro" "$image" discover --nvml-library /nvml/libnvidia-ml.so.1
  rm -rf "$nvml"
else
  check "--help" "Usage: $jar.jar" "${podman[@]}" "${run[@]}" "$image" --help
  check "deviceclass" "extendedResourceName: " "${podman[@]}" "${run[@]}" "$image" deviceclass
fi
# The runtime: jlinked from JDK 25 with the jar's modules (examples/images/runtime.sh).
check "a JDK 25 runtime without java.desktop" "java.base@25" \
  bash -c 'out="$("$@" 2>&1)"; grep -q "^java.desktop@" <<<"$out" || echo "$out"' _ \
  "${podman[@]}" "${run[@]}" --entrypoint java "$image" --list-modules
# -XX:AOTMode=on refuses to start when the cache (-XX:AOTCache, in the image's jvm.options, which
# JDK_JAVA_OPTIONS hands to every java) does not fit this JVM, these flags and this jar.
check "AOT cache in use" "$main source: shared objects file" \
  "${podman[@]}" "${run[@]}" --entrypoint java "$image" \
  -XX:AOTMode=on -Xlog:class+load=info -jar "/app/$jar.jar" "${help[@]}"
# `train` went through the node's path: the API client is cached, and where it prepared claims
# (the fake driver), the kubelet's messages.
case "$example" in
  fake-driver) trained=io.dra4j.proto.dra.v1.NodePrepareResourcesRequest ;;
  nvidia-driver|hostdev-driver) trained="" ;;
  *) trained=io.dra4j.kube.HttpKubeClient ;;
esac
if [ -n "$trained" ]; then
  check "the run path in the cache" "$trained app_loader" \
    "${podman[@]}" "${run[@]}" --entrypoint java "$image" -XX:+PrintSharedArchiveAndExit -jar "/app/$jar.jar"
fi
"${podman[@]}" rmi -f "$image" >/dev/null 2>&1 || true
exit "$failed"
