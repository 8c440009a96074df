#!/usr/bin/env bash
# Builds helm from its Go module into $HOME/.cache/dra4j/helm-<version>/bin (once per version) and
# prints the binary's path. The chart tests find it through DRA4J_HELM or this cache folder.
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v4.3.1}"
dir="$HOME/.cache/dra4j/helm-$HELM_VERSION"
if [ ! -x "$dir/bin/helm" ]; then
  mkdir -p "$dir"
  # -p 2: the build machines have two cores shared with others.
  GOFLAGS=-mod=mod GOBIN="$dir/bin.tmp" go install -p 2 \
    -ldflags "-X helm.sh/helm/v4/internal/version.version=$HELM_VERSION" \
    "helm.sh/helm/v4/cmd/helm@$HELM_VERSION" >&2
  mv "$dir/bin.tmp" "$dir/bin"
fi
echo "$dir/bin/helm"
