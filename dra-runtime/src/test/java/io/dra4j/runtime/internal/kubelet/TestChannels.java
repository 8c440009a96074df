package io.dra4j.runtime.internal.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Plain gRPC clients over Unix sockets, as the kubelet dials them. */
final class TestChannels {
  @SuppressWarnings("deprecation")
  private static final EpollEventLoopGroup GROUP = new EpollEventLoopGroup(1);

  private TestChannels() {}

  static ManagedChannel open(Path socket) {
    return UdsChannels.open(socket, GROUP);
  }

  static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
