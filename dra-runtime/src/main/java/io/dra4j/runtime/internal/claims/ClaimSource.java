package io.dra4j.runtime.internal.claims;

import io.dra4j.kube.KubeClient;
import io.dra4j.kube.KubeException;
import io.dra4j.kube.ResourceClaim;
import java.io.IOException;
import java.util.Objects;

/**
 * Where the prepare pipeline reads ResourceClaims. The default reads them from the API server; a
 * synthetic source serves warm-up runs and tests.
 */
@FunctionalInterface
public interface ClaimSource {

  /**
   * The current ResourceClaim.
   *
   * @throws KubeException with the API server's status (404 when the claim does not exist; status 0
   *     when no answer arrived)
   * @throws IOException when the source cannot be reached at all
   */
  ResourceClaim get(String namespace, String name) throws KubeException, IOException;

  /** Reads claims with {@code client}. */
  static ClaimSource of(KubeClient client) {
    Objects.requireNonNull(client, "client");
    return (namespace, name) -> client.get(ResourceClaim.TYPE, namespace, name);
  }
}
