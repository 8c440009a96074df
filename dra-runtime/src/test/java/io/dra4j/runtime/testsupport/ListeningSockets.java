package io.dra4j.runtime.testsupport;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * Where a port listens, as the kernel reports it: the local addresses of the listening TCP sockets
 * in /proc/net/tcp and /proc/net/tcp6 (hex, as the kernel writes them: 127.0.0.1 is {@code
 * 0100007F}, the same through an IPv6 socket {@code 0000000000000000FFFF00000100007F}).
 */
public final class ListeningSockets {
  private ListeningSockets() {}

  /**
   * The local addresses of every listening TCP socket on {@code port} in this network namespace.
   */
  public static Set<String> addresses(int port) throws IOException {
    String portHex = String.format(Locale.ROOT, "%04X", port);
    Set<String> found = new TreeSet<>();
    for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
      Path file = Path.of(table);
      if (!Files.exists(file)) {
        continue; // IPv6 turned off
      }
      for (String line : Files.readAllLines(file)) {
        String[] f = line.trim().split("\\s+");
        // sl local_address rem_address st ...; st 0A is LISTEN.
        if (f.length > 3 && f[3].equals("0A") && f[1].endsWith(":" + portHex)) {
          found.add(f[1].substring(0, f[1].indexOf(':')));
        }
      }
    }
    return found;
  }
}
