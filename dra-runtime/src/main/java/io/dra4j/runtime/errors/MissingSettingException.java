package io.dra4j.runtime.errors;

/**
 * A builder of the runtime was asked to build without a setting it requires. Every builder throws
 * this one type, with the message {@code "<what is built>: <setting> is required"}. An {@link
 * IllegalArgumentException}, like every other rejected setting.
 */
public final class MissingSettingException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String setting;

  /**
   * @param built what the builder builds, e.g. {@code DraDriver}
   * @param setting the setting's name as its setter spells it, e.g. {@code nodeName}
   */
  public MissingSettingException(String built, String setting) {
    super(built + ": " + setting + " is required");
    this.setting = setting;
  }

  /** The missing setting's name, as its setter spells it. */
  public String setting() {
    return setting;
  }

  /**
   * Throws for {@code value} when it is null or a blank string.
   *
   * @return {@code value}
   */
  public static <T> T require(T value, String built, String setting) {
    if (value == null || (value instanceof String s && s.isBlank())) {
      throw new MissingSettingException(built, setting);
    }
    return value;
  }
}
