package io.dra4j.kube.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The host rule of a server certificate, case by case as Go's crypto/x509 decides them. */
class ServerIdentityTest {

  @ParameterizedTest(name = "{0} against DNS {1} / IP {2}: {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        // exact DNS names, case and a trailing dot do not matter
        "api.example.test|api.example.test||true",
        "API.Example.Test|api.example.test||true",
        "api.example.test.|api.example.test||true",
        "api.example.test|API.EXAMPLE.TEST.||true",
        "api.example.test|other.example.test,api.example.test||true",
        "api.example.test|example.test||false",
        "api.example.test|||false",
        // a wildcard is one whole leftmost label
        "api.example.test|*.example.test||true",
        "a.b.example.test|*.example.test||false",
        "example.test|*.example.test||false",
        ".example.test|*.example.test||false",
        "api.example.test|a*.example.test||false",
        "api.example.test|*||false",
        "api.example.test|*.||false",
        // IP hosts match IP names only, in any notation of the same address
        "127.0.0.1||127.0.0.1|true",
        "127.0.0.1|127.0.0.1||false",
        "127.0.0.1||127.0.0.2|false",
        "[::1]||0:0:0:0:0:0:0:1|true",
        "::1||0:0:0:0:0:0:0:1|true",
        "[::1]||127.0.0.1|false",
        "10.0.0.1||10.0.0.1,10.96.0.1|true",
        // not an address, so a DNS name that matches nothing (and is never looked up)
        "999.1.1.1||999.1.1.1|false",
        "localhost|localhost|127.0.0.1|true",
        "localhost||127.0.0.1|false",
      })
  void theHostMustBeAmongTheNames(String host, String dns, String ips, boolean expected) {
    assertThat(ServerIdentity.matches(host, list(dns), list(ips))).isEqualTo(expected);
  }

  private static List<String> list(String csv) {
    return csv == null ? List.of() : Arrays.asList(csv.split(","));
  }
}
