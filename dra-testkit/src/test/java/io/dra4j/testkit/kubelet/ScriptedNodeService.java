package io.dra4j.testkit.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.claims.NodeCall;
import io.dra4j.runtime.internal.claims.NodeService;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A NodeService whose answers a test sets: by default every claim gets one device {@code
 * node-1/<claim name>} with CDI id {@code example.com/gpu=<claim name>}, request names {@code
 * gpu/small} (a subrequest) and share id {@code share-<claim name>}.
 */
class ScriptedNodeService implements NodeService {

  @FunctionalInterface
  interface Prepare {
    Map<String, ClaimPrepareResult> apply(List<ClaimRef> claims, NodeCall call) throws Exception;
  }

  @FunctionalInterface
  interface Unprepare {
    Map<String, Optional<String>> apply(List<ClaimRef> claims, NodeCall call) throws Exception;
  }

  final List<List<ClaimRef>> prepareCalls = new CopyOnWriteArrayList<>();
  final List<List<ClaimRef>> unprepareCalls = new CopyOnWriteArrayList<>();
  final List<NodeCall> calls = new CopyOnWriteArrayList<>();
  volatile Prepare prepare = ScriptedNodeService::oneDeviceEach;
  volatile Unprepare unprepare = ScriptedNodeService::allOk;

  static Map<String, ClaimPrepareResult> oneDeviceEach(List<ClaimRef> claims, NodeCall call) {
    Map<String, ClaimPrepareResult> out = new LinkedHashMap<>();
    for (ClaimRef c : claims) {
      out.put(c.uid(), ClaimPrepareResult.ok(List.of(device(c.name()))));
    }
    return out;
  }

  static CheckpointDevice device(String name) {
    return new CheckpointDevice(
        "gpu/small",
        "node-1",
        name,
        Optional.of("share-" + name),
        false,
        List.of("example.com/gpu=" + name),
        Map.of(),
        Optional.empty());
  }

  static Map<String, Optional<String>> allOk(List<ClaimRef> claims, NodeCall call) {
    Map<String, Optional<String>> out = new LinkedHashMap<>();
    claims.forEach(c -> out.put(c.uid(), Optional.empty()));
    return out;
  }

  @Override
  public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    prepareCalls.add(claims);
    calls.add(call);
    return prepare.apply(claims, call);
  }

  @Override
  public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call)
      throws Exception {
    unprepareCalls.add(claims);
    calls.add(call);
    return unprepare.apply(claims, call);
  }
}
