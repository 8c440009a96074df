/**
 * The development commands, on the test kit: {@code dev} (a driver on this machine, no cluster) and
 * {@code train} (the image build's training run), contributed to every launcher whose module path
 * or class path holds them. For a developer's jar and an image build, never a node.
 */
module io.dra4j.dev {
  requires transitive io.dra4j.launcher;
  requires io.dra4j.testkit;
  requires info.picocli;

  exports io.dra4j.dev;

  // picocli reads the commands' options reflectively.
  opens io.dra4j.dev to
      info.picocli;

  provides io.dra4j.launcher.LauncherCommand with
      io.dra4j.dev.DevCommands.Dev,
      io.dra4j.dev.DevCommands.Train;
}
