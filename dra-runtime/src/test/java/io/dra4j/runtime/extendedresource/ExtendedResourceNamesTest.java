package io.dra4j.runtime.extendedresource;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** KEP-5004 name rules (Kubernetes' IsExtendedResourceName). */
class ExtendedResourceNamesTest {

  @Test
  void explicitNames() {
    assertThat(ExtendedResourceNames.explicit("example.com/gpu")).isEmpty();
    assertThat(ExtendedResourceNames.explicit("example.com/GPU_x.y-z")).isEmpty();
    assertThat(ExtendedResourceNames.explicit("gpu")).singleElement().asString().contains("'/'");
    assertThat(ExtendedResourceNames.explicit("kubernetes.io/gpu"))
        .anyMatch(p -> p.contains("kubernetes.io domain"));
    assertThat(ExtendedResourceNames.explicit("foo.kubernetes.io/gpu"))
        .anyMatch(p -> p.contains("kubernetes.io domain"));
    assertThat(ExtendedResourceNames.explicit("requests.example.com/gpu"))
        .anyMatch(p -> p.contains("requests."));
    assertThat(ExtendedResourceNames.explicit("example.com/" + "g".repeat(63))).isEmpty();
    assertThat(ExtendedResourceNames.explicit("example.com/" + "g".repeat(64)))
        .anyMatch(p -> p.contains("64 characters, the limit is 63"));
    assertThat(ExtendedResourceNames.explicit("Example.com/gpu"))
        .anyMatch(p -> p.contains("DNS subdomain"));
    assertThat(ExtendedResourceNames.explicit("example.com/a/b"))
        .anyMatch(p -> p.contains("at most one '/'"));
    assertThat(ExtendedResourceNames.explicit("example.com/-gpu")).isNotEmpty();
    assertThat(ExtendedResourceNames.explicit("example.com/")).isNotEmpty();
    // requests.<domain> must fit 253: the domain may have at most 244 characters.
    String domain244 =
        "a".repeat(60) + "." + "b".repeat(60) + "." + "c".repeat(60) + "." + "d".repeat(61);
    assertThat(domain244).hasSize(244);
    assertThat(ExtendedResourceNames.explicit(domain244 + "/gpu")).isEmpty();
    assertThat(ExtendedResourceNames.explicit(domain244 + "d/gpu"))
        .anyMatch(p -> p.contains("254 characters, the limit is 253"));
  }

  @Test
  void implicitNames() {
    assertThat(ExtendedResourceNames.implicitName("gpu"))
        .isEqualTo("deviceclass.resource.kubernetes.io/gpu");
    assertThat(ExtendedResourceNames.implicit("gpu.example.com")).isEmpty();
    assertThat(ExtendedResourceNames.implicit("a".repeat(63))).isEmpty();
    assertThat(ExtendedResourceNames.implicit("a".repeat(64)))
        .singleElement()
        .asString()
        .contains("64 characters");
    assertThat(ExtendedResourceNames.implicit("bad/name"))
        .anyMatch(p -> p.contains("characters not allowed"));
  }

  @Test
  void driverNames() {
    assertThat(ExtendedResourceNames.driverName("GPU.example.com")).isEmpty();
    assertThat(ExtendedResourceNames.driverName("gpu_x")).isNotEmpty();
    assertThat(ExtendedResourceNames.driverName("a".repeat(64))).isNotEmpty();
  }
}
