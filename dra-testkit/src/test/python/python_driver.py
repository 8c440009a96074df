#!/usr/bin/python3
"""A DRA driver not written in Java, for dra4j's KubeletSimulator tests: a grpcio (C-core) server
with stubs generated from dra4j's .proto files. It serves the registration service and
v1.DRAPlugin on two Unix sockets, like any kubelet plugin, and hands out one device per claim.

Usage: python_driver.py --stubs DIR --registry DIR --plugin-dir DIR --driver NAME

Prints "SERVING" once both sockets listen, then one line per call it gets; stops on stdin EOF.
"""
import argparse
import os
import sys
from concurrent import futures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--stubs", required=True)
    parser.add_argument("--registry", required=True)
    parser.add_argument("--plugin-dir", required=True)
    parser.add_argument("--driver", required=True)
    args = parser.parse_args()
    sys.path.insert(0, args.stubs)

    import grpc
    import pluginregistration_pb2 as reg
    import pluginregistration_pb2_grpc as reg_grpc
    import dra_v1_pb2 as v1
    import dra_v1_pb2_grpc as v1_grpc

    def say(line):
        print(line, flush=True)

    dra_socket = os.path.join(args.plugin_dir, "dra.sock")
    reg_socket = os.path.join(args.registry, args.driver + "-reg.sock")

    class Registration(reg_grpc.RegistrationServicer):
        def GetInfo(self, request, context):
            say("GetInfo")
            return reg.PluginInfo(type="DRAPlugin", name=args.driver, endpoint=dra_socket,
                                  supported_versions=["v1.DRAPlugin"])

        def NotifyRegistrationStatus(self, request, context):
            say("NotifyRegistrationStatus registered=%s error=%s"
                % (request.plugin_registered, request.error))
            return reg.RegistrationStatusResponse()

    class Plugin(v1_grpc.DRAPluginServicer):
        def NodePrepareResources(self, request, context):
            response = v1.NodePrepareResourcesResponse()
            for claim in request.claims:
                say("NodePrepareResources %s/%s %s" % (claim.namespace, claim.name, claim.uid))
                response.claims[claim.uid].devices.add(
                    request_names=["gpu"], pool_name="py-node", device_name="py-gpu-0",
                    cdi_device_ids=["k8s.%s/claim=%s-py-gpu-0" % (args.driver, claim.uid)])
            return response

        def NodeUnprepareResources(self, request, context):
            response = v1.NodeUnprepareResourcesResponse()
            for claim in request.claims:
                say("NodeUnprepareResources %s" % claim.uid)
                response.claims[claim.uid].error = ""
            return response

    os.makedirs(args.plugin_dir, exist_ok=True)
    dra = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    v1_grpc.add_DRAPluginServicer_to_server(Plugin(), dra)
    dra.add_insecure_port("unix://" + dra_socket)
    dra.start()
    # The service socket listens before the registration socket appears, as the kubelet expects.
    registration = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    reg_grpc.add_RegistrationServicer_to_server(Registration(), registration)
    registration.add_insecure_port("unix://" + reg_socket)
    registration.start()
    say("SERVING")
    sys.stdin.read()
    registration.stop(0)
    os.remove(reg_socket)
    dra.stop(0)


if __name__ == "__main__":
    main()
