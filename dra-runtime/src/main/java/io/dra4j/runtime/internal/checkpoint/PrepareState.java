package io.dra4j.runtime.internal.checkpoint;

import java.util.Optional;

/** How far a claim's prepare got, as recorded in its checkpoint. */
public enum PrepareState {
  /**
   * Written before the provider is called: if the driver stops now, the claim is found at startup
   * and its prepare is rolled back or completed, so nothing the provider did is forgotten.
   */
  PREPARE_STARTED("PrepareStarted"),
  /** Written once the provider, the CDI spec and the claim status are done. */
  PREPARE_COMPLETED("PrepareCompleted");

  private final String jsonName;

  PrepareState(String jsonName) {
    this.jsonName = jsonName;
  }

  /** The value in the checkpoint file. */
  public String jsonName() {
    return jsonName;
  }

  static Optional<PrepareState> fromJsonName(String name) {
    for (PrepareState s : values()) {
      if (s.jsonName.equals(name)) {
        return Optional.of(s);
      }
    }
    return Optional.empty();
  }
}
