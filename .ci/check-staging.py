#!/usr/bin/env python3
"""Checks a staged release and that a vendor's project can build against it.

Run after
  ./mvnw -Prelease deploy -DaltDeploymentRepository=staging::file:target/staging
as  .ci/check-staging.py [--staging target/staging] [--signed] [--no-consumer]

What Maven Central needs, per module that is not marked maven.deploy.skip: its POM, and for a
jar module its jar, -sources.jar and -javadoc.jar (each with content of its kind); the name,
description, URL, license, SCM and developers in the POM or its parent; with --signed, an .asc
beside every file. dra4j-bom must list exactly the published jar modules, at the parent's version,
and carry the parent's metadata (the archetype is published but not a dependency, so not listed). Then .ci/bom-consumer (a project outside the reactor that imports
the BOM) builds and runs its test with dra4j resolved from the staging folder only.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

NS = {"m": "http://maven.apache.org/POM/4.0.0"}
ROOT = Path(__file__).resolve().parent.parent
METADATA = ("url", "licenses", "developers", "scm")

problems = []


def problem(text):
    problems.append(text)


def text(elem, path):
    found = elem.find(path, NS)
    return found.text.strip() if found is not None and found.text else ""


class Module:
    def __init__(self, directory, parent):
        self.dir = directory
        self.pom = ET.parse(directory / "pom.xml").getroot()
        self.parent = parent
        self.artifact_id = text(self.pom, "m:artifactId")
        self.packaging = text(self.pom, "m:packaging") or "jar"
        own = text(self.pom, "m:properties/m:maven.deploy.skip")
        self.skipped = own == "true" if own else bool(parent and parent.skipped)
        self.java = (directory / "src" / "main" / "java").is_dir()
        self.archetype = (directory / "src/main/resources/META-INF/maven/archetype-metadata.xml").is_file()

    def children(self):
        return [Module(self.dir / m.text.strip(), self) for m in self.pom.findall("m:modules/m:module", NS)]


def reactor(module):
    yield module
    for child in module.children():
        yield from reactor(child)


def staged_file(staging, artifact_id, version, suffix):
    """The file for one artifact in a Maven 2 layout; snapshots carry a timestamp instead."""
    folder = staging / "io" / "dra4j" / artifact_id / version
    if not version.endswith("-SNAPSHOT"):
        path = folder / f"{artifact_id}-{version}{suffix}"
        return path if path.is_file() else None
    base = version[: -len("-SNAPSHOT")]
    pattern = re.compile(re.escape(f"{artifact_id}-{base}-") + r"\d{8}\.\d{6}-\d+" + re.escape(suffix) + "$")
    matches = sorted(p for p in folder.glob(f"{artifact_id}-*{suffix}") if pattern.match(p.name)) if folder.is_dir() else []
    return matches[-1] if matches else None


def check_zip(path, what, member_test):
    try:
        with zipfile.ZipFile(path) as z:
            if not any(member_test(n) for n in z.namelist()):
                problem(f"{path.name}: holds no {what}")
    except zipfile.BadZipFile:
        problem(f"{path.name}: is not a jar")


def check_module(staging, module, version, signed):
    suffixes = [".pom"]
    if module.packaging == "jar":
        suffixes += [".jar", "-sources.jar", "-javadoc.jar"]
    for suffix in suffixes:
        path = staged_file(staging, module.artifact_id, version, suffix)
        if path is None:
            problem(f"{module.artifact_id}: no {suffix} in the staging folder")
            continue
        if signed and not Path(str(path) + ".asc").is_file():
            problem(f"{path.name}: no signature (.asc)")
        if suffix == ".jar":
            # An archetype's jar holds its project templates, not classes.
            wanted = ("classes", lambda n: n.endswith(".class")) if module.java else ("files", lambda n: not n.endswith("/"))
            check_zip(path, *wanted)
        elif suffix == "-sources.jar" and module.java:
            check_zip(path, "Java sources", lambda n: n.endswith(".java"))
        elif suffix == "-javadoc.jar" and module.java:
            check_zip(path, "javadoc pages", lambda n: n == "index.html")
        elif suffix == ".pom":
            check_pom(path)


def check_pom(path):
    pom = ET.parse(path).getroot()
    for field in ("name", "description"):
        if not text(pom, f"m:{field}"):
            problem(f"{path.name}: no <{field}>")
    # A POM with a parent inherits the rest; the parent is staged and checked for all of it.
    if pom.find("m:parent", NS) is None:
        for field in METADATA:
            if pom.find(f"m:{field}", NS) is None:
                problem(f"{path.name}: no <{field}>")


def check_bom(staging, published_jars, parent_pom, version):
    path = staged_file(staging, "dra4j-bom", version, ".pom")
    if path is None:
        return  # already reported
    bom = ET.parse(path).getroot()
    if bom.find("m:parent", NS) is not None:
        problem("dra4j-bom: has a parent, so importing it would also import the parent's pins")
    if text(bom, "m:version") != version:
        problem(f"dra4j-bom: version {text(bom, 'm:version')}, the parent's is {version}")
    listed = set()
    for dep in bom.findall("m:dependencyManagement/m:dependencies/m:dependency", NS):
        group, artifact = text(dep, "m:groupId"), text(dep, "m:artifactId")
        if group != "io.dra4j":
            problem(f"dra4j-bom: manages {group}:{artifact}, which is not ours")
        if text(dep, "m:version") != "${project.version}":
            problem(f"dra4j-bom: {artifact} is not at the BOM's own version")
        listed.add(artifact)
    for missing in sorted(published_jars - listed):
        problem(f"dra4j-bom: does not list the published module {missing}")
    for extra in sorted(listed - published_jars):
        problem(f"dra4j-bom: lists {extra}, which is not published")
    for field in METADATA:
        a, b = bom.find(f"m:{field}", NS), parent_pom.find(f"m:{field}", NS)
        if a is None or b is None or canonical(a) != canonical(b):
            problem(f"dra4j-bom: <{field}> differs from dra4j-parent's")


def canonical(elem):
    """An element's text content, tags and values only, without the inheritance attributes."""
    parts = [elem.tag, (elem.text or "").strip()]
    for child in elem:
        parts.append(canonical(child))
    return "|".join(parts)


def check_consumer(staging, version):
    """Builds .ci/bom-consumer against the staging folder. Its local repository is fresh; the shared
    one serves third-party artifacts as a read-only tail, seen through links that leave out
    io/dra4j, so dra4j can only come from the staging folder."""
    scratch = Path(tempfile.mkdtemp(prefix="dra4j-consumer-"))
    try:
        work, head, tail = scratch / "project", scratch / "repository", scratch / "tail"
        shutil.copytree(ROOT / ".ci" / "bom-consumer", work)
        shared = Path.home() / ".m2" / "repository"
        link_all_but(shared, tail, {Path("io") / "dra4j"})
        cmd = [
            str(ROOT / "mvnw"), "-B", "-q", "-f", str(work / "pom.xml"),
            f"-Dmaven.repo.local={head}", f"-Dmaven.repo.local.tail={tail}",
            f"-Ddra4j.version={version}", f"-Dstaging.url={staging.resolve().as_uri()}",
            "verify",
        ]
        result = subprocess.run(cmd, capture_output=True, text=True)
        if result.returncode != 0:
            problem("bom-consumer: the build failed:\n" + (result.stdout + result.stderr)[-4000:])
            return
        # What the consumer names, and what the runtime brings along.
        for artifact in ("dra-api", "dra-kube", "dra-cel", "dra-validation", "dra-runtime", "dra-testkit"):
            marker = head / "io" / "dra4j" / artifact / version / "_remote.repositories"
            if not marker.is_file() or "dra4j-staging" not in marker.read_text():
                problem(f"bom-consumer: {artifact} was not resolved from the staging folder")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def link_all_but(source, target, excluded, relative=Path()):
    """Mirrors source into target with symbolic links, leaving out the excluded subpaths."""
    target.mkdir(parents=True, exist_ok=True)
    if not source.is_dir():
        return
    inside = {e.parts[len(relative.parts)] for e in excluded if e.parts[: len(relative.parts)] == relative.parts}
    for entry in source.iterdir():
        sub = relative / entry.name
        if sub in excluded:
            continue
        if entry.name in inside and entry.is_dir():
            link_all_but(entry, target / entry.name, excluded, sub)
        else:
            (target / entry.name).symlink_to(entry)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--staging", default=str(ROOT / "target" / "staging"))
    parser.add_argument("--signed", action="store_true", help="require an .asc beside every file")
    parser.add_argument("--no-consumer", action="store_true", help="skip the bom-consumer build")
    args = parser.parse_args()
    staging = Path(args.staging)
    if not staging.is_dir():
        sys.exit(f"no staging folder at {staging}: run ./mvnw -Prelease deploy first (see README)")

    root = Module(ROOT, None)
    version = text(root.pom, "m:version")
    modules = list(reactor(root))
    published = [m for m in modules if not m.skipped]
    for module in published:
        check_module(staging, module, version, args.signed)
    for module in modules:
        if module.skipped and (staging / "io" / "dra4j" / module.artifact_id).exists():
            problem(f"{module.artifact_id}: is not published but was staged")
    # The BOM lists what a driver depends on: every published jar but the archetype.
    libraries = {m.artifact_id for m in published if m.packaging == "jar" and not m.archetype}
    check_bom(staging, libraries, root.pom, version)
    consumer = not problems and not args.no_consumer
    if consumer:
        check_consumer(staging, version)

    if problems:
        print("staging check failed:\n  " + "\n  ".join(problems), file=sys.stderr)
        sys.exit(1)
    names = ", ".join(m.artifact_id for m in published)
    print(f"staging check: {len(published)} modules complete at {version} ({names})")
    if consumer:
        print("staging check: .ci/bom-consumer imports dra4j-bom and passes its test on the staged jars")


if __name__ == "__main__":
    main()
