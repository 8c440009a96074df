#!/usr/bin/python3
"""An independent kubelet for dra4j's contract tests: a gRPC client built on C-core (grpcio),
with stubs generated from dra4j's .proto files. It talks to a running KubeletPluginServer over
its real Unix sockets and checks what a kubelet relies on.

Usage: kubelet_peer.py --stubs DIR --registration SOCKET --driver NAME --mode full|nohealth

Prints one JSON line with the checks that passed; exits 1 with a message on the first failure.
"""
import argparse
import json
import os
import sys


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stubs", required=True)
    parser.add_argument("--registration", required=True)
    parser.add_argument("--driver", required=True)
    parser.add_argument("--mode", choices=["full", "nohealth"], required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.stubs)

    import grpc
    import pluginregistration_pb2 as reg
    import pluginregistration_pb2_grpc as reg_grpc
    import dra_v1_pb2 as v1
    import dra_v1_pb2_grpc as v1_grpc
    import dra_v1beta1_pb2 as v1beta1
    import dra_v1beta1_pb2_grpc as v1beta1_grpc
    import dra_health_v1_pb2 as h1
    import dra_health_v1_pb2_grpc as h1_grpc
    import dra_health_v1alpha1_pb2 as h1a
    import dra_health_v1alpha1_pb2_grpc as h1a_grpc

    checks = []

    def check(name, condition, detail=""):
        if not condition:
            print("FAILED %s: %s" % (name, detail), file=sys.stderr)
            sys.exit(1)
        checks.append(name)

    # Registration, as the kubelet's plugin manager does it.
    with grpc.insecure_channel("unix://" + args.registration) as channel:
        info = reg_grpc.RegistrationStub(channel).GetInfo(reg.InfoRequest(), timeout=10)
        check("GetInfo.type", info.type == "DRAPlugin", info.type)
        check("GetInfo.name", info.name == args.driver, info.name)
        check("GetInfo.endpoint absolute", os.path.isabs(info.endpoint), info.endpoint)
        expected = ["v1.DRAPlugin", "v1beta1.DRAPlugin"]
        if args.mode == "full":
            expected += ["v1.DRAResourceHealth", "v1alpha1.DRAResourceHealth"]
        check("GetInfo.supported_versions", list(info.supported_versions) == expected,
              list(info.supported_versions))
        reg_grpc.RegistrationStub(channel).NotifyRegistrationStatus(
            reg.RegistrationStatus(plugin_registered=True), timeout=5)
        check("NotifyRegistrationStatus", True)

    with grpc.insecure_channel("unix://" + info.endpoint) as channel:
        if args.mode == "full":
            full(channel, check, grpc, v1, v1_grpc, v1beta1, v1beta1_grpc, h1, h1_grpc, h1a, h1a_grpc)
        else:
            for name, stub, request in (
                    ("v1", h1_grpc.DRAResourceHealthStub(channel), h1.NodeWatchResourcesRequest()),
                    ("v1alpha1", h1a_grpc.DRAResourceHealthStub(channel),
                     h1a.NodeWatchResourcesRequest())):
                try:
                    next(stub.NodeWatchResources(request, timeout=10))
                    check(name + " health UNIMPLEMENTED", False, "got a message")
                except grpc.RpcError as e:
                    check(name + " health UNIMPLEMENTED",
                          e.code() == grpc.StatusCode.UNIMPLEMENTED, e.code())

    print(json.dumps({"ok": True, "checks": checks}))


def full(channel, check, grpc, v1, v1_grpc, v1beta1, v1beta1_grpc, h1, h1_grpc, h1a, h1a_grpc):
    claims = [("ns", "gpu-a", "uid-a"), ("ns", "gpu-b", "uid-b")]

    for version, pb, stub in (("v1", v1, v1_grpc.DRAPluginStub(channel)),
                              ("v1beta1", v1beta1, v1beta1_grpc.DRAPluginStub(channel))):
        request = pb.NodePrepareResourcesRequest(
            claims=[pb.Claim(namespace=n, name=m, uid=u) for n, m, u in claims])
        response = stub.NodePrepareResources(request, timeout=45)
        check(version + " prepare: an entry per claim", set(response.claims) == {"uid-a", "uid-b"},
              list(response.claims))
        a = response.claims["uid-a"]
        check(version + " prepare: no error", a.error == "", a.error)
        check(version + " prepare: one device", len(a.devices) == 1, len(a.devices))
        d = a.devices[0]
        check(version + " prepare: base request names", list(d.request_names) == ["gpu"],
              list(d.request_names))
        check(version + " prepare: pool and device", (d.pool_name, d.device_name) == ("node-1", "gpu-a"),
              (d.pool_name, d.device_name))
        check(version + " prepare: CDI ids", list(d.cdi_device_ids) == ["example.com/gpu=gpu-a"],
              list(d.cdi_device_ids))
        # Read the device's bytes as v1 to see whether share_id (field 5) was on the wire.
        as_v1 = v1.Device()
        as_v1.ParseFromString(d.SerializeToString())
        if version == "v1":
            check("v1 prepare: share_id", as_v1.HasField("share_id") and as_v1.share_id == "share-gpu-a",
                  as_v1)
        else:
            check("v1beta1 prepare: no share_id on the wire", not as_v1.HasField("share_id"), as_v1)

        unprepared = stub.NodeUnprepareResources(
            pb.NodeUnprepareResourcesRequest(
                claims=[pb.Claim(namespace=n, name=m, uid=u) for n, m, u in claims]), timeout=45)
        check(version + " unprepare: an entry per claim, no errors",
              set(unprepared.claims) == {"uid-a", "uid-b"}
              and all(r.error == "" for r in unprepared.claims.values()), unprepared)

    for version, pb, stub in (("v1", h1, h1_grpc.DRAResourceHealthStub(channel)),
                              ("v1alpha1", h1a, h1a_grpc.DRAResourceHealthStub(channel))):
        stream = stub.NodeWatchResources(pb.NodeWatchResourcesRequest(), timeout=30)
        first = next(stream)
        devices = {(x.device.pool_name, x.device.device_name): x for x in first.devices}
        check(version + " health: full list", set(devices) == {("node-1", "gpu-0"), ("node-1", "gpu-1")},
              list(devices))
        bad = devices[("node-1", "gpu-1")]
        check(version + " health: status", bad.health == pb.UNHEALTHY, bad.health)
        check(version + " health: fields",
              (bad.last_updated_time, bad.health_check_timeout_seconds, bad.message)
              == (1700000001, 45, "XID 79"), bad)
        stream.cancel()


if __name__ == "__main__":
    main()
