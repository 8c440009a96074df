#!/usr/bin/env bash
# Builds this driver's container image as a tar, with no container engine and no registry (the
# same build as dra4j's examples, examples/images/build.sh):
#   mvn package && sudo image/build.sh
# writes target/<artifactId>-image.tar, tagged <image.repository>:<appVersion> from chart/values.yaml
# and chart/Chart.yaml, loadable with `podman load -i` or `docker load -i`. With Docker, the
# Dockerfile builds the same image from a registry's JRE image instead.
#
# Needs root and Debian's debootstrap (installed when missing, on Debian or Ubuntu). The base layer
# is Debian 12 with its openjdk-17-jre-headless (security updates applied), built once per JRE
# version under $HOME/.cache/dra4j/base-debian12-jre17-<version>/ (a few minutes the first time).
# The application layer holds /app/<jar>.jar and /app/<jar>.jsa, a class-data-sharing archive made
# by the base's own JVM for that very jar path (a chroot into the base runs `train` from
# target/<artifactId>-dev.jar, copied into the chroot and into no layer: the driver's `run` from
# the production jar in a process of its own, registering with the test kit's kubelet simulator and
# publishing to its API server, then SIGTERM), so the chart's -XX:SharedArchiveFile maps it instead
# of being refused.
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
# The chart's JVM flags (chart/templates/daemonset.yaml); training runs with the same ones.
jvm=(-XX:+UseSerialGC -XX:MaxRAMPercentage=50 -XX:TieredStopAtLevel=1 -Xss512k)
# --pairs 0: the chroot has no /dev, and a prepare checks the device nodes a device names.
training=(/usr/bin/java -jar "/train/$jar-dev.jar" train --pairs 0 --
  /usr/bin/java "${jvm[@]}" -XX:ArchiveClassesAtExit="/app/$jar.jsa" -jar "/app/$jar.jar" run)

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
cp "target/$jar.jar" "$work/app/app/$jar.jar"
# The archive records the jar's size and time: fix the time, the same in the chroot and the layer.
touch -d @1 "$work/app/app/$jar.jar"
tar -C "$work/root" -xf "$base/base.tar"
cp -a "$work/app/app" "$work/root/app"
mkdir -p "$work/root/train" && cp "target/$jar-dev.jar" "$work/root/train/"
unshare --mount --pid --fork --mount-proc="$work/root/proc" chroot "$work/root" \
  "${training[@]}" >"target/image-cds-training.log" 2>&1 || { tail -20 "target/image-cds-training.log" >&2; exit 1; }
cp "$work/root/app/$jar.jsa" "$work/app/app/$jar.jsa"
touch -d @1 "$work/app/app" "$work/app/app/$jar.jsa"
tar --numeric-owner --owner=0 --group=0 --mtime=@1 -C "$work/app" -cf "$work/app.tar" ./app

python3 image/assemble.py --out "target/$jar-image.tar" \
  --tag "$repository:$version" --layer "$base/base.tar" --layer "$work/app.tar" \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env "JAVA_TOOL_OPTIONS=${jvm[*]} -XX:SharedArchiveFile=/app/$jar.jsa" \
  --workdir /app --entrypoint=java --entrypoint=-jar --entrypoint="/app/$jar.jar" --cmd=run \
  --label "org.opencontainers.image.version=$version" --label "io.dra4j.jre=$jre"
