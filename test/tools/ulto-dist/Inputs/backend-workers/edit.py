import filecmp, glob, json, os, shutil, sys

def job(jobs, stem):
    return [j for j in jobs["jobs"] if j["inputs"][0] == stem + ".o"][0]

what = sys.argv[1]
if what in ("mllvm", "fail"):
    # The job list with square.o's job inlining nothing, or circle.o's job
    # given an option clang rejects.
    with open(sys.argv[2]) as f:
        jobs = json.load(f)
    if what == "mllvm":
        job(jobs, "square")["args"] += ["-mllvm", "-inline-threshold=-1000"]
    else:
        job(jobs, "circle")["args"] += ["-fno-such-flag"]
    json.dump(jobs, sys.stdout)
elif what == "keep":
    # Moves the objects the jobs wrote to directory ARGV[2], by module.
    os.mkdir(sys.argv[2])
    for o in glob.glob("*.native.o"):
        shutil.move(o, os.path.join(sys.argv[2], o.split(".")[0]))
elif what == "same":
    # Which objects of directories ARGV[3:] are the same bytes as ARGV[2]'s.
    first = sys.argv[2]
    for d in sys.argv[3:]:
        names = sorted(os.listdir(d))
        same = [n for n in names
                if filecmp.cmp(os.path.join(first, n), os.path.join(d, n),
                               shallow=False)]
        print("%s: %s the same as in %s" % (d, " ".join(same), first))
