#!/usr/bin/env bash
# Prints the folder of the official OpenAPI v3 documents of Kubernetes $KUBE_VERSION, taken from
# the k8s.io/kubernetes Go module (downloaded once into the Go module cache). The chart tests
# check every rendered object against them (DRA4J_KUBE_OPENAPI).
set -euo pipefail
KUBE_VERSION="${KUBE_VERSION:-v1.37.2}"
dir="$(GOFLAGS=-mod=mod go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" \
  | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
test -d "$dir/api/openapi-spec/v3" || { echo "no OpenAPI documents in $dir" >&2; exit 1; }
echo "$dir/api/openapi-spec/v3"
