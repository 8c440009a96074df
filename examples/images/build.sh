#!/usr/bin/env bash
# Builds an example driver's container image as a tar, with no container engine and no registry:
#   examples/images/build.sh fake-driver|nvidia-driver|hostdev-driver   (as root; the jar first)
# writes examples/<example>/target/<jar>-image.tar, loadable with `podman load -i` or
# `docker load -i`.
#
# Three layers. The base is Debian 12 (debootstrap's minbase from Debian's own packages, security
# updates applied, no documentation), built once per version of Debian's libc6 (the one library
# the JVM links to) under $HOME/.cache/dra4j/base-debian12-libc6-<version>/. The runtime,
# /opt/java/openjdk, is linked from a JDK 25 with only the modules the jar uses
# (examples/images/runtime.sh, which also says how it finds the JDK 25 and fails when there is
# none). The application layer holds /app/<jar>.jar, /app/jvm.options (the JVM flags:
# examples/images/jvm.options, the example's own and the cache's) and /app/<jar>.aot, a JDK 25
# AOT cache made by the image's own runtime for that very jar path (a chroot into the image runs
# the training), with those flags. The image's JDK_JAVA_OPTIONS=@/app/jvm.options hands the flags
# to every java it runs; the charts pass their overrides after them.
set -euo pipefail
cd "$(dirname "$0")/../.."
example="${1:?usage: $0 fake-driver|nvidia-driver|hostdev-driver}"
java=/opt/java/openjdk/bin/java
# What runs around the training JVM (the driver's own command line in the middle):
case "$example" in
  # `train` runs the driver's `run` in a process of its own, called as a node calls it, against
  # the test kit's API server and kubelet simulator, then stops it with SIGTERM: the cache holds
  # the node's path and none of the test kit.
  fake-driver) jar=fake-dra-driver; before=("$java" -jar "/app/$jar.jar" train --); after=(run); own=() ;;
  # Without a GPU and NVML the driver cannot discover; its launcher and flag parsing still load.
  # Its own flags, after the shared ones: JNA loads NVML (a restricted method since JDK 24) and
  # unpacks its native part to the writable /tmp.
  nvidia-driver) jar=nvidia-dra-driver; before=(); after=(run --help)
    own=(--enable-native-access=ALL-UNNAMED -Djna.tmpdir=/tmp) ;;
  # Without a cluster: the device specification parser and the DeviceClass it prints.
  hostdev-driver) jar=hostdev-dra-driver; before=(); own=()
    after=(deviceclass --device '{"name": "fuse", "groups": [{"paths": [{"path": "/dev/fuse"}]}]}') ;;
  *) echo "unknown example $example" >&2; exit 2 ;;
esac
target="examples/$example/target"
test -f "$target/$jar.jar" || { echo "build the jar first: ./mvnw -pl examples/$example -am package -DskipTests" >&2; exit 1; }
version="$(sed -n 's/^appVersion: "\(.*\)"/\1/p' "examples/$example/chart/Chart.yaml")"
training=("${before[@]}" "$java" @/app/jvm.options -XX:AOTCacheOutput="/app/$jar.aot"
  -jar "/app/$jar.jar" "${after[@]}")

# --- base: Debian 12 minbase, cached by the version of its libc6 ---
libc="$(apt-cache policy libc6 | sed -n 's/^ *Candidate: //p')"
test -n "$libc" && test "$libc" != "(none)" || { echo "apt-get update first: no libc6 candidate" >&2; exit 1; }
base="$HOME/.cache/dra4j/base-debian12-libc6-${libc//[^A-Za-z0-9.+-]/_}"
if [ ! -f "$base/base.tar" ]; then
  command -v debootstrap >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  root="$base.tmp/rootfs"
  # A finished debootstrap survives a later step's failure; anything else starts over.
  if [ ! -f "$base.tmp/debootstrapped" ]; then
    rm -rf "$base.tmp" && mkdir -p "$base.tmp"
    debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$base.tmp/debootstrap.log"
    touch "$base.tmp/debootstrapped"
  fi
  cat > "$root/etc/apt/sources.list" <<'SOURCES'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SOURCES
  # The package scripts get a private /proc, in a new PID space.
  unshare --mount --pid --fork --mount-proc="$root/proc" chroot "$root" sh -c 'dpkg --configure -a && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -qq && apt-get clean && rm -rf /var/lib/apt/lists/* /usr/share/doc/* /usr/share/man/* /usr/share/info/* /usr/share/locale/*' >>"$base.tmp/debootstrap.log"
  got="$(chroot "$root" dpkg-query -W -f '${Version}' libc6)"
  [ "$got" = "$libc" ] || { echo "the base got libc6 $got, expected $libc" >&2; exit 1; }
  rm -f "$base.tmp/debootstrapped"
  tar --numeric-owner -C "$root" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -cf "$base.tmp/base.tar" .
  rm -rf "$base" && mv "$base.tmp" "$base"
fi

work="$(mktemp -d)"
trap 'umount -R "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
# --- runtime layer: the JDK 25 runtime with the jar's modules ---
mkdir -p "$work/runtime/opt/java"
bash examples/images/runtime.sh "$target/$jar.jar" "$work/runtime/opt/java/openjdk"
jdk_version="$("$work/runtime/opt/java/openjdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')"
tar --numeric-owner --owner=0 --group=0 --mtime=@1 --sort=name -C "$work/runtime" -cf "$work/runtime.tar" ./opt

# --- application layer: the jar, the flags, and the AOT cache made by the runtime in a chroot ---
mkdir -p "$work/root" "$work/app/app"
cp "$target/$jar.jar" "$work/app/app/$jar.jar"
cp examples/images/jvm.options "$work/app/app/jvm.options"
if [ "${#own[@]}" -gt 0 ]; then
  printf "# The %s's own.\n%s\n" "$example" "${own[*]}" >>"$work/app/app/jvm.options"
fi
# The cache records the jar's size and time: fix the time, the same in the chroot and the layer.
touch -d @1 "$work/app/app/$jar.jar"
tar -C "$work/root" -xf "$base/base.tar"
tar -C "$work/root" -xf "$work/runtime.tar"
cp -a "$work/app/app" "$work/root/app"
unshare --mount --pid --fork --mount-proc="$work/root/proc" chroot "$work/root" \
  "${training[@]}" >"$target/image-aot-training.log" 2>&1 || { tail -20 "$target/image-aot-training.log" >&2; exit 1; }
cp "$work/root/app/$jar.aot" "$work/app/app/$jar.aot"
printf "# The AOT cache trained with the flags above.\n-XX:AOTCache=/app/%s.aot\n" "$jar" >>"$work/app/app/jvm.options"
touch -d @1 "$work/app/app" "$work/app/app/"*
tar --numeric-owner --owner=0 --group=0 --mtime=@1 --sort=name -C "$work/app" -cf "$work/app.tar" ./app

python3 examples/images/assemble.py --out "$target/$jar-image.tar" \
  --tag "example.com/dra4j/$jar:$version" --layer "$base/base.tar" --layer "$work/runtime.tar" \
  --layer "$work/app.tar" \
  --env PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env JAVA_HOME=/opt/java/openjdk --env JDK_JAVA_OPTIONS=@/app/jvm.options \
  --workdir /app --entrypoint=java --entrypoint=-jar --entrypoint="/app/$jar.jar" --cmd=run \
  --label "org.opencontainers.image.version=$version" --label "io.dra4j.java=$jdk_version" \
  --label "io.dra4j.libc6=$libc"
