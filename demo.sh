#!/usr/bin/env sh
# The no-cluster demo: builds the fake driver once (Maven wrapper, Java 17), then runs
# `fake-dra-driver.jar demo`. Flags are passed on: ./demo.sh --keep
set -eu
cd "$(dirname "$0")"
JAR=examples/fake-driver/target/fake-dra-driver.jar
if [ ! -f "$JAR" ] || [ -n "$(find . -path ./.git -prune -o \( -name '*.java' -o -name pom.xml \) -newer "$JAR" -print 2>/dev/null | head -n 1)" ]; then
  echo "building the fake driver (first run, or sources changed; takes a few minutes)..." >&2
  ./mvnw -q -B -pl examples/fake-driver -am package -DskipTests >&2
fi
exec java -jar "$JAR" demo "$@"
