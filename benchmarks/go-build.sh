#!/usr/bin/env bash
# go-build.sh DIR NAME: builds the Go main module in DIR (relative to benchmarks/) and prints the
# binary's path as its last line. The binary is cached outside the work tree, under
# $HOME/.cache/dra4j/NAME-<hash of the module's sources and this script>/, so an unchanged module
# is not rebuilt and nothing built lands in the repository.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/$1"
name="$2"

export GOFLAGS=-mod=mod
export CGO_ENABLED=0
# Two cores are shared with other builds: two parallel compile jobs unless told otherwise.
PARALLEL="${GO_BUILD_PARALLEL:-2}"

# Every Go file of the module, its packages in subdirectories included.
hash=$(cat go.mod go.sum $(find . -name '*.go' | LC_ALL=C sort) "$here/go-build.sh" | sha256sum | cut -c1-16)
out="${HOME}/.cache/dra4j/${name}-${hash}"
bin="${out}/${name}"
if [ ! -x "$bin" ]; then
  mkdir -p "$out"
  go build -p "$PARALLEL" -trimpath -o "${bin}.tmp" .
  mv "${bin}.tmp" "$bin"
fi
echo "$bin"
