package io.dra4j.kube.internal;

/**
 * The {@code reason} the Kubernetes API server gives with an HTTP status in its {@code Status}
 * answers ({@code metav1.StatusReason}, apimachinery v0.37.2 {@code pkg/apis/meta/v1/types.go}),
 * the one table of them in dra4j: the client names a failure that came without a Status body by it,
 * and the test kit's API server answers with it.
 *
 * <p>410 is {@code Expired}: the server sends it for a resourceVersion too old for its watch cache
 * or etcd ({@code errors.NewResourceExpired}, apiserver v0.37.2 {@code
 * pkg/storage/cacher/watch_cache_history.go:237}, {@code pkg/storage/etcd3/errors.go:34}); {@code
 * Gone} comes only from the deprecated {@code errors.NewGone}, which the server no longer uses.
 */
public final class StatusReasons {
  private StatusReasons() {}

  /** The reason for {@code code}; empty ({@code StatusReasonUnknown}) for a code without one. */
  public static String forCode(int code) {
    return switch (code) {
      case 400 -> "BadRequest";
      case 401 -> "Unauthorized";
      case 403 -> "Forbidden";
      case 404 -> "NotFound";
      case 405 -> "MethodNotAllowed";
      case 406 -> "NotAcceptable";
      case 409 -> "Conflict";
      case 410 -> "Expired";
      case 413 -> "RequestEntityTooLarge";
      case 415 -> "UnsupportedMediaType";
      case 422 -> "Invalid";
      case 429 -> "TooManyRequests";
      case 500 -> "InternalError";
      case 503 -> "ServiceUnavailable";
      case 504 -> "Timeout";
      default -> "";
    };
  }
}
