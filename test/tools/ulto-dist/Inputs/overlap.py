# How many "backend" events of a --time-trace file overlapped at most.
import json, sys
events = [e for e in json.load(open(sys.argv[1]))["traceEvents"]
          if e.get("name") == "backend" and e.get("ph") == "X"]
points = sorted([(e["ts"], 1) for e in events] +
                [(e["ts"] + e["dur"], -1) for e in events])
running = most = 0
for _, step in points:
    running += step
    most = max(most, running)
print("%d jobs, at most %d at once" % (len(events), most))
