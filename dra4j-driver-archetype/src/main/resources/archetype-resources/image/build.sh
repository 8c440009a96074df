#!/usr/bin/env bash
# Builds this driver's container image as a tar, with no container engine and no registry (the
# same build as dra4j's examples, examples/images/build.sh):
#   mvn package && sudo image/build.sh
# writes target/<artifactId>-image.tar, tagged <image.repository>:<appVersion> from chart/values.yaml
# and chart/Chart.yaml, loadable with `podman load -i` or `docker load -i`. With Docker, the
# Dockerfile builds the same image from a registry's JDK 25 image instead.
#
# Needs root, Debian's debootstrap (installed when missing, on Debian or Ubuntu) and a JDK 25
# (image/runtime.sh says where it looks: DRA4J_JDK, JAVA_HOME, /usr/lib/jvm/*). Three layers. The
# base is Debian 12 (minbase, security updates applied, no documentation), built once per version
# of Debian's libc6 (the one library the JVM links to) under
# $HOME/.cache/dra4j/base-debian12-libc6-<version>/ (a few minutes the first time). The runtime,
# /opt/java/openjdk, is linked from the JDK 25 with only the modules the jar uses
# (image/runtime.sh). The application layer holds /app/<jar>.jar, /app/jvm.options (the JVM flags,
# image/jvm.options, and the cache's) and /app/<jar>.aot, a JDK 25 AOT cache made by the image's
# own runtime for that very jar path (a chroot into the image runs `train` from
# target/<artifactId>-dev.jar, copied into the chroot and into no layer: the driver's `run` from
# the production jar in a process of its own, registering with the test kit's kubelet simulator
# and publishing to its API server, then SIGTERM), with those flags. The image's JDK_JAVA_OPTIONS=@/app/jvm.options hands
# them to every java it runs; the chart passes its overrides after them.
set -euo pipefail
cd "$(dirname "$0")/.."
jar="$(sed -n 's:^  <artifactId>\(.*\)</artifactId>$:\1:p' pom.xml | head -n 1)"
version="$(sed -n 's/^appVersion: "\(.*\)"/\1/p' chart/Chart.yaml)"
repository="$(sed -n 's/^  repository: //p' chart/values.yaml | head -n 1)"
test -n "$jar" && test -n "$version" && test -n "$repository" || {
  echo "cannot read the artifactId (pom.xml), appVersion (chart/Chart.yaml) or image.repository (chart/values.yaml)" >&2
  exit 1
}
test -f "target/$jar.jar" && test -f "target/$jar-dev.jar" || { echo "build the jars first: mvn package" >&2; exit 1; }
test "$(id -u)" = 0 || { echo "run as root (debootstrap and chroot): sudo $0" >&2; exit 1; }
java=/opt/java/openjdk/bin/java
# `train` comes from the dev jar and runs on the JDK 25 the runtime is linked from (the test kit
# needs modules the driver does not), both copied into the chroot and into no layer.
# --pairs 0: the chroot has no /dev, and a prepare checks the device nodes a device names.
training=(/train/jdk/bin/java -jar "/train/$jar-dev.jar" train --pairs 0 --
  "$java" @/app/jvm.options -XX:AOTCacheOutput="/app/$jar.aot" -jar "/app/$jar.jar" run)

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
bash image/runtime.sh "target/$jar.jar" "$work/runtime/opt/java/openjdk"
jdk_version="$("$work/runtime/opt/java/openjdk/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')"
tar --numeric-owner --owner=0 --group=0 --mtime=@1 --sort=name -C "$work/runtime" -cf "$work/runtime.tar" ./opt

# --- application layer: the jar, the flags, and the AOT cache made by the runtime in a chroot ---
mkdir -p "$work/root" "$work/app/app"
cp "target/$jar.jar" "$work/app/app/$jar.jar"
cp image/jvm.options "$work/app/app/jvm.options"
# The cache records the jar's size and time: fix the time, the same in the chroot and the layer.
touch -d @1 "$work/app/app/$jar.jar"
tar -C "$work/root" -xf "$base/base.tar"
tar -C "$work/root" -xf "$work/runtime.tar"
cp -a "$work/app/app" "$work/root/app"
mkdir -p "$work/root/train" && cp "target/$jar-dev.jar" "$work/root/train/"
cp -a "$(bash image/runtime.sh --jdk)" "$work/root/train/jdk"
unshare --mount --pid --fork --mount-proc="$work/root/proc" chroot "$work/root" \
  "${training[@]}" >"target/image-aot-training.log" 2>&1 || { tail -20 "target/image-aot-training.log" >&2; exit 1; }
cp "$work/root/app/$jar.aot" "$work/app/app/$jar.aot"
printf "# The AOT cache trained with the flags above.\n-XX:AOTCache=/app/%s.aot\n" "$jar" >>"$work/app/app/jvm.options"
touch -d @1 "$work/app/app" "$work/app/app/"*
tar --numeric-owner --owner=0 --group=0 --mtime=@1 --sort=name -C "$work/app" -cf "$work/app.tar" ./app

python3 image/assemble.py --out "target/$jar-image.tar" \
  --tag "$repository:$version" --layer "$base/base.tar" --layer "$work/runtime.tar" \
  --layer "$work/app.tar" \
  --env PATH=/opt/java/openjdk/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env JAVA_HOME=/opt/java/openjdk --env JDK_JAVA_OPTIONS=@/app/jvm.options \
  --workdir /app --entrypoint=java --entrypoint=-jar --entrypoint="/app/$jar.jar" --cmd=run \
  --label "org.opencontainers.image.version=$version" --label "io.dra4j.java=$jdk_version" \
  --label "io.dra4j.libc6=$libc"
