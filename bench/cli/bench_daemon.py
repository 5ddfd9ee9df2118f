"""bench_daemon.py - what the CLI benchmarks share: a private agtmuxd started,
asked whether it answers, and stopped. Python 3 stdlib."""
import signal
import socket
import subprocess
import sys
import time


def call(sock, method, path, body=b""):
    """One HTTP request to agtmuxd on `sock`; the raw answer (head and body)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(sock)
    s.sendall(("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\n"
               "Content-Length: %d\r\n\r\n" % (method, path, len(body))).encode() + body)
    out = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            break
        out += chunk
    s.close()
    return out


def health(sock):
    """True when agtmuxd answers GET /v1/health on `sock`."""
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(1)
        s.connect(sock)
        s.sendall(b"GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        ok = s.recv(64).startswith(b"HTTP/1.1 200")
        s.close()
        return ok
    except OSError:
        return False


def start(argv, env, sock, log_path):
    """Starts agtmuxd (argv) and waits up to 30 s for it to answer on `sock`."""
    log = open(log_path, "w")
    daemon = subprocess.Popen(argv, env=env, stdout=log, stderr=subprocess.STDOUT)
    end = time.monotonic() + 30
    while time.monotonic() < end and not health(sock):
        if daemon.poll() is not None:
            sys.exit("agtmuxd exited with %d, see %s" % (daemon.returncode, log_path))
        time.sleep(0.1)
    return daemon


def stop(daemon):
    """SIGTERM, then SIGKILL after 10 s; None is fine."""
    if daemon and daemon.poll() is None:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait()
