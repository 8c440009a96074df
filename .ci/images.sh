#!/usr/bin/env bash
# Builds the examples' container images without a container engine (examples/images/build.sh)
# and runs each under podman (examples/images/test-image.sh). Needs the jars of `./mvnw verify`.
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
