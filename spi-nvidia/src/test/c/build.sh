#!/bin/sh
# Builds the fake libnvidia-ml.so.1 used by spi-nvidia's tests (run by Maven in
# generate-test-resources). Without gcc it prints a WARNING and exits 0 so the NVML tests skip,
# unless DRA4J_REQUIRE_PEERS=1, in which case a missing gcc fails the build.
set -eu
src_dir=${0%/*}
out_dir=${1:?usage: build.sh <output dir>}
src="$src_dir/fake_nvml.c"

if ! command -v gcc >/dev/null 2>&1; then
  if [ "${DRA4J_REQUIRE_PEERS:-}" = "1" ]; then
    echo "ERROR: gcc not found on PATH, and DRA4J_REQUIRE_PEERS=1: cannot build the fake libnvidia-ml.so.1" >&2
    exit 1
  fi
  echo "WARNING: gcc not found on PATH: the fake libnvidia-ml.so.1 is not built and the NVML tests of spi-nvidia will be skipped" >&2
  exit 0
fi

build() {
  dir=$1
  shift
  lib="$dir/libnvidia-ml.so.1"
  if [ -f "$lib" ] && [ "$lib" -nt "$src" ] && [ "$lib" -nt "$0" ]; then
    return 0
  fi
  mkdir -p "$dir"
  gcc -shared -fPIC -O1 -g -Wall -Wextra -Werror -std=c11 -pthread \
    -Wl,-soname,libnvidia-ml.so.1 "$@" -o "$lib.tmp" "$src"
  mv "$lib.tmp" "$lib"
}

build "$out_dir/current"
build "$out_dir/legacy" -DFAKE_NVML_LEGACY
