#!/usr/bin/env python3
"""Sizes of the published modules, as the issues count them (the core must stay small).

For each published module: the lines of main code, the public top-level types its
module-info.java exports to everyone (every public type where there is no descriptor), and the
classes over 600 lines.

A line counts when it is neither blank nor a comment: lines starting with // and lines inside a
/* ... */ block that starts a line do not count; imports and package lines do.
module-info.java and package-info.java are left out.

Usage: python3 .ci/module-sizes.py [REPOSITORY]   (default: this checkout)
"""
import os
import re
import sys

MODULES = ["dra-api", "dra-kube", "dra-cel", "dra-validation", "dra-runtime", "dra-launcher",
           "dra-doctor", "dra-dev", "dra-testkit", "spi-fake", "spi-numa", "spi-nvidia"]
LARGE = 600
PUBLIC_TYPE = re.compile(
    r"^public\s+(?:(?:final|abstract|sealed|non-sealed)\s+)*(?:class|interface|record|enum|@interface)\s",
    re.M)
EXPORT_TO_ALL = re.compile(r"^\s*exports\s+([\w.]+)\s*;", re.M)


def code_lines(path):
    count, in_block = 0, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            s = line.strip()
            if in_block:
                if "*/" not in s:
                    continue
                in_block, s = False, s.split("*/", 1)[1].strip()
            if s.startswith("/*"):
                in_block = "*/" not in s
                continue
            if s and not s.startswith("//"):
                count += 1
    return count


def module_sizes(src):
    # Without a descriptor (an older checkout) every package is API.
    exported = None
    if os.path.isfile(os.path.join(src, "module-info.java")):
        with open(os.path.join(src, "module-info.java"), encoding="utf-8") as f:
            exported = set(EXPORT_TO_ALL.findall(f.read()))
    lines, api_types, large = 0, 0, []
    for folder, _, files in os.walk(src):
        package = os.path.relpath(folder, src).replace(os.sep, ".")
        for name in files:
            if not name.endswith(".java") or name in ("module-info.java", "package-info.java"):
                continue
            path = os.path.join(folder, name)
            n = code_lines(path)
            lines += n
            if n > LARGE:
                large.append(f"{name[:-5]} {n}")
            with open(path, encoding="utf-8") as f:
                if (exported is None or package in exported) and PUBLIC_TYPE.search(f.read()):
                    api_types += 1
    return lines, api_types, sorted(large)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    print(f"{'module':16} {'lines':>7} {'API types':>9}  classes over {LARGE} lines")
    for module in MODULES:
        src = os.path.join(root, module, "src", "main", "java")
        if os.path.isdir(src):
            lines, api_types, large = module_sizes(src)
            print(f"{module:16} {lines:7,} {api_types:9}  {', '.join(large) or '-'}")


if __name__ == "__main__":
    main()
