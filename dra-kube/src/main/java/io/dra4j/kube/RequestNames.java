package io.dra4j.kube;

import java.util.Collection;
import java.util.Optional;

/**
 * How a claim names its requests: {@code gpu} for a request, {@code gpu/small} for the subrequest
 * {@code small} of the request {@code gpu} that {@code firstAvailable} picked. The one reading of
 * such a name in dra4j, as k8s.io/dynamic-resource-allocation v0.37.2 reads it ({@code
 * resourceclaim/resourceclaim.go:245-289}: {@code BaseRequestRef}, {@code CreateSubRequestRef},
 * {@code isMatch}).
 */
public final class RequestNames {
  private RequestNames() {}

  /** The request of a request name: {@code gpu} for {@code gpu/small} and for {@code gpu}. */
  public static String base(String requestName) {
    int slash = requestName.indexOf('/');
    return slash < 0 ? requestName : requestName.substring(0, slash);
  }

  /**
   * The subrequest of a request name: {@code small} for {@code gpu/small}, none for {@code gpu}.
   */
  public static Optional<String> subrequest(String requestName) {
    int slash = requestName.indexOf('/');
    return slash < 0 ? Optional.empty() : Optional.of(requestName.substring(slash + 1));
  }

  /** The name of a request, or of one of its subrequests: {@code gpu}, {@code gpu/small}. */
  public static String of(String request, Optional<String> subrequest) {
    return subrequest.map(s -> request + "/" + s).orElse(request);
  }

  /**
   * Whether a config or constraint that lists {@code requests} applies to the device allocated for
   * {@code requestName}: it lists none (all requests), the name itself, or its request (a config
   * for {@code gpu} applies to whichever subrequest of it was allocated).
   */
  public static boolean matches(Collection<String> requests, String requestName) {
    return requests.isEmpty()
        || requests.contains(requestName)
        || requests.contains(base(requestName));
  }
}
