package io.dra4j.nvidia;

import io.dra4j.api.device.Counter;
import io.dra4j.api.device.CounterSet;
import io.dra4j.api.device.Device;
import io.dra4j.api.device.DeviceAttribute;
import io.dra4j.api.device.DeviceCapacity;
import io.dra4j.api.device.DeviceCounterConsumption;
import io.dra4j.api.provider.Inventory;
import io.dra4j.api.provider.Pool;
import java.util.List;
import java.util.Map;

/**
 * Writes an inventory as JSON in the Kubernetes shape of its parts ({@code
 * {"pools":[{"name":..,"devices":[..],"counterSets":[..]}]}}), without a JSON library: this module
 * depends on dra-api and JNA only. Handles the device fields this provider sets.
 */
final class InventoryJson {
  private InventoryJson() {}

  static String write(Inventory inventory) {
    StringBuilder sb = new StringBuilder();
    sb.append("{\"pools\":[");
    List<Pool> pools = inventory.pools();
    for (int i = 0; i < pools.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      pool(sb, pools.get(i));
    }
    return sb.append("]}").toString();
  }

  private static void pool(StringBuilder sb, Pool pool) {
    sb.append("{\"name\":");
    string(sb, pool.name());
    sb.append(",\"devices\":[");
    for (int i = 0; i < pool.devices().size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      device(sb, pool.devices().get(i));
    }
    sb.append("],\"counterSets\":[");
    for (int i = 0; i < pool.counterSets().size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      CounterSet cs = pool.counterSets().get(i);
      sb.append("{\"name\":");
      string(sb, cs.name());
      sb.append(",\"counters\":");
      counters(sb, cs.counters());
      sb.append('}');
    }
    sb.append("]}");
  }

  static void device(StringBuilder sb, Device d) {
    sb.append("{\"name\":");
    string(sb, d.name());
    if (!d.attributes().isEmpty()) {
      sb.append(",\"attributes\":{");
      boolean first = true;
      for (Map.Entry<String, DeviceAttribute> e : d.attributes().entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        string(sb, e.getKey());
        sb.append(':');
        attribute(sb, e.getValue());
      }
      sb.append('}');
    }
    if (!d.capacity().isEmpty()) {
      sb.append(",\"capacity\":{");
      boolean first = true;
      for (Map.Entry<String, DeviceCapacity> e : d.capacity().entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        string(sb, e.getKey());
        sb.append(":{\"value\":");
        string(sb, e.getValue().value().toString());
        sb.append('}');
      }
      sb.append('}');
    }
    if (!d.consumesCounters().isEmpty()) {
      sb.append(",\"consumesCounters\":[");
      for (int i = 0; i < d.consumesCounters().size(); i++) {
        if (i > 0) {
          sb.append(',');
        }
        DeviceCounterConsumption c = d.consumesCounters().get(i);
        sb.append("{\"counterSet\":");
        string(sb, c.counterSet());
        sb.append(",\"counters\":");
        counters(sb, c.counters());
        sb.append('}');
      }
      sb.append(']');
    }
    if (d.allowMultipleAllocations()) {
      sb.append(",\"allowMultipleAllocations\":true");
    }
    sb.append('}');
  }

  private static void counters(StringBuilder sb, Map<String, Counter> counters) {
    sb.append('{');
    boolean first = true;
    for (Map.Entry<String, Counter> e : counters.entrySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      string(sb, e.getKey());
      sb.append(":{\"value\":");
      string(sb, e.getValue().value().toString());
      sb.append('}');
    }
    sb.append('}');
  }

  private static void attribute(StringBuilder sb, DeviceAttribute a) {
    if (a instanceof DeviceAttribute.StringValue s) {
      sb.append("{\"string\":");
      string(sb, s.value());
    } else if (a instanceof DeviceAttribute.VersionValue v) {
      sb.append("{\"version\":");
      string(sb, v.value());
    } else if (a instanceof DeviceAttribute.IntValue i) {
      sb.append("{\"int\":").append(i.value());
    } else if (a instanceof DeviceAttribute.BoolValue b) {
      sb.append("{\"bool\":").append(b.value());
    } else {
      throw new IllegalArgumentException("list attributes are not written: " + a);
    }
    sb.append('}');
  }

  static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        default -> {
          if (c < 0x20) {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }
}
