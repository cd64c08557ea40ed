import json, os, sys

command, path = sys.argv[1], sys.argv[2]
with open(path) as f:
    jobs = json.load(f)
if command == "show":
    # Each job's module, its imports, and whether its output exists.
    for job in sorted(jobs["jobs"], key=lambda job: job["inputs"][0]):
        exists = os.path.exists(job["outputs"][0])
        print("%s: imports %s, %s" % (job["inputs"][0], job["inputs"][2:],
                                      "output" if exists else "no output"))
elif command == "compiler":
    # The same list, with another compiler.
    jobs["common"]["args"][0] = sys.argv[3]
    json.dump(jobs, sys.stdout)
