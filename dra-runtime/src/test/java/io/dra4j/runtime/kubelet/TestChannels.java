package io.dra4j.runtime.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Plain gRPC clients over Unix sockets, as the kubelet dials them. */
final class TestChannels {
  @SuppressWarnings("deprecation")
  private static final EpollEventLoopGroup GROUP = new EpollEventLoopGroup(1);

  private TestChannels() {}

  static ManagedChannel open(Path socket) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollDomainSocketChannel.class)
        .eventLoopGroup(GROUP)
        .withOption(ChannelOption.SO_KEEPALIVE, null)
        .usePlaintext()
        .build();
  }

  static void close(ManagedChannel channel) throws InterruptedException {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
