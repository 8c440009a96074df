"""Parses a Prometheus text-format scrape with the Python Prometheus client's own parser (Debian's
python3-prometheus-client, independent of the Java client that wrote it) and prints one JSON
object per metric family: its name as the scrape writes it, its type, and its samples."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

with open(sys.argv[1], encoding="utf-8") as f:
    text = f.read()
families = []
for family in text_string_to_metric_families(text):
    name = family.name
    # The parser drops a counter's _total suffix from the family name; the series keeps it.
    if family.type == "counter" and any(s.name == name + "_total" for s in family.samples):
        name += "_total"
    families.append(
        {
            "name": name,
            "type": family.type,
            "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples],
        }
    )
json.dump(families, sys.stdout)
