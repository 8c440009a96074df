package io.dra4j.runtime.files;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @TempDir Path tmp;

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void createsAndReplacesWithExactlyTheGivenMode() throws Exception {
    Path target = tmp.resolve("a.json");
    Path temp = tmp.resolve(".a.tmp");
    AtomicFiles.write(target, temp, bytes("one"), PosixFilePermissions.fromString("rw-------"));
    assertThat(target).hasContent("one");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-------");

    AtomicFiles.write(target, temp, bytes("two"), PosixFilePermissions.fromString("rw-r--r--"));
    assertThat(target).hasContent("two");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-r--r--");
    assertThat(temp).doesNotExist();
  }

  @Test
  void aFailedRenameLeavesTheTargetAndNoTemporaryFile() throws Exception {
    Path target = Files.createDirectories(tmp.resolve("busy/inner")).getParent();
    Path temp = tmp.resolve(".busy.tmp");
    assertThatThrownBy(
            () ->
                AtomicFiles.write(
                    target, temp, bytes("x"), PosixFilePermissions.fromString("rw-r--r--")))
        .isInstanceOf(IOException.class);
    assertThat(temp).doesNotExist();
    assertThat(target.resolve("inner")).isDirectory();
  }

  @Test
  void theTemporaryFileMustBeInTheTargetsDirectory() {
    assertThatThrownBy(
            () ->
                AtomicFiles.write(
                    tmp.resolve("a"),
                    tmp.resolve("sub/.a.tmp"),
                    bytes("x"),
                    PosixFilePermissions.fromString("rw-r--r--")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must be in the directory of");
  }

  @Test
  void deleteRemovesTargetAndTemporaryFileAndReportsWhetherTheTargetExisted() throws Exception {
    Path target = Files.writeString(tmp.resolve("a"), "x");
    Path temp = Files.writeString(tmp.resolve(".a.tmp"), "partial");
    assertThat(AtomicFiles.delete(target, temp)).isTrue();
    assertThat(target).doesNotExist();
    assertThat(temp).doesNotExist();
    assertThat(AtomicFiles.delete(target, temp)).isFalse();
  }

  @Test
  void deleteOfSomethingThatCannotBeRemovedNamesItAndTheReason() throws Exception {
    Path target = Files.createDirectories(tmp.resolve("full/inner")).getParent();
    assertThatThrownBy(() -> AtomicFiles.delete(target, tmp.resolve(".full.tmp")))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("cannot remove " + target);
    assertThat(target.resolve("inner")).isDirectory();
  }

  @Test
  void readIfPresentAnswersAnAbsentFileOrADanglingLinkWithEmpty() throws Exception {
    Path file = tmp.resolve("record.json");
    assertThat(AtomicFiles.readIfPresent(file)).isEmpty();
    Files.createSymbolicLink(file, tmp.resolve("nowhere"));
    assertThat(AtomicFiles.readIfPresent(file)).isEmpty();
    Files.delete(file);
    Files.writeString(file, "content");
    assertThat(AtomicFiles.readIfPresent(file))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("content")));
  }

  @Test
  void readIfPresentRefusesALinkToAFile() throws Exception {
    Path elsewhere = Files.writeString(tmp.resolve("host-secret"), "secret");
    Path file = Files.createSymbolicLink(tmp.resolve("record.json"), elsewhere);
    assertThatThrownBy(() -> AtomicFiles.readIfPresent(file))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("is a symbolic link");
  }

  @Test
  void aLinkPlantedAsTheTemporaryFileIsReplacedNotFollowed() throws Exception {
    Path elsewhere = Files.writeString(tmp.resolve("host-file"), "untouched");
    Path target = tmp.resolve("a.json");
    Path temp = Files.createSymbolicLink(tmp.resolve(".a.tmp"), elsewhere);
    AtomicFiles.write(target, temp, bytes("new"), PosixFilePermissions.fromString("rw-------"));
    assertThat(target).hasContent("new");
    assertThat(elsewhere).hasContent("untouched");
    assertThat(temp).doesNotExist();
  }

  @Test
  void concurrentWritersOfOneTargetNeverMixTheirContent() throws Exception {
    Path target = tmp.resolve("shared.json");
    Path temp = tmp.resolve(".shared.tmp");
    List<byte[]> contents = new ArrayList<>();
    for (int w = 0; w < 4; w++) {
      contents.add(bytes(String.valueOf((char) ('a' + w)).repeat(200_000)));
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (byte[] c : contents) {
        futures.add(
            pool.submit(
                () -> {
                  for (int i = 0; i < 5; i++) {
                    AtomicFiles.write(
                        target, temp, c, PosixFilePermissions.fromString("rw-r--r--"));
                  }
                  return null;
                }));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
    byte[] result = Files.readAllBytes(target);
    assertThat(contents).anySatisfy(c -> assertThat(result).isEqualTo(c));
  }

  @Test
  void createDirectoriesCreatesMissingParentsAndAcceptsExistingOnes() throws Exception {
    Path deep = tmp.resolve("a/b/c");
    AtomicFiles.createDirectories(deep);
    assertThat(deep).isDirectory();
    AtomicFiles.createDirectories(deep);
    Path file = Files.writeString(tmp.resolve("f"), "x");
    assertThatThrownBy(() -> AtomicFiles.createDirectories(file)).isInstanceOf(IOException.class);
  }

  @Test
  void aFailedStepWithoutTheSystemsReasonSaysWhatHappenedToWhichFile() {
    Path target = tmp.resolve("gone/record.json");
    Path temp = tmp.resolve("gone/.record.json.tmp");
    assertThatThrownBy(
            () ->
                AtomicFiles.write(
                    target,
                    temp,
                    new byte[] {1},
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")))
        .hasMessage("cannot write " + target + ": " + temp + ": no such file or directory");
  }
}
