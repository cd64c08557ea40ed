# The worker services of a test: the `ulto workers` processes whose
# environment has ULTO_TEST_SERVICE=TAG (the test's own, so that no other
# test's links reach them).
#
#   worker-service.py pid TAG         waits, 30 s at most, for one, and prints
#                                     its process ID: it listens by then
#   worker-service.py pid-now TAG     prints the process ID of each service
#                                     of TAG, started or starting, at once
#   worker-service.py gone FILE       waits, 20 s at most, until the process
#                                     whose ID FILE holds has ended; prints
#                                     "gone" or "running"
#   worker-service.py kill TAG        SIGKILL to each, by its process ID, and
#                                     to those of tags under TAG/
#   worker-service.py run -- COMMAND...
#       runs COMMAND as the actions below run theirs: with the environment
#       of this script's interpreter (a python3 wrapper may add to it), which
#       the service's name depends on
#   worker-service.py hold N -- COMMAND...
#       runs COMMAND while N sockets of this process listen as worker
#       services of the user would (ulto-workers-<uid>-<secret>-...)
#   worker-service.py kill-mid-link TAG FIFO -- LINKER-COMMAND...
#       starts the link, waits until its jobs read FIFO (a sample profile
#       nobody has written), kills the service, then writes a profile (of a
#       function g) to FIFO for each job that opens it, until the link ends;
#       prints how the link ended and what it printed.
import os
import signal
import subprocess
import sys
import time


def service_prefix():
    """What the user's services' names begin with: the user's ID and secret
    (WorkerService.h), made here if no link has made it yet."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        directory = os.path.join(runtime, "ulto-services")
    else:
        temp = next((os.environ[v] for v in ("TMPDIR", "TMP", "TEMP", "TEMPDIR")
                     if os.environ.get(v)), "/tmp")
        directory = os.path.join(temp, "ulto-services-%d" % os.geteuid())
    os.makedirs(directory, mode=0o700, exist_ok=True)
    path = os.path.join(directory, "secret")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                     0o600)
        os.write(fd, os.urandom(8).hex().encode())
        os.close(fd)
    except FileExistsError:
        pass
    with open(path) as f:
        return "ulto-workers-%d-%s-" % (os.geteuid(), f.read(16))


def services(tag, below=False):
    mark = ("ULTO_TEST_SERVICE=" + tag).encode()
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/comm" % pid) as f:
                if f.read().rstrip("\n") != "ulto workers":
                    continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                for variable in f.read().split(b"\0"):
                    if variable == mark or (
                            below and variable.startswith(mark + b"/")):
                        found.append(int(pid))
        except OSError:
            pass
    return found


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def oldest(pids):
    """The service itself, not one of its workers: the parent of the rest."""
    def parent(pid):
        with open("/proc/%d/stat" % pid) as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    return [pid for pid in pids if parent(pid) not in pids]


def kill_all(tag):
    for pid in services(tag, below=True):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def kill_mid_link(tag, fifo, linker):
    link = subprocess.Popen(linker, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    reader = None
    while reader is None and time.time() < deadline:
        try:
            reader = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.02)
    if reader is None:
        print("no job ran")
        link.kill()
        return
    kill_all(tag)
    # Each job the link runs itself opens the profile again, maybe before
    # this end has closed: it reads the profile then too.
    while True:
        try:
            os.write(reader, b"g:1:1\n 1: 1\n")
        except OSError:
            pass
        os.close(reader)
        reader = None
        while reader is None and link.poll() is None:
            try:
                reader = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                time.sleep(0.01)
        if reader is None:
            break
    output = link.stdout.read().decode()
    print("linker: exit %d" % link.returncode)
    sys.stdout.write(output)


action = sys.argv[1]
if action == "pid":
    deadline = time.time() + 30
    while not oldest(services(sys.argv[2])) and time.time() < deadline:
        time.sleep(0.02)
    print(" ".join(str(pid) for pid in oldest(services(sys.argv[2]))))
elif action == "pid-now":
    mark = ("ULTO_TEST_SERVICE=" + sys.argv[2]).encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if b"--serve-workers=" not in f.read():
                    continue
            with open("/proc/%s/environ" % pid, "rb") as f:
                if mark in f.read().split(b"\0"):
                    print(pid)
        except OSError:
            pass
elif action == "gone":
    with open(sys.argv[2]) as f:
        pid = int(f.read())
    deadline = time.time() + 20
    while alive(pid) and time.time() < deadline:
        time.sleep(0.05)
    print("running" if alive(pid) else "gone")
elif action == "kill":
    kill_all(sys.argv[2])
elif action == "run":
    sys.exit(subprocess.call(sys.argv[sys.argv.index("--") + 1:]))
elif action == "hold":
    import socket
    held = []
    for i in range(int(sys.argv[2])):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        s.bind("\0%sheld-%d-%d" % (service_prefix(), os.getpid(), i))
        s.listen()
        held.append(s)
    sys.exit(subprocess.call(sys.argv[sys.argv.index("--") + 1:]))
elif action == "kill-mid-link":
    split = sys.argv.index("--")
    kill_mid_link(sys.argv[2], sys.argv[3], sys.argv[split + 1:])
