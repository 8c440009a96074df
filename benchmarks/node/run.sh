#!/usr/bin/env bash
# The node benchmark in one command, from the repository root or anywhere:
#   benchmarks/node/run.sh [harness flags]      (e.g. --runs 3, --kubeconfig FILE; --help lists them)
# Builds the fake driver's jar and CDS archive and the test kit's API server jar (Maven, up to
# date in seconds when nothing changed), the Go anchor driver and the harness (Go, cached by
# version), then runs the harness from the repository root. The table goes to stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
./mvnw -q -pl examples/fake-driver,dra-testkit -am package -DskipTests >&2
go_driver="$(benchmarks/go-anchor/build.sh | tail -n 1)"
harness="$(benchmarks/node/build.sh | tail -n 1)"
exec "$harness" --go-driver "$go_driver" "$@"
