#!/usr/bin/env bash
# Builds the examples' container images and a project's generated from the archetype, without a
# container engine (examples/images/build.sh, the project's image/build.sh), and runs each under
# podman (examples/images/test-image.sh): the driver on the image's jlinked JDK 25 runtime with its
# AOT cache. Needs the jars of `./mvnw verify` and dra4j installed in the local Maven repository
# (.ci/archetype-check.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO=sudo; fi
PKGS="debootstrap podman runc"
if ! dpkg -s $PKGS >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
fi
for example in fake-driver nvidia-driver hostdev-driver; do
  $SUDO examples/images/build.sh "$example"
  $SUDO examples/images/test-image.sh "$example"
done

# The archetype's image, as a vendor builds it: a generated project, its jar, its image/build.sh.
version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$OLDPWD/mvnw" -q -B org.apache.maven.plugins:maven-archetype-plugin:3.4.1:generate \
  -DarchetypeGroupId=io.dra4j -DarchetypeArtifactId=dra4j-driver-archetype \
  -DarchetypeVersion="$version" -DgroupId=com.acme -DartifactId=acme-driver -Dversion=0.1.0 \
  -Dpackage=com.acme.dra -DdriverName=accel.acme.example -DinteractiveMode=false)
(cd "$work/acme-driver" && "$OLDPWD/mvnw" -q -B package -DskipTests)
$SUDO bash "$work/acme-driver/image/build.sh"
$SUDO examples/images/test-image.sh "$work/acme-driver"
