package io.dra4j.runtime.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.cdi.ContainerEdits;
import io.dra4j.api.cdi.DeviceNode;
import io.dra4j.api.cdi.Hook;
import io.dra4j.api.cdi.Mount;
import java.util.List;
import org.junit.jupiter.api.Test;

class CdiSpecTest {
  private static final CdiKind KIND = CdiKind.of("vendor.com", "gpu");

  @Test
  void writesExactlyTheCdiFieldsAndLeavesOutEmptiesAndRequired() {
    ContainerEdits device =
        ContainerEdits.builder()
            .env("GPU", "0")
            .deviceNode(
                DeviceNode.builder("/dev/gpu0")
                    .hostPath("/dev/nvidia0")
                    .type("c")
                    .major(195L)
                    .minor(0L)
                    .permissions("rw")
                    .fileMode(0666)
                    .owner(0, 44)
                    .build())
            .deviceNode(DeviceNode.optional("/dev/gpu-extra"))
            .mount(
                Mount.builder("/lib/a.so", "/usr/lib/a.so")
                    .type("bind")
                    .options(List.of("ro"))
                    .build())
            .mount(Mount.builder("/lib/b.so", "/usr/lib/b.so").build())
            .hook(
                Hook.builder("createContainer", "/usr/bin/hook")
                    .args(List.of("hook", "x"))
                    .env(List.of("E=1"))
                    .timeout(10)
                    .build())
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
        node(DeviceNode.builder("/dev/x").type("x").build()),
        "type \"x\" must be one of b, c, u, p");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").major(1L).minor(3L).build()),
        "major and minor need a type");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").type("c").major(1L).build()),
        "major and minor must be given together");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").owner(-1, 0).build()), "uid -1 must not be negative");
    assertEditRejected(
        node(DeviceNode.builder("/dev/x").fileMode(010000).build()), "fileMode 4096");
    assertEditRejected(
        ContainerEdits.builder().mount(Mount.builder("", "/x").build()).build(),
        "mounts[0] (/x): hostPath must not be empty");
    assertEditRejected(
        ContainerEdits.builder().mount(Mount.builder("/a", "x").build()).build(),
        "containerPath \"x\" must be an absolute path");
    assertEditRejected(
        ContainerEdits.builder().mount(Mount.builder("/a", "/x").type("").build()).build(),
        "type must not be empty");
    assertEditRejected(
        ContainerEdits.builder().hook(Hook.builder("poststop", "hook").build()).build(),
        "hooks[0] (poststop hook): path \"hook\" must be an absolute path");
    assertEditRejected(
        ContainerEdits.builder()
            .hook(Hook.builder("poststop", "/h").env(List.of("NOVALUE")).build())
            .build(),
        "env[0] \"NOVALUE\" must have the form KEY=VALUE");
    assertEditRejected(
        ContainerEdits.builder().hook(Hook.builder("poststop", "/h").timeout(0).build()).build(),
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
