package pysandbox

import "github.com/artist-rl/artist/envs"

// hostile are programs that try to reach outside the jail or to exhaust
// it. In an input, %[1]q is a file path on the host that must never be
// created and %[2]q the host folder it is in.
var hostile = []struct {
	name, input string
	status      envs.Status
	message     string // prefix of Outcome.Message
	stdout      string // the exact output, when not empty
}{
	{"read /etc/passwd", "print(open('/etc/passwd').read())", envs.StatusError, "FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'", ""},
	{"write the host folder", "open(%[1]q, 'w').write('x')", envs.StatusError, "FileNotFoundError: [Errno 2]", ""},
	{"see the host folder", "import os\nprint(os.path.exists(%[2]q))", envs.StatusOK, "", "False\n"},
	{"write /usr", "open('/usr/pwned', 'w')", envs.StatusError, "OSError: [Errno 30] Read-only file system", ""},
	{"write the root", "open('/pwned', 'w')", envs.StatusError, "OSError: [Errno 30] Read-only file system", ""},
	{"write /dev/shm", "open('/dev/shm/pwned', 'w')", envs.StatusError, "OSError: [Errno 30] Read-only file system", ""},
	{"fill /tmp", "open('/tmp/big', 'wb').write(b'x' * (48 << 20))", envs.StatusError, "OSError: [Errno 27] File too large", ""},
	{"list the root", "import os\nprint(sorted(set(os.listdir('/')) - {'bin', 'dev', 'etc', 'lib', 'lib32', 'lib64', 'libx32', 'proc', 'sbin', 'tmp', 'usr'}))", envs.StatusOK, "", "[]\n"},
	{"read the environment", "import os\nprint(sorted(os.environ))", envs.StatusOK, "", "['HOME', 'LANG', 'MKL_NUM_THREADS', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'PATH', 'PWD', 'PYTHONHASHSEED']\n"},
	{"read /proc/self/environ", "print(open('/proc/self/environ', 'rb').read())", envs.StatusError, "PermissionError: [Errno 13]", ""},
	{"read the driver's environment", "print(open('/proc/1/environ', 'rb').read())", envs.StatusError, "PermissionError: [Errno 13]", ""},
	{"inherited descriptors", "import os\nfor f in sorted(os.listdir('/proc/self/fd'), key=int)[:5]:\n    print(f, os.readlink('/proc/self/fd/' + f).split(':')[0])", envs.StatusOK, "", "0 /dev/null\n1 pipe\n2 pipe\n3 pipe\n4 pipe\n"},
	{"count descriptors", "import os\nprint(len(os.listdir('/proc/self/fd')))", envs.StatusOK, "", "6\n"},
	{"socket AF_INET to loopback", "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM).connect(('127.0.0.1', 22))", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"socket AF_INET6", "import socket\nsocket.socket(socket.AF_INET6, socket.SOCK_DGRAM)", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"socket AF_UNIX", "import socket\nsocket.socket(socket.AF_UNIX).connect('/run/docker.sock')", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"socket AF_NETLINK", "import socket\nsocket.socket(socket.AF_NETLINK, socket.SOCK_RAW)", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"socketpair", "import socket\nsocket.socketpair()", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"resolve a name", "import socket\nsocket.getaddrinfo('example.com', 80)", envs.StatusError, "socket.gaierror:", ""},
	{"fetch a URL", "import urllib.request\nurllib.request.urlopen('http://example.com', timeout=1)", envs.StatusError, "urllib.error.URLError:", ""},
	{"subprocess", "import subprocess\nsubprocess.run(['touch', %[1]q])", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"os.system", "import os\nprint(os.system('touch /tmp/x'))", envs.StatusOK, "", "32512\n"},
	{"os.fork", "import os\nos.fork()", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"fork bomb", "import os\nwhile True:\n    os.fork()", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"os.execv", "import os\nos.execv('/bin/sh', ['sh', '-c', 'true'])", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"thread bomb", "import threading, time\nts = []\nwhile True:\n    t = threading.Thread(target=time.sleep, args=(10,))\n    t.start()\n    ts.append(t)", envs.StatusError, "RuntimeError: can't start new thread", ""},
	{"ctypes system", "import ctypes\nprint(ctypes.CDLL(None).system(b'touch /tmp/x'))", envs.StatusOK, "", "32512\n"},
	{"ctypes fork", "import ctypes\nprint(ctypes.CDLL(None).fork())", envs.StatusOK, "", "-1\n"},
	{"ctypes unshare", "import ctypes\nprint(ctypes.CDLL(None).unshare(0x10000000))", envs.StatusOK, "", "-1\n"},
	{"ctypes ptrace", "import ctypes\nprint(ctypes.CDLL(None).ptrace(16, 1, 0, 0))", envs.StatusOK, "", "-1\n"},
	{"ctypes mount", "import ctypes\nprint(ctypes.CDLL(None).mount(b'none', b'/tmp', b'tmpfs', 0, None))", envs.StatusOK, "", "-1\n"},
	{"kill the parent", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"kill process 1", "import os\nos.kill(1, 9)", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"kill all", "import os\nos.kill(-1, 9)", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"SIGIO to process 1", "import fcntl\nfcntl.fcntl(1, fcntl.F_SETOWN, 1)", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"SIGIO owner by ioctl", "import fcntl, struct\nfcntl.ioctl(1, 0x8901, struct.pack('i', 1))", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"ctypes F_SETOWN_EX", "import ctypes\nprint(ctypes.CDLL(None).fcntl(1, 15, (ctypes.c_int * 2)(1, 1)))", envs.StatusOK, "", "-1\n"},
	{"ctypes kill", "import ctypes\nprint(ctypes.CDLL(None).kill(1, 9))", envs.StatusOK, "", "-1\n"},
	{"escape through /proc/1/root", "import os\nprint(os.listdir('/proc/1/root/'))", envs.StatusError, "PermissionError: [Errno 13]", ""},
	{"escape through /proc/self/root", "import os\nprint(os.path.exists('/proc/self/root' + %[2]q))", envs.StatusOK, "", "False\n"},
	{"raise the memory limit", "import resource\nresource.setrlimit(resource.RLIMIT_AS, (resource.RLIM_INFINITY,) * 2)", envs.StatusError, "ValueError: not allowed to raise maximum limit", ""},
	{"raise the CPU limit", "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (resource.RLIM_INFINITY,) * 2)", envs.StatusError, "ValueError: not allowed to raise maximum limit", ""},
	{"lower the driver's limits", "import resource\nresource.prlimit(1, resource.RLIMIT_AS, (1, 1))", envs.StatusError, "PermissionError: [Errno 1] Operation not permitted", ""},
	{"allocate a terabyte", "x = bytearray(1 << 40)", envs.StatusError, "memory limit exceeded", ""},
	{"runaway append", "a = []\nwhile True:\n    a.append(bytearray(1 << 20))", envs.StatusError, "memory limit exceeded", ""},
	{"numpy terabyte", "import numpy as np\nnp.ones((1 << 20, 1 << 20))", envs.StatusError, "memory limit exceeded", ""},
	{"infinite loop", "while True:\n    pass", envs.StatusTimeout, "timeout after 3s", ""},
	{"long native call", "import math\nprint(math.factorial(10**8) % 7)", envs.StatusTimeout, "timeout after 3s", ""},
	{"ignore signals and sleep", "import signal, time\nfor s in (signal.SIGTERM, signal.SIGINT):\n    signal.signal(s, signal.SIG_IGN)\ntime.sleep(60)", envs.StatusTimeout, "timeout after 3s", ""},
	{"print loop", "while True:\n    print('spam')", envs.StatusError, "output limit exceeded", ""},
	{"one huge print", "print('x' * (8 << 20))", envs.StatusError, "output limit exceeded", ""},
	{"stderr flood", "import sys\nwhile True:\n    sys.stderr.write('spam\\n')", envs.StatusError, "output limit exceeded", ""},
	{"segfault", "import ctypes\nctypes.string_at(0)", envs.StatusError, "runner killed by signal SIGSEGV", ""},
	{"os._exit", "import os\nos._exit(0)", envs.StatusError, "runner exited with status 0", ""},
	{"deep recursion", "def f(n):\n    return f(n + 1)\nf(0)", envs.StatusError, "RecursionError: maximum recursion depth exceeded", ""},
	{"import requests", "import requests", envs.StatusError, "ModuleNotFoundError: module 'requests' is not available in the sandbox; available: the standard library", ""},
	{"import torch", "import torch.nn", envs.StatusError, "ModuleNotFoundError: module 'torch' is not available in the sandbox", ""},
}
