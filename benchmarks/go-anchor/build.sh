#!/usr/bin/env bash
# Builds the Go anchor driver (the Go helper k8s.io/dynamic-resource-allocation v0.37.2) and prints
# the binary's path as its last line. The binary is cached outside the work tree, under
# $HOME/.cache/dra4j/go-anchor-<hash of this module's sources>/, so an unchanged driver is not
# rebuilt and nothing built lands in the repository.
set -euo pipefail
cd "$(dirname "$0")"

export GOFLAGS=-mod=mod
export CGO_ENABLED=0
# Two cores are shared with other builds: keep the compiler to two parallel jobs unless told.
PARALLEL="${GO_BUILD_PARALLEL:-2}"

hash=$(cat go.mod go.sum ./*.go build.sh | sha256sum | cut -c1-16)
out="${HOME}/.cache/dra4j/go-anchor-${hash}"
bin="${out}/go-anchor"
if [ ! -x "$bin" ]; then
  mkdir -p "$out"
  go build -p "$PARALLEL" -trimpath -o "${bin}.tmp" .
  mv "${bin}.tmp" "$bin"
fi
echo "$bin"
