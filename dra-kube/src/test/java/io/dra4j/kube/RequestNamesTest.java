package io.dra4j.kube;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Request names as dynamic-resource-allocation v0.37.2's resourceclaim package reads them. */
class RequestNamesTest {
  @Test
  void aNameIsARequestOrOneOfItsSubrequests() {
    assertThat(RequestNames.base("gpu/small")).isEqualTo("gpu");
    assertThat(RequestNames.base("gpu")).isEqualTo("gpu");
    assertThat(RequestNames.subrequest("gpu/small")).contains("small");
    assertThat(RequestNames.subrequest("gpu")).isEmpty();
    assertThat(RequestNames.of("gpu", Optional.of("small"))).isEqualTo("gpu/small");
    assertThat(RequestNames.of("gpu", Optional.empty())).isEqualTo("gpu");
  }

  @Test
  void aConfigForARequestAppliesToWhicheverSubrequestWasAllocated() {
    assertThat(RequestNames.matches(List.of(), "gpu/small")).isTrue();
    assertThat(RequestNames.matches(List.of("gpu"), "gpu/small")).isTrue();
    assertThat(RequestNames.matches(List.of("gpu/small"), "gpu/small")).isTrue();
    assertThat(RequestNames.matches(List.of("gpu/large"), "gpu/small")).isFalse();
    assertThat(RequestNames.matches(List.of("gpu/small"), "gpu")).isFalse();
    assertThat(RequestNames.matches(List.of("nic"), "gpu")).isFalse();
  }
}
