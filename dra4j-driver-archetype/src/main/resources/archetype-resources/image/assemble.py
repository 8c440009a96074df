#!/usr/bin/env python3
"""Writes a container image as a docker-archive tar (what `podman load` and `docker load` read)
from layer tars, without a container engine: manifest.json, the image config, one folder per
layer. Layers are stored uncompressed; their sha256 is the diff_id.

  assemble.py --out IMAGE.tar --tag NAME:TAG --layer BASE.tar --layer APP.tar \
      --entrypoint=java --entrypoint=-jar --entrypoint=/app/x.jar --cmd=run \
      --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --workdir /app
"""

import argparse
import hashlib
import io
import json
import os
import tarfile


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def add_bytes(tar, name, data, mtime):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = mtime
    tar.addfile(info, io.BytesIO(data))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", required=True)
    p.add_argument("--tag", required=True)
    p.add_argument("--layer", action="append", required=True, help="a layer tar, base first")
    p.add_argument("--entrypoint", action="append", default=[])
    p.add_argument("--cmd", action="append", default=[])
    p.add_argument("--env", action="append", default=[])
    p.add_argument("--workdir", default="/")
    p.add_argument("--label", action="append", default=[], help="KEY=VALUE")
    p.add_argument("--created", default="1970-01-01T00:00:01Z", help="reproducible by default")
    args = p.parse_args()

    digests = [sha256_file(layer) for layer in args.layer]
    config = {
        "architecture": {"x86_64": "amd64", "aarch64": "arm64"}.get(os.uname().machine, os.uname().machine),
        "os": "linux",
        "created": args.created,
        "config": {
            "Env": args.env,
            "Entrypoint": args.entrypoint,
            "Cmd": args.cmd,
            "WorkingDir": args.workdir,
            "Labels": dict(l.split("=", 1) for l in args.label),
        },
        "rootfs": {"type": "layers", "diff_ids": ["sha256:" + d for d in digests]},
        "history": [{"created": args.created, "created_by": os.path.basename(l)} for l in args.layer],
    }
    config_bytes = json.dumps(config, sort_keys=True, separators=(",", ":")).encode()
    config_name = hashlib.sha256(config_bytes).hexdigest() + ".json"
    manifest = [
        {"Config": config_name, "RepoTags": [args.tag], "Layers": [d + "/layer.tar" for d in digests]}
    ]
    tmp = args.out + ".tmp"
    with tarfile.open(tmp, "w", format=tarfile.PAX_FORMAT) as tar:
        for layer, digest in zip(args.layer, digests):
            info = tar.gettarinfo(layer, arcname=digest + "/layer.tar")
            info.mtime, info.uid, info.gid, info.uname, info.gname = 1, 0, 0, "", ""
            with open(layer, "rb") as f:
                tar.addfile(info, f)
        add_bytes(tar, config_name, config_bytes, 1)
        add_bytes(tar, "manifest.json", json.dumps(manifest).encode(), 1)
    os.replace(tmp, args.out)
    print(f"{args.out}: {args.tag}, {len(digests)} layers, config {config_name[:12]}")


if __name__ == "__main__":
    main()
