#!/usr/bin/env bash
# Builds metadata-reader (the device metadata reader of k8s.io/dynamic-resource-allocation v0.37.2,
# a test peer) as one static binary and prints its path as the last line; cached under
# $HOME/.cache/dra4j/metadata-reader-<hash of its sources>/ (see benchmarks/go-build.sh).
exec "$(dirname "$0")/../../benchmarks/go-build.sh" ../e2e/metadata-reader metadata-reader
