package io.dra4j.testkit.apiserver;

/** A request failure the server answers with a Kubernetes Status object. */
final class ApiError extends Exception {
  private static final long serialVersionUID = 1L;

  final int code;
  final String reason;

  ApiError(int code, String reason, String message) {
    super(message, null, false, false);
    this.code = code;
    this.reason = reason;
  }

  static ApiError badRequest(String message) {
    return new ApiError(400, "BadRequest", message);
  }

  static ApiError notFound(ResourceDef def, String name) {
    return new ApiError(404, "NotFound", def.qualifiedPlural() + " \"" + name + "\" not found");
  }

  static ApiError conflict(ResourceDef def, String name, String why) {
    return new ApiError(
        409,
        "Conflict",
        "Operation cannot be fulfilled on " + def.qualifiedPlural() + " \"" + name + "\": " + why);
  }

  static ApiError invalid(ResourceDef def, String name, String why) {
    return new ApiError(422, "Invalid", def.kind + ".resource \"" + name + "\" is invalid: " + why);
  }
}
