package io.dra4j.runtime.internal.claims;

import static org.assertj.core.api.Assertions.assertThat;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.claim.AllocatedDevice;
import io.dra4j.api.claim.ClaimAllocation;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.api.claim.PrepareResult;
import io.dra4j.api.claim.PreparedClaim;
import io.dra4j.api.claim.PreparedDevice;
import io.dra4j.api.provider.DeviceProvider;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.ProviderContext;
import io.dra4j.kube.AllocationResult;
import io.dra4j.kube.DeviceAllocationResult;
import io.dra4j.kube.DeviceRequestAllocationResult;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ObjectMeta;
import io.dra4j.kube.ResourceClaim;
import io.dra4j.kube.ResourceClaimStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rolling update: two pipelines (an old and a new driver process) share the plugin data and CDI
 * directories and the serialization lock file. Each must see the other's prepares in its overlap
 * guard, in serialized and in parallel mode.
 */
class TwoProcessesTest {

  static final String DRIVER = "gpu.example.com";
  @TempDir Path tmp;
  final Map<String, ResourceClaim> claims = new HashMap<>();

  static final class Provider implements DeviceProvider {
    final boolean threadSafe;

    Provider(boolean threadSafe) {
      this.threadSafe = threadSafe;
    }

    @Override
    public Inventory discover(ProviderContext context) {
      throw new UnsupportedOperationException();
    }

    @Override
    public PrepareResult prepare(ClaimAllocation a) {
      List<PreparedDevice> out = new ArrayList<>();
      for (AllocatedDevice d : a.devices()) {
        out.add(PreparedDevice.of(d, ContainerEdits.builder().env("D", d.device()).build()));
      }
      return PrepareResult.of(out);
    }

    @Override
    public void unprepare(PreparedClaim c) {}

    @Override
    public boolean threadSafe() {
      return threadSafe;
    }
  }

  ClaimRef claim(String name, String device) {
    String uid = "00000000-0000-4000-8000-00000000000" + claims.size();
    claims.put(
        name,
        ResourceClaim.of(
                new ObjectMeta(
                    name,
                    "",
                    "ns",
                    uid,
                    "1",
                    0,
                    "",
                    Optional.empty(),
                    null,
                    null,
                    null,
                    null,
                    null),
                null)
            .withStatus(
                new ResourceClaimStatus(
                    Optional.of(
                        AllocationResult.of(
                            DeviceAllocationResult.of(
                                List.of(
                                    DeviceRequestAllocationResult.of("gpu", DRIVER, "p", device)),
                                List.of()),
                            null)),
                    null,
                    null,
                    null)));
    return ClaimRef.of("ns", name, uid);
  }

  /** A pipeline of one driver process; with a pod UID, serialized through the lock file. */
  ClaimPreparer preparer(boolean threadSafe, Optional<String> podUid) throws Exception {
    Files.writeString(tmp.resolve("boot_id"), "b1\n");
    Provider provider = new Provider(threadSafe);
    return ClaimPreparer.builder()
        .driverName(DRIVER)
        .provider(provider)
        .serializer(ClaimSerializer.forDriver(provider, tmp.resolve("plugin"), podUid))
        .claimSource(
            (ns, name) -> {
              ResourceClaim c = claims.get(name);
              if (c == null) {
                throw new KubeException(404, "NotFound", "not found");
              }
              return c;
            })
        .pluginDataDirectory(tmp.resolve("plugin"))
        .cdiDirectory(tmp.resolve("cdi"))
        .devRoot(tmp.resolve("dev"))
        .bootIdFile(tmp.resolve("boot_id"))
        .build();
  }

  static NodeCall call() {
    return new NodeCall() {
      @Override
      public long requestId() {
        return 1;
      }

      @Override
      public Optional<Instant> deadline() {
        return Optional.empty();
      }

      @Override
      public boolean isCancelled() {
        return false;
      }

      @Override
      public void onCancel(Runnable hook) {}
    };
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void eachProcessSeesTheOthersPrepares(boolean threadSafe) throws Exception {
    ClaimRef a = claim("a", "gpu-0");
    ClaimRef b = claim("b", "gpu-0");
    ClaimPreparer oldOne = preparer(threadSafe, Optional.of("old-pod"));
    ClaimPreparer newOne = preparer(threadSafe, Optional.of("new-pod"));
    oldOne.recover();
    newOne.recover(); // before the old one prepares anything
    Map<String, ClaimPrepareResult> r1 = oldOne.prepare(List.of(a), call());
    assertThat(r1.get(a.uid()).isOk()).isTrue();

    Map<String, ClaimPrepareResult> r2 = newOne.prepare(List.of(b), call());
    assertThat(r2.get(b.uid()).error())
        .hasValueSatisfying(e -> assertThat(e).contains("is already prepared for claim " + a));

    // The new process unprepares a (the kubelet may ask either); the old one then lets b in.
    assertThat(newOne.unprepare(List.of(a), call()).get(a.uid())).isEmpty();
    assertThat(oldOne.prepare(List.of(b), call()).get(b.uid()).isOk()).isTrue();
    assertThat(newOne.prepare(List.of(a), call()).get(a.uid()).error()).isPresent();
  }

  @Test
  void aStartingProcessLeavesTheOthersWriteInProgressAlone() throws Exception {
    ClaimPreparer oldOne = preparer(false, Optional.of("old-pod"));
    oldOne.recover();
    // The old process is writing a record: its temporary file exists (and it holds the lock).
    Path inProgress =
        Files.writeString(
            tmp.resolve("plugin/checkpoints/.00000000-0000-4000-8000-0000000000aa.json.tmp"), "{");
    ClaimPreparer newOne = preparer(false, Optional.of("new-pod"));
    assertThat(inProgress).exists();
    // Its recovery waits for the lock; with nobody holding it, the file is a crash's leftover.
    newOne.recover();
    assertThat(inProgress).doesNotExist();
  }

  @Test
  void unknownClaimNotFoundIsPerClaim() throws Exception {
    ClaimPreparer p = preparer(false, Optional.empty());
    p.recover();
    ClaimRef ghost = ClaimRef.of("ns", "ghost", "00000000-0000-4000-8000-0000000000ff");
    assertThat(p.prepare(List.of(ghost), call()).get(ghost.uid()).error().get())
        .contains("ns/ghost")
        .contains("not found");
  }
}
