#!/usr/bin/env bash
# Stages a release as Maven Central would receive it and checks it (.ci/check-staging.py): every
# published module with its jar, sources, javadoc and POM metadata, the BOM, and a vendor project
# built against the staged jars. Tests are skipped here: `./mvnw verify` runs them.
# Extra arguments go to check-staging.py (e.g. --signed after adding -Psign; see README).
set -euo pipefail
cd "$(dirname "$0")/.."

rm -rf target/staging
# The repository id must not be "local": Maven would keep the staging folder's metadata in the
# local repository under maven-metadata-local.xml and overwrite the local install's record.
./mvnw -B -q -Prelease${DRA4J_RELEASE_PROFILES:+,$DRA4J_RELEASE_PROFILES} -DskipTests -Dmaven.install.skip=true \
  deploy -DaltDeploymentRepository=staging::file:target/staging
python3 .ci/check-staging.py "$@"
