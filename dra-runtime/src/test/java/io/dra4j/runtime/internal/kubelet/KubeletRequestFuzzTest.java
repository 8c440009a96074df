package io.dra4j.runtime.internal.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.dra4j.api.claim.ClaimRef;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.claims.NodeCall;
import io.dra4j.runtime.internal.claims.NodeService;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;

/**
 * What the kubelet sends: any bytes as a NodePrepareResources or NodeUnprepareResources request of
 * either version, over the real Unix socket to the real server. The server answers with a result
 * per claim, or refuses the request with INVALID_ARGUMENT (or INTERNAL for bytes that are no
 * protobuf); it never fails with UNKNOWN (an exception that escaped) and never hangs.
 */
class KubeletRequestFuzzTest {
  private static final Set<Status.Code> ANSWERS =
      Set.of(Status.Code.OK, Status.Code.INVALID_ARGUMENT, Status.Code.INTERNAL);
  private static final List<String> METHODS =
      List.of(
          "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
          "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources",
          "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodePrepareResources",
          "k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/NodeUnprepareResources");

  private static Path root;
  private static KubeletPluginServer server;
  private static ManagedChannel channel;

  /** Answers every claim: prepared with no device, or (for odd UIDs) an error. */
  static final class EchoService implements NodeService {
    @Override
    public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call) {
      Map<String, ClaimPrepareResult> out = new LinkedHashMap<>();
      for (ClaimRef c : claims) {
        out.put(
            c.uid(),
            c.uid().length() % 2 == 0
                ? ClaimPrepareResult.ok(List.of())
                : ClaimPrepareResult.failed("claim " + c + ": no"));
      }
      return out;
    }

    @Override
    public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call) {
      Map<String, Optional<String>> out = new LinkedHashMap<>();
      claims.forEach(c -> out.put(c.uid(), Optional.empty()));
      return out;
    }
  }

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
          return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  @AfterAll
  static void tearDown() throws Exception {
    if (channel != null) {
      TestChannels.close(channel);
      server.close();
      AtomicFiles.deleteTree(root);
    }
  }

  private static void start() throws Exception {
    root = Files.createTempDirectory("fuzz-kubelet");
    server =
        KubeletPluginServer.builder()
            .driverName("gpu.example.com")
            .registrarDirectory(Files.createDirectories(root.resolve("registry")))
            .pluginDataDirectory(root.resolve("plugin"))
            .nodeService(new EchoService())
            .start();
    channel = TestChannels.open(server.draSocket());
  }

  @FuzzTest
  void request(FuzzedDataProvider data) throws Exception {
    if (server == null) {
      start();
    }
    String method = data.pickValue(METHODS);
    byte[] body = data.consumeRemainingAsBytes();
    MethodDescriptor<byte[], byte[]> descriptor =
        MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.UNARY)
            .setFullMethodName(method)
            .setRequestMarshaller(BYTES)
            .setResponseMarshaller(BYTES)
            .build();
    Status.Code code;
    try {
      ClientCalls.blockingUnaryCall(
          channel, descriptor, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), body);
      code = Status.Code.OK;
    } catch (StatusRuntimeException e) {
      code = e.getStatus().getCode();
      assertThat(code).as("%s: %s", method, e.getStatus()).isIn(ANSWERS);
    }
    assertThat(code).isIn(ANSWERS);
  }
}
