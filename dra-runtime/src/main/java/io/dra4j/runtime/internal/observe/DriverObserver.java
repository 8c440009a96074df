package io.dra4j.runtime.internal.observe;

import io.dra4j.api.provider.Pool;
import io.dra4j.runtime.extendedresource.GuardReport;
import io.dra4j.runtime.internal.claims.ClaimListener;
import io.dra4j.runtime.internal.kubelet.CallObserver;
import io.dra4j.runtime.internal.slices.SyncObserver;
import io.dra4j.runtime.report.ClaimStats;
import io.dra4j.runtime.report.HealthView;
import io.dra4j.runtime.report.PublisherStats;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Records what one driver does: each component reports through the narrow observer it gets here,
 * and the driver binds the {@link Source} its state is read from at scrape time. Implemented by
 * dra-launcher's metrics; a driver without one records nothing ({@link #NONE}).
 */
public interface DriverObserver {
  /** What the kubelet plugin server reports. */
  CallObserver kubeletCalls();

  /** What the claim pipeline reports (its counters are read through the {@link Source}). */
  ClaimListener claims();

  /** What the slice publisher reports. */
  SyncObserver publisherSyncs();

  /** The warm-up before registering took {@code took}. */
  void warmedUp(Duration took);

  /**
   * The driver whose state is read at scrape time. Called once, by the driver that owns this
   * observer.
   *
   * @throws IllegalStateException when a source was bound already
   */
  void bind(Source source);

  /** Records nothing. */
  DriverObserver NONE =
      new DriverObserver() {
        @Override
        public CallObserver kubeletCalls() {
          return CallObserver.NONE;
        }

        @Override
        public ClaimListener claims() {
          return ClaimListener.NONE;
        }

        @Override
        public SyncObserver publisherSyncs() {
          return SyncObserver.NONE;
        }

        @Override
        public void warmedUp(Duration took) {}

        @Override
        public void bind(Source source) {}
      };

  /**
   * The driver's state, read at every scrape: keep each method cheap and thread-safe. Each default
   * is what a driver that has not started reports.
   */
  interface Source {
    default String driverName() {
      return "";
    }

    default String nodeName() {
      return "";
    }

    default boolean isAlive() {
      return false;
    }

    default boolean isReady() {
      return false;
    }

    default boolean isRegistered() {
      return false;
    }

    default List<Pool> publishedInventory() {
      return List.of();
    }

    default int pendingPools() {
      return 0;
    }

    default Optional<PublisherStats> publisherStats() {
      return Optional.empty();
    }

    default Optional<ClaimStats> claimStats() {
      return Optional.empty();
    }

    default Optional<HealthView> healthView() {
      return Optional.empty();
    }

    default Optional<GuardReport> guardReport() {
      return Optional.empty();
    }

    /** Before a driver is bound. */
    Source NONE = new Source() {};
  }
}
