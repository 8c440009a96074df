package io.dra4j.kube.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/** Where the bearer token comes from: nowhere, a fixed string, or a file that may be rotated. */
public abstract class TokenSource {

  /** The token to send now. */
  public abstract Optional<String> current();

  /** Re-reads a rotating source after a 401; true when the token changed. */
  public boolean refresh() {
    return false;
  }

  public static TokenSource none() {
    return new TokenSource() {
      @Override
      public Optional<String> current() {
        return Optional.empty();
      }
    };
  }

  public static TokenSource fixed(String token) {
    Optional<String> t = Optional.of(token);
    return new TokenSource() {
      @Override
      public Optional<String> current() {
        return t;
      }
    };
  }

  /**
   * A token file, re-read whenever its modification time or size changes and at least once a
   * minute: projected service-account tokens are rotated by the kubelet (an atomic symlink swap),
   * and a stale bound token is rejected after it expires.
   */
  public static TokenSource file(Path path) {
    return new FileTokenSource(path);
  }

  private static final class FileTokenSource extends TokenSource {
    private static final long MAX_AGE_NANOS = 60_000_000_000L;
    private final Path path;
    private String token;
    private FileTime mtime;
    private long size = -1;
    private long readAt;

    FileTokenSource(Path path) {
      this.path = path;
    }

    @Override
    public synchronized Optional<String> current() {
      try {
        FileTime t = Files.getLastModifiedTime(path);
        long s = Files.size(path);
        if (token == null
            || !t.equals(mtime)
            || s != size
            || System.nanoTime() - readAt > MAX_AGE_NANOS) {
          read(t, s);
        }
      } catch (IOException e) {
        if (token == null) {
          throw new IllegalStateException(
              "cannot read the bearer token file " + path + ": " + Failures.describe(e), e);
        }
        // Keep the last good token across a transient failure (mid-rotation).
      }
      return Optional.of(token);
    }

    @Override
    public synchronized boolean refresh() {
      String before = token;
      try {
        read(Files.getLastModifiedTime(path), Files.size(path));
      } catch (IOException e) {
        return false;
      }
      return !token.equals(before);
    }

    private void read(FileTime t, long s) throws IOException {
      String value = Files.readString(path, StandardCharsets.UTF_8).trim();
      if (value.isEmpty()) {
        throw new IOException("the token file is empty");
      }
      token = value;
      mtime = t;
      size = s;
      readAt = System.nanoTime();
    }
  }
}
