#!/usr/bin/env bash
# A vendor's first hour, checked: installs dra4j into the local Maven repository, generates a
# driver project from io.dra4j:dra4j-driver-archetype, and builds, tests and runs it with no edit
# (`dev --once --claim`: the test kit's API server, the kubelet simulator, one claim prepared).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=$(sed -n 's:^  <version>\(.*\)</version>$:\1:p' pom.xml | head -n 1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

./mvnw -q -B install -DskipTests
(cd "$work" && "$repo/mvnw" -q -B org.apache.maven.plugins:maven-archetype-plugin:3.4.1:generate \
  -DarchetypeGroupId=io.dra4j -DarchetypeArtifactId=dra4j-driver-archetype \
  -DarchetypeVersion="$version" -DgroupId=com.acme -DartifactId=acme-driver -Dversion=0.1.0 \
  -Dpackage=com.acme.dra -DdriverName=accel.acme.example -DinteractiveMode=false)
(cd "$work/acme-driver" && "$repo/mvnw" -q -B verify)
out=$(java -jar "$work/acme-driver/target/acme-driver.jar" dev --once --claim 2>"$work/dev.log") || {
  cat "$work/dev.log" >&2
  exit 1
}
for expected in "pool dev-node, 2 devices" "-> CDI [k8s.accel.acme.example/claim=" "unprepared default/dev-claim"; do
  if ! grep -qF -- "$expected" <<<"$out"; then
    echo "archetype check: dev output lacks '$expected':" >&2
    echo "$out" >&2
    exit 1
  fi
done
java -jar "$work/acme-driver/target/acme-driver.jar" deviceclass | grep -q "extendedResourceName: accel.acme.example/device"
echo "archetype check: generated project built, tested and ran dev"
