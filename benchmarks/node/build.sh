#!/usr/bin/env bash
# Builds the node benchmark harness and prints the binary's path as its last line; cached under
# $HOME/.cache/dra4j/ (see ../go-build.sh).
exec "$(dirname "$0")/../go-build.sh" node node-bench
