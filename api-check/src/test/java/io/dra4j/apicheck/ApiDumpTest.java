package io.dra4j.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import org.junit.jupiter.api.Test;

public class ApiDumpTest {

  /** A vendor-facing interface with a generic default method. */
  public interface Sample<C extends Comparable<C>> {
    List<C> values() throws IOException;

    default <T> Map<String, T> index(T first, String... rest) {
      return Map.of();
    }

    /** Not part of any API. */
    private void hidden() {}
  }

  /** A final class with a field, a constructor that is not visible and a nested type. */
  public static final class Model {
    public static final String NAME = "model";

    private Model() {}

    protected void run() {}

    void packagePrivate() {}

    /** A nested type. */
    public static final class Builder {}
  }

  @Test
  void rendersVisibleDeclarationsWithGenericsAndModifiers() {
    SortedMap<String, String> api =
        ApiDump.of(List.of(Sample.class, Model.class, Model.Builder.class));
    String sample = Sample.class.getName();
    String model = Model.class.getName();
    assertThat(api)
        .containsEntry(sample, "public interface <C extends java.lang.Comparable<C>>")
        .containsEntry(
            sample + "#values()",
            "public abstract java.util.List<C> values() throws java.io.IOException")
        .containsEntry(
            sample + "#index(java.lang.Object,java.lang.String[])",
            "public default <T> java.util.Map<java.lang.String, T> index(T, java.lang.String...)")
        .containsEntry(model, "public static final class")
        .containsEntry(model + "#NAME", "public static final java.lang.String NAME")
        .containsEntry(model + "#run()", "protected void run()")
        .containsEntry(model + "$Builder", "public static final class")
        .doesNotContainKeys(sample + "#hidden()", model + "#packagePrivate()", model + "#<init>()");
  }
}
