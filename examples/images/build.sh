#!/usr/bin/env bash
# Builds an example driver's container image as a tar, with no container engine and no registry:
#   examples/images/build.sh fake-driver|nvidia-driver|hostdev-driver   (as root; the jar first)
# writes examples/<example>/target/<jar>-image.tar, loadable with `podman load -i` or
# `docker load -i`.
#
# The base layer is Debian 12 with its openjdk-17-jre-headless (debootstrap from Debian's own
# packages, security updates applied), built once per JRE version under
# $HOME/.cache/dra4j/base-debian12-jre17-<version>/. The application layer holds /app/<jar>.jar
# and /app/<jar>.jsa, a class-data-sharing archive made by the base image's own JVM for that very
# jar path (a chroot into the base runs the training), so the DaemonSet's -XX:SharedArchiveFile
# maps it instead of being refused.
set -euo pipefail
cd "$(dirname "$0")/../.."
example="${1:?usage: $0 fake-driver|nvidia-driver|hostdev-driver}"
# What runs around the archiving JVM (the driver's own command line in the middle):
case "$example" in
  # `train` runs the driver's `run` in a process of its own, called as a node calls it, against
  # the test kit's API server and kubelet simulator, then stops it with SIGTERM: the archive holds
  # the node's path and none of the test kit.
  fake-driver) jar=fake-dra-driver; before=(/usr/bin/java -jar "/app/$jar.jar" train --); after=(run) ;;
  # Without a GPU and NVML the driver cannot discover; its launcher and flag parsing still load.
  nvidia-driver) jar=nvidia-dra-driver; before=(); after=(run --help) ;;
  # Without a cluster: the device specification parser and the DeviceClass it prints.
  hostdev-driver) jar=hostdev-dra-driver; before=()
    after=(deviceclass --device '{"name": "fuse", "groups": [{"paths": [{"path": "/dev/fuse"}]}]}') ;;
  *) echo "unknown example $example" >&2; exit 2 ;;
esac
target="examples/$example/target"
test -f "$target/$jar.jar" || { echo "build the jar first: ./mvnw -pl examples/$example -am package -DskipTests" >&2; exit 1; }
version="$(sed -n 's/^appVersion: "\(.*\)"/\1/p' "examples/$example/chart/Chart.yaml")"
# The DaemonSet's JVM flags (chart/templates/daemonset.yaml); training runs with the same ones.
jvm=(-XX:+UseSerialGC -XX:MaxRAMPercentage=50 -XX:TieredStopAtLevel=1 -Xss512k)
training=("${before[@]}" /usr/bin/java "${jvm[@]}" -XX:ArchiveClassesAtExit="/app/$jar.jsa"
  -jar "/app/$jar.jar" "${after[@]}")

# --- base: Debian 12 + its JRE, cached by the JRE's version ---
jre="$(apt-cache policy openjdk-17-jre-headless | sed -n 's/^ *Candidate: //p')"
test -n "$jre" && test "$jre" != "(none)" || { echo "apt-get update first: no openjdk-17-jre-headless candidate" >&2; exit 1; }
base="$HOME/.cache/dra4j/base-debian12-jre17-${jre//[^A-Za-z0-9.+-]/_}"
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
  # The JRE's own install scripts run java, which needs /proc: a private one, in a new PID space.
  unshare --mount --pid --fork --mount-proc="$root/proc" chroot "$root" sh -c 'dpkg --configure -a && apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless ca-certificates && DEBIAN_FRONTEND=noninteractive apt-get upgrade -y -qq && apt-get clean && rm -rf /var/lib/apt/lists/*' >>"$base.tmp/debootstrap.log"
  got="$(chroot "$root" dpkg-query -W -f '${Version}' openjdk-17-jre-headless)"
  [ "$got" = "$jre" ] || { echo "the base got JRE $got, expected $jre" >&2; exit 1; }
  rm -f "$base.tmp/debootstrapped"
  tar --numeric-owner -C "$root" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -cf "$base.tmp/base.tar" .
  rm -rf "$base" && mv "$base.tmp" "$base"
fi

# --- application layer: the jar, and its CDS archive made by the base's JVM in a chroot ---
work="$(mktemp -d)"
trap 'umount -R "$work/root/proc" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/root" "$work/app/app"
cp "$target/$jar.jar" "$work/app/app/$jar.jar"
# The archive records the jar's size and time: fix the time, the same in the chroot and the layer.
touch -d @1 "$work/app/app/$jar.jar"
tar -C "$work/root" -xf "$base/base.tar"
cp -a "$work/app/app" "$work/root/app"
unshare --mount --pid --fork --mount-proc="$work/root/proc" chroot "$work/root" \
  "${training[@]}" >"$target/image-cds-training.log" 2>&1 || { tail -20 "$target/image-cds-training.log" >&2; exit 1; }
cp "$work/root/app/$jar.jsa" "$work/app/app/$jar.jsa"
touch -d @1 "$work/app/app" "$work/app/app/$jar.jsa"
tar --numeric-owner --owner=0 --group=0 --mtime=@1 -C "$work/app" -cf "$work/app.tar" ./app

python3 examples/images/assemble.py --out "$target/$jar-image.tar" \
  --tag "example.com/dra4j/$jar:$version" --layer "$base/base.tar" --layer "$work/app.tar" \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env "JAVA_TOOL_OPTIONS=${jvm[*]} -XX:SharedArchiveFile=/app/$jar.jsa" \
  --workdir /app --entrypoint=java --entrypoint=-jar --entrypoint="/app/$jar.jar" --cmd=run \
  --label "org.opencontainers.image.version=$version" --label "io.dra4j.jre=$jre"
