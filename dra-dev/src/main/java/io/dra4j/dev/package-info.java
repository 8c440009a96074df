/**
 * The development commands, for a developer's machine and the image build, never a node: {@code
 * dev} ({@link io.dra4j.dev.DevCommand}) runs a vendor's provider with no cluster against the test
 * kit's API server and kubelet simulator; {@code train} ({@link io.dra4j.dev.TrainCommand}) is the
 * JVM's training run for a driver's image, the driver's real {@code run} command as a child process
 * against the same, so the class-data-sharing archive or AOT cache the child writes at exit holds
 * the node's path and nothing of the test kit. {@link io.dra4j.dev.DevCommands} contributes both to
 * every launcher whose class path holds dra-dev.
 */
package io.dra4j.dev;
