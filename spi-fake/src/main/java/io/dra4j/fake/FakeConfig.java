package io.dra4j.fake;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonValue;
import io.dra4j.api.provider.ConfigType;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The opaque device configuration of the fake driver, {@code apiVersion: fake.dra4j.io/v1alpha1},
 * {@code kind: FakeDeviceConfig}:
 *
 * <pre>{@code
 * config:
 * - opaque:
 *     driver: <driver name>
 *     parameters:
 *       apiVersion: fake.dra4j.io/v1alpha1
 *       kind: FakeDeviceConfig
 *       sharing: TimeSlicing
 *       env:
 *         MY_SETTING: "on"
 * }</pre>
 *
 * @param env extra environment variables for containers using the device; names are C identifiers
 *     and may not start with {@code DRA_FAKE_} or be {@code DRA_ADMIN_ACCESS}
 * @param sharing how the device is shared; shown to the container as {@code
 *     DRA_FAKE_DEVICE_<n>_SHARING}
 */
@JsonIgnoreProperties({"apiVersion", "kind"})
public record FakeConfig(Map<String, String> env, Sharing sharing) {

  /** The {@code apiVersion} of the parameters. */
  public static final String API_VERSION = "fake.dra4j.io/v1alpha1";

  /** The {@code kind} of the parameters. */
  public static final String KIND = "FakeDeviceConfig";

  /** What the provider declares in {@link io.dra4j.api.provider.TypedConfig#configTypes()}. */
  public static final ConfigType<FakeConfig> TYPE =
      ConfigType.of(API_VERSION, KIND, FakeConfig.class);

  /** No extra environment, exclusive use. */
  public static final FakeConfig DEFAULT = new FakeConfig(Map.of(), Sharing.EXCLUSIVE);

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  public FakeConfig {
    env = env == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(env));
    sharing = sharing == null ? Sharing.EXCLUSIVE : sharing;
  }

  /**
   * Checks what the JSON syntax cannot express.
   *
   * @throws IllegalArgumentException naming the field, the value and the rule
   */
  public void validate() {
    for (Map.Entry<String, String> e : env.entrySet()) {
      String k = e.getKey();
      if (!ENV_NAME.matcher(k).matches()) {
        throw new IllegalArgumentException(
            "env: \""
                + k
                + "\" is not a valid variable name (letters, digits, _; no leading digit)");
      }
      if (k.startsWith(FakeDeviceProvider.ENV_PREFIX) || k.equals(FakeDeviceProvider.ENV_ADMIN)) {
        throw new IllegalArgumentException(
            "env: \""
                + k
                + "\" is reserved by the fake driver (names starting with "
                + FakeDeviceProvider.ENV_PREFIX
                + " and "
                + FakeDeviceProvider.ENV_ADMIN
                + ")");
      }
      if (e.getValue() == null) {
        throw new IllegalArgumentException("env: \"" + k + "\" has no value");
      }
    }
  }

  /** How a device is shared. */
  public enum Sharing {
    /** One claim at a time (the default). */
    EXCLUSIVE("Exclusive"),
    /** Claims take turns (simulated: only announced to the container). */
    TIME_SLICING("TimeSlicing");

    private final String apiName;

    Sharing(String apiName) {
      this.apiName = apiName;
    }

    /** The JSON spelling. */
    @JsonValue
    public String apiName() {
      return apiName;
    }

    /**
     * Parses the JSON spelling.
     *
     * @throws IllegalArgumentException naming the allowed values
     */
    @JsonCreator
    public static Sharing fromApiName(String value) {
      for (Sharing s : values()) {
        if (s.apiName.equals(value)) {
          return s;
        }
      }
      throw new IllegalArgumentException(
          "sharing: \"" + value + "\" must be one of Exclusive, TimeSlicing");
    }
  }
}
