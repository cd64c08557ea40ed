# outputs.py LIST: whether each job's output exists.
# outputs.py LIST COMPILER: the list with another compiler, on stdout.
import json, os, sys

with open(sys.argv[1]) as f:
    jobs = json.load(f)
if len(sys.argv) > 2:
    jobs["common"]["args"][0] = sys.argv[2]
    json.dump(jobs, sys.stdout)
else:
    for job in sorted(jobs["jobs"], key=lambda job: job["inputs"][0]):
        exists = os.path.exists(job["outputs"][0])
        print("%s: %s" % (job["inputs"][0], "output" if exists else "no output"))
