# Helpers for the job list LIST and its cache, by module name.
import glob, json, os, shutil, sys

def jobs(path):
    with open(path) as f:
        return sorted(json.load(f)["jobs"], key=lambda job: job["inputs"][0])

def read(path):
    with open(path, "rb") as f:
        return f.read()

def entry_of(cache, object):
    entries = [entry for entry in glob.glob(os.path.join(cache, "llvmcache-*"))
               if read(entry).startswith(object)]
    assert len(entries) == 1, entries
    return entries[0]

command = sys.argv[1]
if command == "save":
    # save LIST DIR: copy each job's object to DIR/MODULE.
    for job in jobs(sys.argv[2]):
        shutil.copyfile(job["outputs"][0], os.path.join(sys.argv[3], job["inputs"][0]))
elif command == "compare":
    # compare LIST DIR: is each job's object the one saved in DIR?
    for job in jobs(sys.argv[2]):
        same = read(job["outputs"][0]) == read(os.path.join(sys.argv[3], job["inputs"][0]))
        print("%s: %s" % (job["inputs"][0], "same object" if same else "different object"))
elif command == "damage":
    # damage LIST DIR CACHE MODULE HOW: damage the cache entry that holds the
    # object of MODULE's job (saved in DIR): the entry is the object, then a
    # trailer.
    object = read(os.path.join(sys.argv[3], sys.argv[5]))
    entry, how = entry_of(sys.argv[4], object), sys.argv[6]
    data = bytearray(read(entry))
    if how == "flip":
        data[len(object) // 2] ^= 0x01
    elif how == "truncate":
        data = data[:len(object) + 10]
    elif how == "empty":
        data = b""
    with open(entry, "wb") as f:
        f.write(data)
    print("damaged the entry of %s" % sys.argv[5])
elif command == "swap":
    # swap LIST DIR CACHE FROM TO: copy the entry of FROM's job over TO's.
    source, target = (entry_of(sys.argv[4], read(os.path.join(sys.argv[3], m)))
                      for m in sys.argv[5:7])
    shutil.copyfile(source, target)
    print("copied the entry of %s over that of %s" % (sys.argv[5], sys.argv[6]))
elif command == "executed":
    # executed TRACE: the modules whose jobs ran the compiler, from a
    # --time-trace file.
    with open(sys.argv[2]) as f:
        trace = json.load(f)
    for module in sorted(event["args"]["detail"] for event in trace["traceEvents"]
                         if event["name"] == "execute"):
        print("executed %s" % module)
