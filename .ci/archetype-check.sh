#!/usr/bin/env bash
# A vendor's first hour, checked: installs dra4j into the local Maven repository, generates a
# driver project from io.dra4j:dra4j-driver-archetype, and builds, tests and runs it with no edit
# (the dev jar's `dev --once --claim`: the test kit's API server, the kubelet simulator, one claim
# prepared), checks that the production jar holds no class of the test kit or the dev commands,
# lints and renders its Helm chart, and checks its image build's scripts (.ci/images.sh builds and
# runs the image).
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
# A vendor's project builds on dra4j's exported API alone: no class names an internal type (a
# package the module descriptors export only to dra4j's own modules).
if uses=$(grep -rlE "io/dra4j/((cel|proto|validation)/|[a-z0-9/]+/internal/)" "$work/acme-driver/target/classes"); then
  echo "archetype check: the generated project uses dra4j's internal packages: $uses" >&2
  exit 1
fi
# The production jar, what the image ships, holds none of the test kit and the development
# commands; the dev jar adds them.
prod="$work/acme-driver/target/acme-driver.jar"
if dev=$(jar tf "$prod" | grep -E '^io/dra4j/(testkit|dev)/'); then
  echo "archetype check: the production jar holds test-kit or dev classes:" >&2
  echo "$dev" | head -n 20 >&2
  exit 1
fi
jar tf "$prod" | grep -q '^io/dra4j/runtime/DraDriver.class$' ||
  { echo "archetype check: the production jar holds no DraDriver" >&2; exit 1; }
java -jar "$prod" --help | grep -qE '^  (dev|train) ' &&
  { echo "archetype check: the production jar lists dev or train" >&2; exit 1; }
out=$(java -jar "$work/acme-driver/target/acme-driver-dev.jar" dev --once --claim 2>"$work/dev.log") || {
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
java -jar "$prod" deviceclass | grep -q "extendedResourceName: accel.acme.example/device"

# --- the chart: lint (default and full values), the schema's refusal, the rendering's names ---
helm="$(.ci/install-helm.sh)"
chart="$work/acme-driver/chart"
fail() { echo "archetype check: $*" >&2; exit 1; }
"$helm" lint --strict "$chart" >"$work/lint.log" 2>&1 || { cat "$work/lint.log" >&2; fail "helm lint failed"; }
"$helm" lint --strict "$chart" -f "$chart/ci/full-values.yaml" >"$work/lint.log" 2>&1 ||
  { cat "$work/lint.log" >&2; fail "helm lint with ci/full-values.yaml failed"; }
if "$helm" lint --strict "$chart" --set driverName=Not_A_Name >"$work/lint.log" 2>&1; then
  fail "helm lint accepted driverName=Not_A_Name; values.schema.json should refuse it"
fi
"$helm" template acme "$chart" --namespace acme-system >"$work/rendered.yaml" ||
  fail "helm template failed"
"$helm" template acme "$chart" --namespace acme-system -f "$chart/ci/full-values.yaml" >/dev/null ||
  fail "helm template with ci/full-values.yaml failed"
for expected in 'image: "registry.example.com/acme-driver:0.1.0"' 'value: "accel.acme.example"' \
  "@/app/jvm.options" "device.driver == 'accel.acme.example'" \
  "extendedResourceName: accel.acme.example/device" "kind: ValidatingAdmissionPolicy" \
  'resourceNames: ["accel.acme.example"]'; do
  grep -qF -- "$expected" "$work/rendered.yaml" || { cat "$work/rendered.yaml" >&2; fail "the chart's rendering lacks '$expected'"; }
done

# --- the image: the project's image build, checked without building it (.ci/images.sh builds,
# loads and runs the generated project's image) ---
# The project's image scripts and JVM flags are copies of the examples' (a generated project stands
# alone); a copy may not drift from the one the examples' image tests run.
for file in assemble.py runtime.sh jvm.options; do
  cmp -s "$work/acme-driver/image/$file" "examples/images/$file" ||
    fail "image/$file differs from examples/images/$file: update the archetype's copy"
done
(cd "$work/acme-driver" && bash -n image/build.sh && bash -n image/runtime.sh && python3 -m py_compile image/assemble.py) ||
  fail "image/build.sh, image/runtime.sh or image/assemble.py does not parse"
# The runtime's modules: what the jar names, less the optional ones (image/runtime.sh).
modules="$(bash "$work/acme-driver/image/runtime.sh" --modules "$work/acme-driver/target/acme-driver.jar")" ||
  fail "image/runtime.sh found no JDK 25 or no modules"
case ",$modules," in
  *,java.base,*) ;;
  *) fail "image/runtime.sh --modules gave '$modules', without java.base" ;;
esac
case ",$modules," in
  *,java.desktop,*) fail "image/runtime.sh --modules kept java.desktop: '$modules'" ;;
esac
# assemble.py on the application layer alone checks the tar's layout and tag.
mkdir -p "$work/layer/app" && cp "$work/acme-driver/target/acme-driver.jar" "$work/layer/app/"
tar -C "$work/layer" -cf "$work/app.tar" ./app
python3 "$work/acme-driver/image/assemble.py" --out "$work/app-image.tar" \
  --tag registry.example.com/acme-driver:0.1.0 --layer "$work/app.tar" \
  --entrypoint=java --entrypoint=-jar --entrypoint=/app/acme-driver.jar --cmd=run >/dev/null
tar -xOf "$work/app-image.tar" manifest.json | grep -qF '"registry.example.com/acme-driver:0.1.0"' ||
  fail "assemble.py wrote no image with the chart's tag"
classes=$(jar tf "$prod" | grep -c '^io/dra4j/.*\.class$')
echo "archetype check: generated project built and tested, production jar free of the test kit ($classes dra4j classes), dev jar ran dev; chart linted and rendered; image scripts checked (modules: $modules)"
