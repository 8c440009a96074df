package io.dra4j.nvidia;

import static org.junit.jupiter.api.Assertions.fail;

import org.junit.jupiter.api.Assumptions;

/**
 * The one place that decides what a test does when an external tool is missing: skip with a visible
 * reason, or fail when {@code DRA4J_REQUIRE_PEERS=1} demands every peer.
 */
public final class Peers {
  private Peers() {}

  public static boolean required() {
    return "1".equals(System.getenv("DRA4J_REQUIRE_PEERS"));
  }

  /** Skips (or fails, when peers are required) unless {@code available}. */
  public static void require(boolean available, String what) {
    if (available) {
      return;
    }
    if (required()) {
      fail(what + " is missing and DRA4J_REQUIRE_PEERS=1");
    }
    System.err.println("WARNING: skipping: " + what + " is missing");
    Assumptions.abort(what + " is missing");
  }
}
