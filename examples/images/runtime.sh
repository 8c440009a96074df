#!/usr/bin/env bash
# Makes the Java runtime a driver's image runs on: jlink from a JDK 25, with only the modules the
# driver's jar uses, no debug attributes, man pages or headers.
#   runtime.sh JAR OUT        jlinks into OUT (a new folder)
#   runtime.sh --jdk          prints the JDK 25 it links from
#   runtime.sh --modules JAR  prints the modules it would link for JAR
#
# The JDK 25: $DRA4J_JDK if set, else $JAVA_HOME if it is a JDK 25 (as in the eclipse-temurin:25-jdk
# image), else the first /usr/lib/jvm/* that is one (Debian's layout, e.g. Temurin's
# temurin-25-jdk-amd64 or Debian's java-25-openjdk-amd64). A JDK 25 has `jlink` and a `release`
# file saying JAVA_VERSION="25...". None: the script stops and says so.
#
# The modules: what the jar's classes name (jdeps), less java.desktop, java.sql and java.xml where
# only Jackson, SnakeYAML, Gson and JNA name them. Jackson declares them optional in its module
# descriptor (`requires static`); SnakeYAML names java.beans for bean properties, Gson java.sql
# types and JNA AWT window handles, none of which a driver uses. With them the runtime is 35 MB
# larger (AWT and its native libraries among it). Any other class that names one keeps it.
set -euo pipefail

jdk() {
  local home
  for home in ${DRA4J_JDK:+"$DRA4J_JDK"} ${JAVA_HOME:+"$JAVA_HOME"} /usr/lib/jvm/*; do
    if [ -x "$home/bin/jlink" ] && grep -q '^JAVA_VERSION="25[."]' "$home/release" 2>/dev/null; then
      echo "$home"
      return
    fi
    if [ -n "${DRA4J_JDK:-}" ] && [ "$home" = "$DRA4J_JDK" ]; then
      echo "DRA4J_JDK=$DRA4J_JDK is not a JDK 25 (no bin/jlink, or its release file is not JAVA_VERSION=\"25...\")" >&2
      exit 1
    fi
  done
  echo "no JDK 25 found (DRA4J_JDK, JAVA_HOME, /usr/lib/jvm/*): the image's runtime is linked from one." \
    "Install one (e.g. Temurin 25, package temurin-25-jdk from Adoptium's Debian repository) or set" \
    "DRA4J_JDK to its folder." >&2
  exit 1
}

modules() {
  local home="$1" jar="$2" deps module
  deps="$("$home/bin/jdeps" --ignore-missing-deps --multi-release 25 -verbose:package "$jar")"
  # Unindented lines read "<jar> -> <module>"; indented ones "   <package> -> <package> <module>".
  for module in $(sed -n 's/^[^ ].* -> \([a-z.]*\)$/\1/p' <<<"$deps"); do
    case "$module" in
      java.desktop|java.sql|java.xml)
        grep -E "[[:space:]]$module\$" <<<"$deps" | grep -E '^ ' |
          grep -vqE '^ +(com\.fasterxml\.jackson|org\.yaml\.snakeyaml|com\.google\.gson|com\.sun\.jna)[.[:space:]]' || continue ;;
    esac
    echo "$module"
  done | paste -sd, -
}

case "${1:-}" in
  --jdk) jdk ;;
  --modules) modules "$(jdk)" "${2:?usage: $0 --modules JAR}" ;;
  ""|-*) echo "usage: $0 JAR OUT | --jdk | --modules JAR" >&2; exit 2 ;;
  *)
    jar="$1" out="${2:?usage: $0 JAR OUT}"
    home="$(jdk)"
    mods="$(modules "$home" "$jar")"
    "$home/bin/jlink" --add-modules "$mods" --strip-debug --no-man-pages --no-header-files \
      --output "$out"
    echo "$out: $("$out/bin/java" -version 2>&1 | head -n 1), modules $mods"
    ;;
esac
