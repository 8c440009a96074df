#!/usr/bin/env bash
# The node benchmark in one command, from the repository root or anywhere:
#   benchmarks/node/run.sh [harness flags]      (e.g. --runs 3, --kubeconfig FILE; --help lists them)
# Builds the fake driver's jar and CDS archive and the test kit's API server jar (Maven, up to
# date in seconds when nothing changed), the image's runtime for the jar and its AOT cache (as
# examples/images/build.sh makes them, for the jar's path here; redone when the jar, the runtime
# or examples/images/jvm.options changed), the Go anchor driver and the harness (Go, cached by
# version), then runs the harness from the repository root. The table goes to stdout.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
./mvnw -q -pl examples/fake-driver,dra-testkit -am package -DskipTests >&2
target=examples/fake-driver/target
jar="$target/fake-dra-driver.jar" runtime="$target/image-runtime" cache="$target/fake-dra-driver.aot"
if [ ! -x "$runtime/bin/java" ] || [ "$jar" -nt "$runtime/release" ]; then
  rm -rf "$runtime"
  bash examples/images/runtime.sh "$jar" "$runtime" >&2
fi
if [ ! -f "$cache" ] || [ "$jar" -nt "$cache" ] || [ "$runtime/release" -nt "$cache" ] ||
  [ examples/images/jvm.options -nt "$cache" ]; then
  echo "training the AOT cache $cache (log: $target/aot-training.log)" >&2
  "$runtime/bin/java" -jar "$jar" train -- "$root/$runtime/bin/java" @examples/images/jvm.options \
    -XX:AOTCacheOutput="$root/$cache" -jar "$root/$jar" run >"$target/aot-training.log" 2>&1
fi
go_driver="$(benchmarks/go-anchor/build.sh | tail -n 1)"
harness="$(benchmarks/node/build.sh | tail -n 1)"
exec "$harness" --go-driver "$go_driver" --image-java "$runtime/bin/java" "$@"
