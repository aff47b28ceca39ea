#!/usr/bin/env python3
"""Checks OTLP/HTTP JSON bodies against the encoding rules, for fleet.bats.

otlp_check.py metrics FILE: checks a /v1/metrics body and prints one line
per data point: NAME[ ATTR=VALUE] VALUE, then resource attributes as
resource KEY VALUE.
otlp_check.py traces FILE...: checks /v1/traces bodies and prints one line
per span: SPAN_ID PARENT_ID PID NAME (parent "-" for a root).
Exits 1 with the broken rule on stderr.
"""
import json
import re
import sys

CAMEL = re.compile(r"^[a-z][a-zA-Z0-9]*$")
INT64_KEYS = {"asInt", "intValue", "timeUnixNano", "startTimeUnixNano", "endTimeUnixNano"}


def fail(msg):
    sys.stderr.write("otlp_check: %s\n" % msg)
    sys.exit(1)


def walk(v, path):
    """lowerCamelCase keys everywhere; 64-bit integers as decimal strings."""
    if isinstance(v, dict):
        for k, x in v.items():
            if not CAMEL.match(k):
                fail("key %r at %s is not lowerCamelCase" % (k, path))
            if k in INT64_KEYS and not (isinstance(x, str) and re.fullmatch(r"-?[0-9]+", x)):
                fail("%s at %s is not a 64-bit integer as a string: %r" % (k, path, x))
            walk(x, path + "." + k)
    elif isinstance(v, list):
        for i, x in enumerate(v):
            walk(x, "%s[%d]" % (path, i))


def anyvalue(v):
    kinds = [k for k in v if k.endswith("Value")]
    if len(kinds) != 1:
        fail("an AnyValue with %d kinds: %r" % (len(kinds), v))
    k = kinds[0]
    if k == "arrayValue":
        return [anyvalue(x) for x in v[k].get("values", [])]
    if k == "intValue":
        return int(v[k])
    return v[k]


def attrs(lst, where):
    out = {}
    for a in lst:
        if set(a) != {"key", "value"}:
            fail("an attribute of %s is not {key, value}: %r" % (where, a))
        if a["key"] in out:
            fail("attribute %r twice in %s" % (a["key"], where))
        out[a["key"]] = anyvalue(a["value"])
    return out


def resource(r, top):
    if set(r) != {"resource", top}:
        fail("a resource entry holds %r" % sorted(r))
    return attrs(r["resource"].get("attributes", []), "the resource")


def metrics(path):
    body = json.load(open(path))
    walk(body, "$")
    if set(body) != {"resourceMetrics"}:
        fail("the top holds %r" % sorted(body))
    for rm in body["resourceMetrics"]:
        res = resource(rm, "scopeMetrics")
        for sm in rm["scopeMetrics"]:
            if sm["scope"].get("name") != "spacetime":
                fail("scope %r" % sm["scope"])
            for m in sm["metrics"]:
                kinds = [k for k in ("gauge", "sum", "histogram") if k in m]
                if len(kinds) != 1 or not m.get("name") or "unit" not in m:
                    fail("metric %r: a name, a unit and one kind" % m.get("name"))
                d = m[kinds[0]]
                if kinds[0] == "sum" and (d.get("aggregationTemporality") != 2 or d.get("isMonotonic") is not True):
                    fail("sum %s: cumulative (2) and monotonic" % m["name"])
                for p in d["dataPoints"]:
                    if ("asInt" in p) == ("asDouble" in p):
                        fail("point of %s: one of asInt, asDouble" % m["name"])
                    if kinds[0] == "sum" and "startTimeUnixNano" not in p:
                        fail("point of %s has no start" % m["name"])
                    val = int(p["asInt"]) if "asInt" in p else p["asDouble"]
                    a = attrs(p.get("attributes", []), m["name"])
                    tag = "".join(" %s=%s" % (k, a[k]) for k in sorted(a) if k != "spacetime.job.name")
                    print("%s%s %s" % (m["name"], tag, val))
        for k in sorted(res):
            print("resource %s %s" % (k, res[k]))


def traces(paths):
    for path in paths:
        body = json.load(open(path))
        walk(body, "$")
        if set(body) != {"resourceSpans"}:
            fail("the top holds %r" % sorted(body))
        for rs in body["resourceSpans"]:
            resource(rs, "scopeSpans")
            for ss in rs["scopeSpans"]:
                for s in ss["spans"]:
                    if not re.fullmatch(r"[0-9a-f]{32}", s.get("traceId", "")) or s["traceId"] == "0" * 32:
                        fail("traceId %r" % s.get("traceId"))
                    if not re.fullmatch(r"[0-9a-f]{16}", s.get("spanId", "")):
                        fail("spanId %r" % s.get("spanId"))
                    par = s.get("parentSpanId", "")
                    if par and not re.fullmatch(r"[0-9a-f]{16}", par):
                        fail("parentSpanId %r" % par)
                    if int(s["endTimeUnixNano"]) < int(s["startTimeUnixNano"]):
                        fail("span %s ends before it starts" % s["spanId"])
                    a = attrs(s.get("attributes", []), "span " + s["spanId"])
                    print("%s %s %s %s" % (s["spanId"], par or "-", a.get("process.pid", "-"), s["name"]))


if sys.argv[1] == "metrics":
    metrics(sys.argv[2])
else:
    traces(sys.argv[2:])
