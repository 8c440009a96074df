package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class CdiSpecTest {
  private static final CdiKind KIND = CdiKind.of("vendor.com", "gpu");

  @Test
  void writesExactlyTheCdiFieldsAndLeavesOutEmptiesAndRequired() {
    ContainerEdits device =
        ContainerEdits.builder()
            .env("GPU", "0")
            .deviceNode(
                new DeviceNode(
                    "/dev/gpu0",
                    Optional.of("/dev/nvidia0"),
                    Optional.of("c"),
                    Optional.of(195L),
                    Optional.of(0L),
                    Optional.of("rw"),
                    Optional.of(0666),
                    Optional.of(0),
                    Optional.of(44),
                    true))
            .deviceNode(DeviceNode.optional("/dev/gpu-extra"))
            .mount(new Mount("/lib/a.so", "/usr/lib/a.so", Optional.of("bind"), List.of("ro")))
            .mount(new Mount("/lib/b.so", "/usr/lib/b.so", Optional.empty(), List.of()))
            .hook(
                new Hook(
                    "createContainer",
                    "/usr/bin/hook",
                    List.of("hook", "x"),
                    List.of("E=1"),
                    Optional.of(10)))
            .hook(Hook.createContainer("/usr/bin/h2", List.of()))
            .build();
    CdiSpec spec =
        new CdiSpec(
            KIND,
            List.of(new CdiDevice("gpu0", device)),
            ContainerEdits.builder().env("COMMON", "1").build());

    assertThat(spec.toJson().replaceAll("\\s+", ""))
        .isEqualTo(
            "{\"cdiVersion\":\"0.5.0\",\"kind\":\"vendor.com/gpu\",\"devices\":[{\"name\":\"gpu0\","
                + "\"containerEdits\":{\"env\":[\"GPU=0\"],\"deviceNodes\":[{\"path\":\"/dev/gpu0\","
                + "\"hostPath\":\"/dev/nvidia0\",\"type\":\"c\",\"major\":195,\"minor\":0,"
                + "\"fileMode\":438,\"permissions\":\"rw\",\"uid\":0,\"gid\":44},"
                + "{\"path\":\"/dev/gpu-extra\"}],"
                + "\"mounts\":[{\"hostPath\":\"/lib/a.so\",\"containerPath\":\"/usr/lib/a.so\","
                + "\"type\":\"bind\",\"options\":[\"ro\"]},{\"hostPath\":\"/lib/b.so\","
                + "\"containerPath\":\"/usr/lib/b.so\"}],"
                + "\"hooks\":[{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/hook\","
                + "\"args\":[\"hook\",\"x\"],\"env\":[\"E=1\"],\"timeout\":10},"
                + "{\"hookName\":\"createContainer\",\"path\":\"/usr/bin/h2\"}]}}],"
                + "\"containerEdits\":{\"env\":[\"COMMON=1\"]}}");
    assertThat(spec.toJson()).doesNotContain("required");
  }

  @Test
  void specLevelEditsAreLeftOutWhenEmpty() {
    CdiSpec spec =
        new CdiSpec(
            KIND,
            List.of(new CdiDevice("a", ContainerEdits.builder().env("A", "1").build())),
            ContainerEdits.NONE);
    assertThat(spec.toJson().replaceAll("\\s+", ""))
        .isEqualTo(
            "{\"cdiVersion\":\"0.3.0\",\"kind\":\"vendor.com/gpu\",\"devices\":[{\"name\":\"a\","
                + "\"containerEdits\":{\"env\":[\"A=1\"]}}]}");
    assertThat(spec.qualifiedNames()).containsExactly("vendor.com/gpu=a");
  }

  @Test
  void rejectsWhatCdiRuntimesReject() {
    ContainerEdits env = ContainerEdits.builder().env("A", "1").build();
    assertThatThrownBy(() -> new CdiDevice("a", ContainerEdits.NONE))
        .hasMessageContaining("CDI device \"a\" has no container edits");
    assertThatThrownBy(() -> new CdiSpec(KIND, List.of(), ContainerEdits.NONE))
        .hasMessageContaining("has no devices");
    assertThatThrownBy(
            () -> new CdiSpec(KIND, List.of(new CdiDevice("a", env), new CdiDevice("a", env)), env))
        .hasMessageContaining("has device \"a\" twice");
    assertThatThrownBy(() -> new CdiDevice("-a", env)).hasMessageContaining("CDI device name");
  }

  @Test
  void rejectsInvalidEditsNamingTheField() {
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").permissions("rwx").build()),
        "deviceNodes[0] (/dev/x): permissions \"rwx\" must be a non-empty subset of rwm");
    assertEditRejected(
        node(DeviceNode.builder("dev/x").build()),
        "deviceNodes[0] (dev/x): path \"dev/x\" must be an absolute path");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").hostPath("").build()),
        "hostPath \"\" must be an absolute path");
    assertEditRejected(
        node(
            new DeviceNode(
                "/dev/x",
                Optional.empty(),
                Optional.of("x"),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                true)),
        "type \"x\" must be one of b, c, u, p");
    assertEditRejected(
        node(
            new DeviceNode(
                "/dev/x",
                Optional.empty(),
                Optional.empty(),
                Optional.of(1L),
                Optional.of(3L),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                true)),
        "major and minor need a type");
    assertEditRejected(
        node(
            new DeviceNode(
                "/dev/x",
                Optional.empty(),
                Optional.of("c"),
                Optional.of(1L),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                true)),
        "major and minor must be given together");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").owner(-1, 0).build()), "uid -1 must not be negative");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").fileMode(010000).build()), "fileMode 4096");
    assertEditRejected(
        ContainerEdits.builder().mount(new Mount("", "/x", Optional.empty(), List.of())).build(),
        "mounts[0] (/x): hostPath must not be empty");
    assertEditRejected(
        ContainerEdits.builder().mount(new Mount("/a", "x", Optional.empty(), List.of())).build(),
        "containerPath \"x\" must be an absolute path");
    assertEditRejected(
        ContainerEdits.builder().mount(new Mount("/a", "/x", Optional.of(""), List.of())).build(),
        "type must not be empty");
    assertEditRejected(
        ContainerEdits.builder()
            .hook(new Hook("poststop", "hook", List.of(), List.of(), Optional.empty()))
            .build(),
        "hooks[0] (poststop hook): path \"hook\" must be an absolute path");
    assertEditRejected(
        ContainerEdits.builder()
            .hook(new Hook("poststop", "/h", List.of(), List.of("NOVALUE"), Optional.empty()))
            .build(),
        "env[0] \"NOVALUE\" must have the form KEY=VALUE");
    assertEditRejected(
        ContainerEdits.builder()
            .hook(new Hook("poststop", "/h", List.of(), List.of(), Optional.of(0)))
            .build(),
        "timeout 0 must be positive");
  }

  private static ContainerEdits node(DeviceNode n) {
    return ContainerEdits.builder().deviceNode(n).build();
  }

  private static void assertEditRejected(ContainerEdits edits, String message) {
    assertThatThrownBy(() -> new CdiDevice("dev0", edits))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("CDI device dev0: ")
        .hasMessageContaining(message);
  }
}
