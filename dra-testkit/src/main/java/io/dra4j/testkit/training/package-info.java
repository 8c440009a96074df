/**
 * The JVM's training run for a driver's image: {@link io.dra4j.testkit.training.TrainCommand} runs
 * the driver's real {@code run} command as a child process against the test kit's API server and a
 * kubelet simulator, so the class-data-sharing archive or AOT cache the child writes at exit holds
 * the node's path and nothing of the test kit.
 */
package io.dra4j.testkit.training;
