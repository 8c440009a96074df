/**
 * The checkpoint: what this driver prepared, one crash-safe JSON file per claim ({@link
 * io.dra4j.runtime.internal.checkpoint.CheckpointStore}).
 *
 * <h2>File format and compatibility rule</h2>
 *
 * <pre>{@code
 * {
 *   "version": 2,               // format version of the writer
 *   "minReaderVersion": 1,      // oldest reader that may interpret this record
 *   "driver": "gpu.example.com",
 *   "claim": {"namespace": "ns", "name": "c", "uid": "..."},
 *   "state": "PrepareStarted" | "PrepareCompleted",
 *   "bootId": "...",            // /proc/sys/kernel/random/boot_id when written
 *   "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "...",
 *   "devices": [{"request": "gpu", "pool": "node-a", "device": "gpu-0", "shareId": "...",
 *                "adminAccess": false, "cdiDeviceIds": ["k8s.gpu.example.com/claim=..."],
 *                "recorded": {"key": "value"},
 *                "status": {"conditions": [...], "data": {...}}}]   // since version 2
 * }
 * }</pre>
 *
 * <ul>
 *   <li>Readers ignore fields they do not know and give missing optional fields ({@code shareId},
 *       {@code adminAccess}, {@code cdiDeviceIds}, {@code recorded}, {@code minReaderVersion})
 *       their defaults. So a newer dra4j reads records of older ones, and an older dra4j reads
 *       records of newer ones, across upgrades and downgrades.
 *   <li>A new format version may only add fields, and an existing field keeps its name, type and
 *       meaning; {@code version} then goes up so a record says which writer produced it.
 *   <li>A change that an older reader would misread (a new {@code state} value, a changed meaning)
 *       must raise {@code minReaderVersion} to the first version that understands it. A reader
 *       whose own version is lower reports such a record and leaves it in place: it is neither
 *       interpreted nor moved, so nothing is lost if the newer dra4j comes back. An unknown {@code
 *       state} is treated the same way.
 *   <li>A file that is not JSON, is truncated, lacks a required field, has a field of the wrong
 *       type or names another claim than its file name is corrupt: it is reported (file and field)
 *       and moved aside to {@code <uid>.json.corrupt}.
 *   <li>A record rewritten by an older dra4j loses the fields only a newer one knows.
 *   <li>Version 2 gave a device's claim status its own field; version 1 kept it as a JSON string
 *       under the recorded key {@code dra4j.io/status}, and a version 1 record is migrated when
 *       read (the key leaves {@code recorded}). A version 1 reader reads version 2 records and only
 *       loses the status for a repeated prepare.
 * </ul>
 *
 * Committed fixtures of each format version ({@code src/test/resources/.../checkpoint/}) are read
 * by the tests, and the current writer's output is compared with the newest one.
 *
 * <p>Not API: internal to dra4j, used by its own modules only, and may change in any release.
 */
package io.dra4j.runtime.internal.checkpoint;
