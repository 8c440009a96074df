package io.dra4j.numa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.dra4j.api.provider.ProviderContext;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsTest {

  @TempDir Path dir;

  @Test
  void hostPathsAndRelativePathsResolveUnderTheRoot() {
    Sysfs s = Sysfs.at(dir);

    assertThat(s.path("/sys/bus/pci/devices")).isEqualTo(dir.resolve("bus/pci/devices"));
    assertThat(s.path("bus/pci/devices")).isEqualTo(dir.resolve("bus/pci/devices"));
    assertThat(s.path("/sys")).isEqualTo(dir);
    assertThat(s.hostPath(dir.resolve("devices/pci0000:00"))).isEqualTo("/sys/devices/pci0000:00");
    assertThat(Sysfs.host().path("/sys/bus/pci")).isEqualTo(Path.of("/sys/bus/pci"));
  }

  @Test
  void pathsOutsideSysAreRefused() {
    Sysfs s = Sysfs.at(dir);

    assertThatThrownBy(() -> s.path("/proc/cpuinfo")).hasMessageContaining("not under /sys");
    assertThatThrownBy(() -> s.path("bus/../../etc/passwd")).hasMessageContaining("leaves");
    assertThatThrownBy(() -> s.path("/system/x")).hasMessageContaining("not under /sys");
  }

  @Test
  void relativeLinksResolveAgainstTheLinkDirectory() throws IOException {
    new FakeSysfs(dir).pci("0000:00:01.0", 0);

    Path target = Sysfs.at(dir).readLink("/sys/bus/pci/devices/0000:00:01.0");

    assertThat(target).isEqualTo(dir.resolve("devices/pci0000:00/0000:00:01.0"));
  }

  @Test
  void absoluteLinksAreReRootedAndForeignTargetsRefused() throws IOException {
    new FakeSysfs(dir)
        .link("bus/pci/devices/a", "/sys/devices/pci0000:00/a")
        .link("bus/pci/devices/b", "/dev/null")
        .link("bus/pci/devices/c", "../../../../x");
    Sysfs s = Sysfs.at(dir);

    assertThat(s.readLink("bus/pci/devices/a")).isEqualTo(dir.resolve("devices/pci0000:00/a"));
    assertThatThrownBy(() -> s.readLink("bus/pci/devices/b"))
        .hasMessageContaining("/sys/bus/pci/devices/b points to /dev/null, outside /sys");
    assertThatThrownBy(() -> s.readLink("bus/pci/devices/c")).hasMessageContaining("leaves sysfs");
  }

  @Test
  void readErrorsNameTheHostPath() {
    new FakeSysfs(dir).write("devices/x", "1\n");
    Sysfs s = Sysfs.at(dir);

    assertThatThrownBy(() -> s.read("devices/missing"))
        .isInstanceOf(NoSuchFileException.class)
        .hasMessageContaining("/sys/devices/missing");
    assertThatThrownBy(() -> s.readLink("devices/x"))
        .hasMessageContaining("/sys/devices/x is not a symbolic link");
  }

  @Test
  void theConfigKeyOverridesTheContextRoot() {
    ProviderContext plain =
        ProviderContext.builder("d.example.com", "n").sysfsRoot(dir.resolve("ctx")).build();
    ProviderContext overridden =
        ProviderContext.builder("d.example.com", "n")
            .sysfsRoot(dir.resolve("ctx"))
            .config(Sysfs.CONFIG_SYSFS_ROOT, dir.resolve("cfg").toString())
            .build();
    ProviderContext blank =
        ProviderContext.builder("d.example.com", "n").config(Sysfs.CONFIG_SYSFS_ROOT, " ").build();

    assertThat(Sysfs.from(plain).root()).isEqualTo(dir.resolve("ctx"));
    assertThat(Sysfs.from(overridden).root()).isEqualTo(dir.resolve("cfg"));
    assertThatThrownBy(() -> Sysfs.from(blank)).hasMessageContaining("sysfs-root");
  }
}
