#!/usr/bin/env bash
# Builds the Go anchor driver (the Go helper k8s.io/dynamic-resource-allocation v0.37.2) and prints
# the binary's path as its last line; cached under $HOME/.cache/dra4j/ (see ../go-build.sh).
exec "$(dirname "$0")/../go-build.sh" go-anchor go-anchor
