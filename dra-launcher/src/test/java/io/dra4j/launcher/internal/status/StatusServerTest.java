package io.dra4j.launcher.internal.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.runtime.testsupport.ListeningSockets;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where the status endpoint listens, read back from the kernel's socket tables. */
class StatusServerTest {
  /** 127.0.0.1 in /proc/net/tcp, and as ::ffff:127.0.0.1 (an IPv6 socket) in /proc/net/tcp6. */
  static final Set<String> LOOPBACK_V4 = Set.of("0100007F", "0000000000000000FFFF00000100007F");

  /** 0.0.0.0 and :: (the wildcard of an IPv4 or a dual-stack IPv6 socket). */
  static final Set<String> WILDCARD = Set.of("00000000", "00000000000000000000000000000000");

  private static StatusServer start(InetSocketAddress address) throws IOException {
    return StatusServer.start(
        address,
        () -> true,
        () -> false,
        () -> "{}",
        ex -> {
          byte[] body = "m 1\n".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, body.length);
          try (OutputStream out = ex.getResponseBody()) {
            out.write(body);
          }
        });
  }

  @Test
  void listensOnlyOnTheConfiguredAddress() throws Exception {
    InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
    try (StatusServer server = start(new InetSocketAddress(loopback, 0))) {
      assertThat(ListeningSockets.addresses(server.port())).hasSize(1).isSubsetOf(LOOPBACK_V4);
      HttpResponse<String> healthz =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(healthz.statusCode()).isEqualTo(200);
    }
  }

  @Test
  void listensOnEveryLocalAddressByDefault() throws Exception {
    try (StatusServer server = start(new InetSocketAddress(0))) {
      assertThat(ListeningSockets.addresses(server.port())).hasSize(1).isSubsetOf(WILDCARD);
    }
  }

  @Test
  void anAddressOfNoLocalInterfaceIsRefusedNamingTheFlags() throws Exception {
    // A documentation address (RFC 5737) that no interface of this machine has: a machine may
    // well use one of these networks (this one had 192.0.2.2 on eth0), never all three addresses.
    InetAddress elsewhere = null;
    for (String candidate : new String[] {"203.0.113.1", "198.51.100.1", "192.0.2.1"}) {
      InetAddress a = InetAddress.getByName(candidate);
      if (NetworkInterface.getByInetAddress(a) == null) {
        elsewhere = a;
        break;
      }
    }
    assertThat(elsewhere).isNotNull();
    String shown = elsewhere.getHostAddress();
    InetSocketAddress address = new InetSocketAddress(elsewhere, 8081);
    assertThatThrownBy(() -> start(address).close())
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(
            "the status endpoint cannot listen on "
                + shown
                + ":8081 (--health-address, --health-port): ");
  }
}
