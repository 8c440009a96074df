package io.dra4j.apicheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ApiDiffTest {

  /** A small API: one interface a vendor implements, one final class, one sealed interface. */
  private static SortedMap<String, String> base() {
    SortedMap<String, String> api = new TreeMap<>();
    api.put("p.Provider", "public interface");
    api.put(
        "p.Provider#prepare(java.lang.String)", "public abstract void prepare(java.lang.String)");
    api.put("p.Model", "public final class");
    api.put("p.Model#name()", "public java.lang.String name()");
    api.put("p.Model#builder()", "public static p.Model$Builder builder()");
    api.put("p.Base", "public abstract class implements java.io.Serializable");
    api.put("p.Base#run()", "protected void run()");
    api.put("p.Kind", "public sealed interface permits p.Kind$A, p.Kind$B");
    api.put("p.Kind#value()", "public abstract java.lang.Object value()");
    return api;
  }

  private static List<ApiDiff.Change> diff(SortedMap<String, String> now) {
    return ApiDiff.compare(base(), now);
  }

  @Test
  void sameApiHasNoChanges() {
    assertThat(diff(base())).isEmpty();
  }

  @Test
  void additionsAreCompatible() {
    SortedMap<String, String> now = base();
    now.put("p.Model#attributes()", "public java.util.Map<java.lang.String, p.Attr> attributes()");
    now.put("p.Provider#close()", "public default void close()");
    now.put("p.Kind#other()", "public abstract int other()");
    now.put("p.NewType", "public final class");
    assertThat(diff(now)).hasSize(4).allMatch(ApiDiff.Change::compatible);
  }

  @Test
  void removalsAndSignatureChangesAreNot() {
    SortedMap<String, String> now = base();
    now.remove("p.Model#name()");
    now.put("p.Model#builder()", "public static p.Model$Other builder()");
    List<ApiDiff.Change> changes = diff(now);
    assertThat(changes).hasSize(2).noneMatch(ApiDiff.Change::compatible);
    assertThat(changes.get(0).what()).startsWith("signature changed");
    assertThat(changes.get(1).what()).startsWith("removed");
  }

  @Test
  void aRemovedTypeIsOneChangeNotOnePerMember() {
    SortedMap<String, String> now = base();
    now.keySet().removeIf(k -> k.startsWith("p.Model"));
    assertThat(diff(now)).singleElement().satisfies(c -> assertThat(c.key()).isEqualTo("p.Model"));
  }

  @Test
  void abstractMethodsAddedToImplementableTypesAreNot() {
    SortedMap<String, String> now = base();
    now.put("p.Provider#close()", "public abstract void close()");
    now.put("p.Base#stop()", "protected abstract void stop()");
    assertThat(diff(now)).hasSize(2).noneMatch(ApiDiff.Change::compatible);
  }

  @Test
  void typeModifiersThatBreakVendorsAreIncompatibleAndTheirReliefIsNot() {
    SortedMap<String, String> finalBase = base();
    finalBase.put("p.Base", "public abstract final class implements java.io.Serializable");
    assertThat(diff(finalBase)).singleElement().matches(c -> !c.compatible());

    SortedMap<String, String> notFinal = base();
    notFinal.put("p.Model", "public class");
    assertThat(diff(notFinal)).singleElement().matches(ApiDiff.Change::compatible);

    SortedMap<String, String> record = base();
    record.put("p.Model", "public record");
    assertThat(diff(record)).singleElement().matches(c -> !c.compatible());
  }

  @Test
  void supertypesAndPermittedSubtypes() {
    SortedMap<String, String> lost = base();
    lost.put("p.Base", "public abstract class");
    assertThat(diff(lost))
        .singleElement()
        .satisfies(c -> assertThat(c.what()).startsWith("no longer extends or implements"));

    SortedMap<String, String> gained = base();
    gained.put(
        "p.Base", "public abstract class implements java.io.Serializable, java.lang.Runnable");
    assertThat(diff(gained)).singleElement().matches(ApiDiff.Change::compatible);

    SortedMap<String, String> permits = base();
    permits.put("p.Kind", "public sealed interface permits p.Kind$A, p.Kind$B, p.Kind$C");
    assertThat(diff(permits)).singleElement().matches(c -> !c.compatible());
  }

  @Test
  void memberModifiers() {
    SortedMap<String, String> madeStatic = base();
    madeStatic.put("p.Model#name()", "public static java.lang.String name()");
    assertThat(diff(madeStatic)).singleElement().matches(c -> !c.compatible());

    SortedMap<String, String> defaulted = base();
    defaulted.put(
        "p.Provider#prepare(java.lang.String)", "public default void prepare(java.lang.String)");
    assertThat(diff(defaulted)).singleElement().matches(ApiDiff.Change::compatible);

    SortedMap<String, String> lessVisible = base();
    lessVisible.put("p.Model#builder()", "protected static p.Model$Builder builder()");
    assertThat(diff(lessVisible)).singleElement().matches(c -> !c.compatible());
  }
}
