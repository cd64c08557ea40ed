# Cancels a distributed link while a backend job runs, and reports what is
# left of the link.
#
#   cancel-link.py ACTION LINKDIR [options] INPUT... -- LINKER-COMMAND...
#
# Starts the linker, whose output goes to LINKDIR, and waits until a job is
# running: one has opened the FIFO given by --fifo (nothing is ever written
# to it, so the job blocks reading it), or a file has appeared in the
# directory given by --started; and, with --objects N, until N objects
# (*.native.o) are in LINKDIR. Then ACTION:
#   kill-linker  SIGKILL to the linker;
#   term-dist    SIGTERM to `ulto dist` alone;
#   ctrl-c       SIGINT to the link's process group, as a terminal's Ctrl-C.
# Then waits, for ten seconds at most, until no process of the link remains
# (none names a file in LINKDIR) and LINKDIR holds the INPUTs only (with
# --linker-keeps: no object); prints how the linker ended, what remains,
# whether the INPUTs changed, with --fifo-readers how many processes still
# read the FIFO (a job in a worker service names no file in LINKDIR), and
# what the link printed. With --fifo-readers, it first prints which programs
# (their names, as ps shows them) read the FIFO. Whatever process remains is killed afterwards.
import argparse
import hashlib
import os
import signal
import subprocess
import sys
import time

split = sys.argv.index("--")
parser = argparse.ArgumentParser()
parser.add_argument("action", choices=["kill-linker", "term-dist", "ctrl-c"])
parser.add_argument("linkdir")
parser.add_argument("--fifo")
parser.add_argument("--started")
parser.add_argument("--objects", type=int, default=0)
parser.add_argument("--linker-keeps", action="store_true")
parser.add_argument("--fifo-readers", action="store_true")
parser.add_argument("inputs", nargs="+")
args = parser.parse_args(sys.argv[1:split])
linker = sys.argv[split + 1:]
linkdir = os.path.abspath(args.linkdir)


def digests():
    return {name: hashlib.sha256(
        open(os.path.join(linkdir, name), "rb").read()).hexdigest()
        for name in args.inputs}


def cmdline(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read().split(b"\0")
    except OSError:
        return []


def processes():
    """The link's processes: those naming a file in LINKDIR (zombies name
    nothing)."""
    mark = (linkdir + "/").encode()
    return {int(pid): b" ".join(cmdline(pid)).decode(errors="replace")
            for pid in os.listdir("/proc")
            if pid.isdigit() and int(pid) != os.getpid()
            and any(mark in arg for arg in cmdline(pid))}


def comm(pid):
    try:
        with open("/proc/%s/comm" % pid) as f:
            return f.read().rstrip("\n")
    except OSError:
        return ""


def is_ulto_dist(pid):
    """`ulto dist`, started as `ulto` or forked from ld.ulto (which names
    the child "ulto dist")."""
    return (comm(pid) == "ulto dist" or
            [os.path.basename(a) for a in cmdline(pid)[:2]] == [b"ulto", b"dist"])


def children(parent):
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % pid) as f:
                stat = f.read()
        except OSError:
            continue
        # The parent's ID is the second field after the command's ")".
        if int(stat[stat.rindex(")") + 2:].split()[1]) == parent:
            found.append(int(pid))
    return found


def fifo_readers():
    """The processes that have the FIFO open, but this one."""
    fifo = os.path.abspath(args.fifo)
    readers = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            fds = os.listdir("/proc/%s/fd" % pid)
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink("/proc/%s/fd/%s" % (pid, fd)) == fifo:
                    readers.add(int(pid))
            except OSError:
                pass
    return readers


def objects():
    return len([name for name in os.listdir(linkdir)
                if name.endswith(".native.o")])


def wait_for_job(deadline):
    """The FIFO's write end, held open, once a job reads it (-1 without a
    FIFO); None if no job ran before the deadline."""
    fifo = None if args.fifo else -1
    while time.time() < deadline:
        if fifo is None:
            try:
                fifo = os.open(args.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                pass
        started = fifo is not None and (not args.started or
                                        os.listdir(args.started))
        if started and objects() >= args.objects:
            return fifo
        time.sleep(0.02)
    return None


before = digests()
log = open("cancel-link.log", "w+")
link = subprocess.Popen(
    linker, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
# The thin link comes first: allow for a loaded machine.
fifo = wait_for_job(time.time() + 120)
if fifo is None:
    print("no job ran")
    os.killpg(link.pid, signal.SIGKILL)
    sys.exit(1)

if args.fifo_readers:
    # Our open returns once a reader is in its open(), which puts the
    # descriptor in the reader's table a moment later.
    readers, deadline = fifo_readers(), time.time() + 10
    while not readers and time.time() < deadline:
        time.sleep(0.01)
        readers = fifo_readers()
    print("FIFO read by: " + ", ".join(sorted(set(comm(pid) for pid in readers))))
if args.action == "kill-linker":
    link.kill()
elif args.action == "term-dist":
    # `ulto dist` itself, not ulto-dist-attach, which hands it lld's command
    # line when ld.ulto started it early (AttachedCommand.h).
    dist = [pid for pid in children(link.pid) if is_ulto_dist(pid)]
    print("ulto dist processes: %d" % len(dist))
    os.kill(dist[0], signal.SIGTERM)
else:
    os.killpg(link.pid, signal.SIGINT)
status = link.wait(timeout=60)
print("linker: " + ("signal " + signal.Signals(-status).name if status < 0
                    else "exit %d" % status))

deadline = time.time() + 10
while True:
    left = processes()
    files = sorted(os.listdir(linkdir))
    done = objects() == 0 if args.linker_keeps else files == sorted(args.inputs)
    if (not left and done) or time.time() > deadline:
        break
    time.sleep(0.05)
print("processes left: " + (", ".join(sorted(left.values())) or "none"))
print("files left: " + " ".join(files))
print("inputs: " + ("unchanged" if digests() == before else "changed"))
if args.fifo_readers:
    print("FIFO readers: %d" % len(fifo_readers()))
for pid in left:
    os.kill(pid, signal.SIGKILL)
if fifo >= 0:
    os.close(fifo)
log.seek(0)
sys.stdout.write(log.read())
