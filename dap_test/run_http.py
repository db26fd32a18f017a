#!/usr/bin/env python3
"""run_http.py: start the loopback DAP2 server, run a test against it, stop it.

    run_http.py c TST_HTTP DATADIR WORKDIR     the HTTP layer's C test
    run_http.py ncdump DATADIR WORKDIR         the reference ncdump (4.9.0)
                                               against the server

Both write the settings (.ncrc keys scoped to the server's URL, .netrc files)
that the checks need into WORKDIR, and stop the server when they end, even on
failure (it also stops itself after a bounded time).  Exit status: the C
test's, or the nctst harness's for the ncdump checks; 77 when a peer is
missing.
"""
import contextlib
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "nc_test"))
import nctst  # noqa: E402

USER, PASSWORD = "tiggeruser", "tigger"


def make_cert(workdir):
    """A self-signed certificate for 127.0.0.1: (cert, key), or None."""
    cert, key = os.path.join(workdir, "cert.pem"), os.path.join(workdir, "key.pem")
    if not shutil.which("openssl"):
        return None
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", key, "-out", cert], capture_output=True)
    return (cert, key) if r.returncode == 0 else None


@contextlib.contextmanager
def server(datadir, workdir, lifetime=90, tls=None):
    portfile = os.path.join(workdir, "port")
    if os.path.exists(portfile):
        os.remove(portfile)
    cmd = [sys.executable, os.path.join(HERE, "dapserver.py"), "--data", datadir,
           "--portfile", portfile, "--lifetime", str(lifetime),
           "--user", USER, "--password", PASSWORD]
    if tls:
        cmd += ["--tls", tls[0], tls[1]]
    proc = subprocess.Popen(cmd)
    try:
        deadline = time.time() + 15
        while not os.path.exists(portfile):
            if proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("dapserver did not start")
            time.sleep(0.05)
        with open(portfile) as f:
            port, login, tlsport = (int(x) for x in f.read().split())
        yield port, login, tlsport
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o600)


def settings(workdir, port, tlsport, cert):
    """The rc file tst_http.c's header describes, and its .netrc files."""
    write(os.path.join(workdir, "netrc"), "machine localhost login %s password %s\n" % (USER, PASSWORD))
    write(os.path.join(workdir, "netrc_data"),
          "machine 127.0.0.1 login %s password %s\n" % (USER, PASSWORD))
    jar = os.path.join(workdir, "jar")
    if os.path.exists(jar):
        os.remove(jar)
    hp = "127.0.0.1:%d" % port
    rc = "\n".join([
        "# settings of run_http.py",
        "HTTP.NETRC=%s" % os.path.join(workdir, "netrc"),
        "[%s/stall]HTTP.TIMEOUT=2" % hp,
        "[%s/stallbody]HTTP.TIMEOUT=2" % hp,
        "[%s/auth/gzip]HTTP.CREDENTIALS.USERPASSWORD=%s:%s" % (hp, USER, PASSWORD),
        "[%s/auth/deflate]HTTP.NETRC=%s" % (hp, os.path.join(workdir, "netrc_data")),
        "[%s/auth/k-nonetrc]HTTP.NETRC=" % hp,
        "[%s/setcookie]HTTP.COOKIEJAR=%s" % (hp, jar),
        "[%s/_echo]HTTP.USERAGENT=tst_http/1" % hp,
        "[nowhere.invalid:9]HTTP.PROXY.SERVER=http://%s" % hp,
        "[127.0.0.1:%d/k-noverify]HTTP.SSL.VERIFYPEER=0" % tlsport,
        "[127.0.0.1:%d/k-noverify]HTTP.SSL.VERIFYHOST=0" % tlsport,
        "[127.0.0.1:%d/k-ca]HTTP.SSL.CAINFO=%s" % (tlsport, cert or ""),
        "[127.0.0.1:%d/k-validate]HTTP.SSL.VALIDATE=1" % tlsport,
        "[127.0.0.1:%d/k-validate]HTTP.SSL.CAINFO=%s" % (tlsport, cert or ""),
        "HTTP.KEEPALIVE=on",
        "HTTP.READ.BUFFERSIZE=max",
        ""])
    path = os.path.join(workdir, "ncrc")
    write(path, rc)
    return path


def run_c(exe, datadir, workdir):
    tls = make_cert(workdir)
    with server(datadir, workdir, tls=tls) as (port, login, tlsport):
        # $HOME/.netrc has the data host: never read unless HTTP.NETRC names it.
        home = os.path.join(workdir, "home")
        os.makedirs(home, exist_ok=True)
        write(os.path.join(home, ".netrc"),
              "machine 127.0.0.1 login %s password %s\n" % (USER, PASSWORD))
        env = dict(os.environ, HOME=home)
        env["NCRCENV_RC"] = settings(workdir, port, tlsport, tls[0] if tls else None)
        env.pop("NCRCENV_IGNORE", None)
        for k in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
            env.pop(k, None)
        if os.path.exists(os.path.join(HERE, "dap2subset.py")):
            env["TST_HTTP_SUBSET"] = "1"
        r = subprocess.run([exe, str(port), str(login), datadir, workdir, str(tlsport)], env=env,
                           timeout=120)
        return r.returncode


def ncdump(args, env, cwd):
    r = subprocess.run(["/usr/bin/ncdump"] + args, env=env, cwd=cwd, capture_output=True,
                       timeout=60)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def run_ncdump(datadir, workdir):
    if not os.access("/usr/bin/ncdump", os.X_OK):
        nctst.skip("no reference ncdump")
    home = os.path.join(workdir, "home")
    shutil.rmtree(home, ignore_errors=True)
    os.makedirs(home)
    with server(datadir, workdir) as (port, login, _):
        env = dict(os.environ, HOME=home)
        for k in ("NCRCENV_RC", "NCRCENV_IGNORE", "NCRCENV_HOME", "DAPRCFILE"):
            env.pop(k, None)
        # (datasets with sequences need constraints: they wait for dap2subset.py)
        names = ["123.nc", "test.01", "test.06", "fnoc1.nc", "synth1", "test.21", "ingrid"]
        for name in names:
            want = ncdump(["-h", "file://%s/%s" % (datadir, name)], env, home)
            got = ncdump(["-h", "http://127.0.0.1:%d/%s" % (port, name)], env, home)
            nctst.check(got[0] == want[0] and got[1] == want[1],
                        "%s: ncdump -h over HTTP differs from file://\n%s\n%s" % (name, got, want))
        # gzip and redirects as the reference sees them.
        want = ncdump(["-h", "file://%s/123.nc" % datadir], env, home)
        got = ncdump(["-h", "http://127.0.0.1:%d/r302/gzip/123.nc" % port], env, home)
        nctst.check(got[0] == 0 and got[1] == want[1], "redirect+gzip: %s" % (got,))
        # Basic auth with user:password in the URL.
        got = ncdump(["-h", "http://%s:%s@127.0.0.1:%d/auth/123.nc" % (USER, PASSWORD, port)],
                     env, home)
        nctst.check(got[0] == 0 and got[1] == want[1], "URL credentials: %s" % (got,))
        got = ncdump(["-h", "http://127.0.0.1:%d/auth/123.nc" % port], env, home)
        nctst.check(got[0] != 0, "no credentials must fail: %s" % (got,))
        # Earthdata-style login: .netrc for the login host, a cookie jar.
        write(os.path.join(home, "netrc"), "machine localhost login %s password %s\n" % (USER, PASSWORD))
        rc = "HTTP.NETRC=%s\nHTTP.COOKIEJAR=%s\n" % (os.path.join(home, "netrc"),
                                                     os.path.join(home, "cookies"))
        write(os.path.join(home, ".dodsrc"), rc)
        write(os.path.join(home, ".ncrc"), rc)
        got = ncdump(["-h", "http://127.0.0.1:%d/edl/123.nc" % port], env, home)
        nctst.check(got[0] == 0 and got[1] == want[1], "Earthdata flow: %s" % (got,))
        # The error each status gives upstream: what nchttp.h returns (the
        # texts of nc_strerror for those codes).
        for path, text in (("e404/123.nc", "NetCDF: file not found"),
                           ("nosuchdataset", "NetCDF: file not found"),
                           ("e401/123.nc", "NetCDF: Access failure"),
                           ("auth/123.nc", "NetCDF: Access failure"),
                           ("e400/123.nc", "NetCDF: Access failure"),
                           ("e403/123.nc", "NetCDF: Authorization failure"),
                           ("e500/123.nc", "NetCDF: DAP server error"),
                           ("e503/123.nc", "NetCDF: DAP server error"),
                           ("daperr/123.nc", "NetCDF: DAP server error")):
            got = ncdump(["-h", "http://127.0.0.1:%d/%s" % (port, path)], env, home)
            nctst.check(got[0] != 0 and got[2].rstrip().endswith(text),
                        "%s: want %r, got %s" % (path, text, got[2]))
        got = ncdump(["-h", "http://127.0.0.1:1/x"], env, home)
        nctst.check(got[0] != 0 and got[2].rstrip().endswith("NetCDF: I/O failure"),
                    "no connection: %s" % (got[2],))
    nctst.finish("dap_http_ncdump")


def main():
    data = sys.argv[3] if len(sys.argv) > 3 and sys.argv[1] == "c" else (sys.argv[2] if len(sys.argv) > 2 else "")
    if data and not os.path.isdir(data):
        nctst.skip("no DAP2 test data at %s" % data)
    if len(sys.argv) >= 2 and sys.argv[1] == "c" and len(sys.argv) == 5:
        os.makedirs(sys.argv[4], exist_ok=True)
        return run_c(sys.argv[2], os.path.abspath(sys.argv[3]), os.path.abspath(sys.argv[4]))
    if len(sys.argv) >= 2 and sys.argv[1] == "ncdump" and len(sys.argv) == 4:
        os.makedirs(sys.argv[3], exist_ok=True)
        return run_ncdump(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]))
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
