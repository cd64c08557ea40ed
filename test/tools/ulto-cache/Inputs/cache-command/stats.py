# What ulto cache stats should print for DIR, counted independently.
import glob, json, os, sys

directory = sys.argv[1]
entries = glob.glob(os.path.join(directory, "llvmcache-*"))
size = sum(os.path.getsize(entry) for entry in entries)
if "--json" in sys.argv:
    print(json.dumps({"directory": directory, "entries": len(entries), "bytes": size},
                     separators=(",", ":")))
else:
    print("directory: %s\nentries:   %d\nbytes:     %d" % (directory, len(entries), size))
