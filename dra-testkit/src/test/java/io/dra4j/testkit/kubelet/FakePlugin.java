package io.dra4j.testkit.kubelet;

import io.dra4j.proto.pluginregistration.InfoRequest;
import io.dra4j.proto.pluginregistration.PluginInfo;
import io.dra4j.proto.pluginregistration.RegistrationGrpc;
import io.dra4j.proto.pluginregistration.RegistrationStatus;
import io.dra4j.proto.pluginregistration.RegistrationStatusResponse;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.ChannelOption;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A registration socket that is not a dra4j server: answers GetInfo with whatever a test wants and
 * records the kubelet's notifications. Exercises the simulator on its own.
 */
final class FakePlugin implements AutoCloseable {

  final List<RegistrationStatus> notifications = new CopyOnWriteArrayList<>();
  private final Server server;

  FakePlugin(Path socket, PluginInfo info) throws IOException {
    Files.createDirectories(socket.getParent());
    server =
        NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
            .channelType(EpollServerDomainSocketChannel.class)
            .bossEventLoopGroup(PluginRegistrationTest.group())
            .workerEventLoopGroup(PluginRegistrationTest.group())
            .withChildOption(ChannelOption.SO_KEEPALIVE, null)
            .addService(
                new RegistrationGrpc.RegistrationImplBase() {
                  @Override
                  public void getInfo(InfoRequest request, StreamObserver<PluginInfo> out) {
                    out.onNext(info);
                    out.onCompleted();
                  }

                  @Override
                  public void notifyRegistrationStatus(
                      RegistrationStatus request, StreamObserver<RegistrationStatusResponse> out) {
                    notifications.add(request);
                    out.onNext(RegistrationStatusResponse.getDefaultInstance());
                    out.onCompleted();
                  }
                })
            .build()
            .start();
  }

  static PluginInfo info(String type, String name, String endpoint, String... versions) {
    return PluginInfo.newBuilder()
        .setType(type)
        .setName(name)
        .setEndpoint(endpoint)
        .addAllSupportedVersions(List.of(versions))
        .build();
  }

  @Override
  public void close() {
    try {
      server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
