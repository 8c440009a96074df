package io.dra4j.runtime.internal.kubelet;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import java.nio.file.Path;

/**
 * gRPC client channels over Unix sockets, dialled the way the kubelet does ({@code unix:<path>}):
 * for the test kit's kubelet simulator and the driver's own warm-up.
 */
public final class UdsChannels {

  /** See KubeletPluginServer: silences the SO_KEEPALIVE warning when Netty logs through JUL. */
  private static final java.util.logging.Logger NETTY_BOOTSTRAP_LOGGER =
      java.util.logging.Logger.getLogger("io.grpc.netty.shaded.io.netty.bootstrap");

  static {
    NETTY_BOOTSTRAP_LOGGER.setLevel(java.util.logging.Level.SEVERE);
  }

  private UdsChannels() {}

  /** A plaintext channel to {@code socket} on {@code group}'s event loops. */
  public static ManagedChannel open(Path socket, EventLoopGroup group) {
    return NettyChannelBuilder.forAddress(new DomainSocketAddress(socket.toString()))
        .channelType(EpollDomainSocketChannel.class)
        .eventLoopGroup(group)
        // gRPC always sets SO_KEEPALIVE, which Unix sockets lack; null removes it again.
        .withOption(ChannelOption.SO_KEEPALIVE, null)
        .usePlaintext()
        .build();
  }
}
