package io.dra4j.benchmarks.kubelet;

import io.dra4j.api.claim.ClaimRef;
import io.dra4j.proto.dra.v1.Claim;
import io.dra4j.proto.dra.v1.DRAPluginGrpc;
import io.dra4j.proto.dra.v1.NodePrepareResourcesRequest;
import io.dra4j.proto.dra.v1.NodePrepareResourcesResponse;
import io.dra4j.runtime.files.AtomicFiles;
import io.dra4j.runtime.internal.checkpoint.CheckpointDevice;
import io.dra4j.runtime.internal.claims.ClaimPrepareResult;
import io.dra4j.runtime.internal.claims.NodeCall;
import io.dra4j.runtime.internal.claims.NodeService;
import io.dra4j.runtime.internal.kubelet.KubeletPluginServer;
import io.dra4j.runtime.internal.kubelet.UdsChannels;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the kubelet contract layer costs per call: a no-op {@code NodePrepareResources} through
 * {@link KubeletPluginServer} against a bare gRPC unary echo of about the same size, both over a
 * Unix socket in the same JVM, one blocking caller, interleaved rounds.
 *
 * <p>Target: the contract layer adds at most 25 % to the bare round trip (median).
 *
 * <p>Arguments (all optional): {@code --warmup N} calls per kind (default 30000), {@code --calls N}
 * per kind and round (default 30000), {@code --rounds R} (default 3).
 */
public final class PrepareRoundTripBench {

  private static final int PAYLOAD_BYTES = 100;

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

  private static final MethodDescriptor<byte[], byte[]> ECHO =
      MethodDescriptor.<byte[], byte[]>newBuilder()
          .setType(MethodDescriptor.MethodType.UNARY)
          .setFullMethodName("bench.Echo/Echo")
          .setRequestMarshaller(BYTES)
          .setResponseMarshaller(BYTES)
          .build();

  private PrepareRoundTripBench() {}

  public static void main(String[] args) throws Exception {
    int warmup = intArg(args, "--warmup", 30_000);
    int calls = intArg(args, "--calls", 30_000);
    int rounds = intArg(args, "--rounds", 3);
    Path dir = Files.createTempDirectory("dra4j-bench");
    EventLoopGroup clientGroup =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("bench-client", true), EpollIoHandler.newFactory());
    // The bare server runs like KubeletPluginServer: one boss thread, two workers, gRPC's default
    // executor for handlers.
    EventLoopGroup boss =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("bench-boss", true), EpollIoHandler.newFactory());
    EventLoopGroup workers =
        new MultiThreadIoEventLoopGroup(
            2, new DefaultThreadFactory("bench-worker", true), EpollIoHandler.newFactory());
    Path echoSocket = dir.resolve("echo.sock");
    Server echo =
        NettyServerBuilder.forAddress(new DomainSocketAddress(echoSocket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(boss)
            .workerEventLoopGroup(workers)
            .withChildOption(ChannelOption.SO_KEEPALIVE, null)
            .addService(
                ServerServiceDefinition.builder("bench.Echo")
                    .addMethod(
                        ECHO,
                        ServerCalls.asyncUnaryCall(
                            (request, response) -> {
                              response.onNext(request);
                              response.onCompleted();
                            }))
                    .build())
            .build()
            .start();
    NodeService noop =
        new NodeService() {
          @Override
          public Map<String, ClaimPrepareResult> prepare(List<ClaimRef> claims, NodeCall call) {
            ClaimRef c = claims.get(0);
            return Map.of(
                c.uid(),
                ClaimPrepareResult.ok(
                    List.of(
                        new CheckpointDevice(
                            "gpu",
                            "node-1",
                            "gpu-0",
                            Optional.empty(),
                            false,
                            List.of("example.com/gpu=gpu-0"),
                            Map.of(),
                            Optional.empty()))));
          }

          @Override
          public Map<String, Optional<String>> unprepare(List<ClaimRef> claims, NodeCall call) {
            return Map.of(claims.get(0).uid(), Optional.empty());
          }
        };
    KubeletPluginServer plugin =
        KubeletPluginServer.builder()
            .driverName("bench.example.com")
            .registrarDirectory(dir.resolve("registry"))
            .pluginDataDirectory(dir.resolve("plugin"))
            .nodeService(noop)
            .start();

    ManagedChannel echoChannel = UdsChannels.open(echoSocket, clientGroup);
    ManagedChannel pluginChannel = UdsChannels.open(plugin.draSocket(), clientGroup);
    byte[] payload = new byte[PAYLOAD_BYTES];
    Arrays.fill(payload, (byte) 'x');
    NodePrepareResourcesRequest request =
        NodePrepareResourcesRequest.newBuilder()
            .addClaims(
                Claim.newBuilder()
                    .setNamespace("default")
                    .setName("bench-claim")
                    .setUid("0f3a5c7e-1b2d-4e6f-8a9b-0c1d2e3f4a5b"))
            .build();
    DRAPluginGrpc.DRAPluginBlockingStub stub = DRAPluginGrpc.newBlockingStub(pluginChannel);
    NodePrepareResourcesResponse sample = stub.nodePrepareResources(request);
    Supplier<Object> bare =
        () -> ClientCalls.blockingUnaryCall(echoChannel, ECHO, CallOptions.DEFAULT, payload);
    Supplier<Object> contract = () -> stub.nodePrepareResources(request);

    System.out.printf(
        "JDK %s, %d CPUs; bare echo %d B each way; NodePrepareResources %d B in, %d B out%n",
        System.getProperty("java.version"),
        Runtime.getRuntime().availableProcessors(),
        PAYLOAD_BYTES,
        request.getSerializedSize(),
        sample.getSerializedSize());
    for (int i = 0; i < warmup; i += 1000) {
      time(bare, 1000);
      time(contract, 1000);
    }
    long[] bareAll = new long[0];
    long[] contractAll = new long[0];
    for (int r = 1; r <= rounds; r++) {
      // Alternate which kind goes first, so drift in the machine's load hits both alike.
      long[] b;
      long[] c;
      if (r % 2 == 1) {
        b = time(bare, calls);
        c = time(contract, calls);
      } else {
        c = time(contract, calls);
        b = time(bare, calls);
      }
      report("round " + r + " bare    ", b);
      report("round " + r + " contract", c);
      bareAll = concat(bareAll, b);
      contractAll = concat(contractAll, c);
    }
    System.out.println("all rounds:");
    report("bare echo                ", bareAll);
    report("NodePrepareResources     ", contractAll);
    double medianRatio = (double) percentile(contractAll, 50) / percentile(bareAll, 50);
    double p99Ratio = (double) percentile(contractAll, 99) / percentile(bareAll, 99);
    System.out.printf(
        "ratio contract/bare: median %.2f, p99 %.2f (target: median <= 1.25) -> %s%n",
        medianRatio, p99Ratio, medianRatio <= 1.25 ? "MET" : "MISSED");

    echoChannel.shutdownNow();
    pluginChannel.shutdownNow();
    plugin.close();
    echo.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    workers.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    boss.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    AtomicFiles.deleteTree(dir);
  }

  private static long[] time(Supplier<Object> call, int n) {
    long[] nanos = new long[n];
    for (int i = 0; i < n; i++) {
      long start = System.nanoTime();
      call.get();
      nanos[i] = System.nanoTime() - start;
    }
    return nanos;
  }

  private static void report(String label, long[] nanos) {
    long total = 0;
    for (long n : nanos) {
      total += n;
    }
    System.out.printf(
        "%s  n=%d  median %6.1f µs  p99 %7.1f µs  mean %6.1f µs  %,.0f calls/s%n",
        label,
        nanos.length,
        percentile(nanos, 50) / 1000.0,
        percentile(nanos, 99) / 1000.0,
        total / 1000.0 / nanos.length,
        nanos.length / (total / 1e9));
  }

  private static long percentile(long[] nanos, double p) {
    long[] sorted = nanos.clone();
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static long[] concat(long[] a, long[] b) {
    long[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static int intArg(String[] args, String name, int fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return Integer.parseInt(args[i + 1]);
      }
    }
    return fallback;
  }
}
