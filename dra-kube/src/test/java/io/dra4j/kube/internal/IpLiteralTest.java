package io.dra4j.kube.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IpLiteralTest {
  @Test
  void addressesAreReadAsGoReadsThemNeverLookedUp() throws Exception {
    assertThat(IpLiteral.parse("127.0.0.1"))
        .contains(InetAddress.getByAddress(new byte[] {127, 0, 0, 1}));
    assertThat(IpLiteral.parse("[::1]").orElseThrow().isLoopbackAddress()).isTrue();
    assertThat(IpLiteral.parse("::1").orElseThrow()).isInstanceOf(Inet6Address.class);
    // The JDK's form of a certificate's IPv6 name, and upper case.
    assertThat(IpLiteral.parse("0:0:0:0:0:0:0:1")).isEqualTo(IpLiteral.parse("::1"));
    assertThat(IpLiteral.parse("2001:DB8::5")).isEqualTo(IpLiteral.parse("2001:db8::5"));
    assertThat(IpLiteral.parse("::ffff:10.1.2.3")).isPresent();
    assertThat(IpLiteral.parse("1:2:3:4:5:6:7:8")).isPresent();
    assertThat(IpLiteral.parse("::")).isPresent();
    for (String wrong :
        List.of(
            "",
            "localhost",
            "1.2.3",
            "10.1.2.256",
            "010.1.2.3",
            "1.2.3.4.5",
            "::g",
            "fe80::1%eth0",
            "1:2:3:4:5:6:7:8:9",
            "1::2:3:4:5:6:7:8",
            "1::2::3",
            ":1",
            "1:",
            "12345::",
            "1:2:3:4:5:6:7:1.2.3.4",
            "\u0661.1.1.1")) {
      assertThat(IpLiteral.parse(wrong)).as(wrong).isEmpty();
    }
  }

  @Test
  void theCanonicalFormIsGos() {
    Map<String, String> cases =
        Map.of(
            "2001:0db8:0:0:0:0:0:5", "2001:db8::5",
            "2001:DB8:0:0:1:0:0:5", "2001:db8::1:0:0:5",
            "1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7",
            "0:0:0:0:0:0:0:0", "::",
            "1:0:0:0:0:0:0:0", "1::",
            "::ffff:192.0.2.1", "192.0.2.1",
            "::1.2.3.4", "::102:304",
            "1.2.3.4", "1.2.3.4");
    cases.forEach(
        (in, out) ->
            assertThat(IpLiteral.canonical(IpLiteral.bytes(in, false))).as(in).isEqualTo(out));
  }

  /** apimachinery v0.37.2 pkg/util/validation/ip_test.go TestIsValidInterfaceAddress. */
  @Test
  void interfaceAddressesFollowKubernetesRule() {
    for (String good :
        List.of("1.2.3.4/24", "1.1.1.1/32", "2001:4860:4860::1/48", "::1/128", "192.0.2.5/0")) {
      assertThat(IpLiteral.interfaceAddressProblem(good)).as(good).isEmpty();
    }
    for (String bad :
        List.of(
            "",
            "aaaaaaa",
            "1.2.3.4",
            "192.168.0.1/healthz",
            "192.168.0.1/0/99",
            "192.168.0.0/-16",
            "192.168.0.0/+16",
            "192.0.2.5/33",
            "2001:db8::5/129",
            "example.com/24",
            "/24",
            "10.0.0.1/")) {
      assertThat(IpLiteral.interfaceAddressProblem(bad))
          .as(bad)
          .contains("must be a valid address in CIDR form (e.g. 192.0.2.5/24 or 2001:db8::5/64)");
    }
    Map<String, String> nonCanonical =
        Map.of(
            "2001:0:0:0::0BCD/64", "2001::bcd/64",
            "1.1.01.002/24", "1.1.1.2/24",
            "::ffff:1.1.1.1/24", "1.1.1.1/24",
            "::ffff:1.1.1.1/120", "1.1.1.1/24",
            "192.168.0.5/016", "192.168.0.5/16",
            "2001:0db8:0:0:0:0:0:5/64", "2001:db8::5/64");
    nonCanonical.forEach(
        (in, canonical) ->
            assertThat(IpLiteral.interfaceAddressProblem(in))
                .as(in)
                .contains("must be in canonical form (\"" + canonical + "\")"));
  }
}
