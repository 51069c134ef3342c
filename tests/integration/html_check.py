#!/usr/bin/env python3
"""html_check.py - renders an HTML report in headless Chromium and checks it.

    html_check.py HTML [--screenshot PNG] [--min-plots N] [--line-color RRGGBB]
    html_check.py --self-test

One Chromium run (--dump-dom and --screenshot together, a private profile in
a temporary folder, all host names resolved to nothing, a net log kept) and
these checks, each failure named by its tag:

  static   the file itself: UTF-8, no <script>, <link>, <img>, <iframe>,
           <object>, <embed> (and the like), no src=/href= that leaves the
           page (only "#fragment" links), no event handler attributes, no
           url(...) or @import in CSS. A URL in the text (a command that
           curls an endpoint) is text, not a request, and passes.
  console  Chromium's log (stderr) has no console message ("CONSOLE" or
           "Uncaught"): the page has no script, so any message (a CSP or
           resource error, an exception) is a fault.
  network  the net log has no request made for the page (a request whose
           initiator or network isolation key is the file:// page). The
           browser's own background requests (initiator "not an origin")
           are not the page's and are ignored.
  svg      in the DOM after rendering, every <svg> has a <path> whose d is
           well-formed path data with at least 2 points, or is a plot that
           declares it has no data (class "nodata" and the text "no data");
           at least --min-plots plots are drawn.
  blank    the screenshot (PNG, decoded here with zlib: 8-bit RGB/RGBA,
           non-interlaced, filters 0-4) has at least MIN_CONTENT of its
           pixels away from the background colour (the most common one).
  line     the screenshot has at least MIN_LINE_PX pixels of the plot line
           colour (the stroke of the drawn paths), when a plot is drawn.

Exit status 0 when all pass, 1 with a line per failure, 2 when it cannot run
(no Chromium: install the Debian package "chromium"). --self-test feeds
pages built to fail each check and a good one (and decodes PNGs it encoded
with each filter), and exits 1 unless each is judged as it should be.
Python 3 standard library only.
"""

import argparse
import html.parser
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zlib

WINDOW_W = 1280
WINDOW_H_MIN, WINDOW_H_MAX = 900, 9000
CARD_H, PLOT_ROW_H, PAGE_H = 700, 210, 400   # rough layout, for the window height
CHROMIUM_TIMEOUT_S = 60
MIN_CONTENT = 0.005        # fraction of screenshot pixels that are not background
MIN_LINE_PX = 60           # pixels of the line colour when a plot is drawn
BG_TOLERANCE = 12          # per channel: still the background
LINE_TOLERANCE = 48        # per channel: still the line colour (anti-aliasing)
DEFAULT_LINE = "1f5fbf"
SAMPLE_STEP = 16           # grid step of the pixels that pick the background

CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
    "--hide-scrollbars", "--force-device-scale-factor=1", "--no-first-run",
    "--no-default-browser-check", "--disable-background-networking", "--disable-sync",
    "--disable-component-update", "--disable-default-apps", "--disable-extensions",
    "--disable-domain-reliability", "--disable-client-side-phishing-detection",
    "--disable-breakpad", "--mute-audio", "--metrics-recording-only",
    "--disable-dev-shm-usage",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)

FORBIDDEN_TAGS = ("script", "link", "img", "iframe", "object", "embed", "base", "frame",
                  "audio", "video", "source", "track", "image", "use", "feimage")
URL_ATTRS = ("src", "href", "xlink:href", "action", "formaction", "poster", "srcset",
             "data", "background", "ping")

PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
PATH_SEP = re.compile(r"[\s,]*")
# numbers per vertex of each path command
PATH_ARGS = {"m": 2, "l": 2, "t": 2, "h": 1, "v": 1, "c": 6, "s": 4, "q": 4, "a": 7, "z": 0}


class Failures:
    def __init__(self):
        self.items = []

    def add(self, tag, msg):
        self.items.append((tag, msg))

    def tags(self):
        return {t for t, _ in self.items}


# ---------------------------------------------------------------- static

class StaticScan(html.parser.HTMLParser):
    """Everything in the file that could fetch or run something."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad = []
        self.svgs = 0
        self.cards = 0
        self.in_style = False

    def handle_starttag(self, tag, attrs):
        if tag in FORBIDDEN_TAGS:
            self.bad.append("<%s> element" % tag)
        if tag == "svg":
            self.svgs += 1
        if tag == "section":
            self.cards += 1
        self.in_style = tag == "style"
        for name, value in attrs:
            value = value or ""
            if name in URL_ATTRS and not value.startswith("#"):
                self.bad.append('%s="%s" on <%s> leaves the page' % (name, value[:60], tag))
            if name.startswith("on"):
                self.bad.append("event handler %s on <%s>" % (name, tag))
            if name == "style":
                self.css(value)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag == "style":
            self.in_style = False

    def handle_data(self, data):
        if self.in_style:
            self.css(data)

    def css(self, text):
        low = text.lower()
        if "url(" in low or "@import" in low:
            self.bad.append("CSS that loads something: %s" % low[:60])


def check_static(text, fails):
    scan = StaticScan()
    scan.feed(text)
    scan.close()
    for b in scan.bad:
        fails.add("static", b)
    return scan


# ---------------------------------------------------------------- DOM

class PlotScan(html.parser.HTMLParser):
    """The <svg> elements of the rendered DOM, their paths and text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.svgs = []
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg":
            if self.depth == 0:
                self.svgs.append({"class": a.get("class") or "", "paths": [], "text": ""})
            self.depth += 1
        elif tag == "path" and self.depth:
            self.svgs[-1]["paths"].append(a)

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == "svg":
            self.depth -= 1

    def handle_endtag(self, tag):
        if tag == "svg" and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.svgs[-1]["text"] += data


def path_points(d):
    """Vertices in path data d, or -1 when d is not well-formed."""
    tokens = PATH_TOKEN.findall(d)
    if PATH_SEP.fullmatch(PATH_TOKEN.sub(" ", d)) is None:
        return -1
    points, cmd, nums = 0, None, 0
    for tok in tokens + ["Z"]:
        if tok.isalpha():
            if cmd is not None:
                per = PATH_ARGS[cmd]
                if per and (nums == 0 or nums % per):
                    return -1
                points += nums // per if per else 0
            elif tok.lower() != "m" and tok != "Z":
                return -1          # path data starts with a moveto
            cmd, nums = tok.lower(), 0
        else:
            if cmd is None:
                return -1
            nums += 1
    return points


def check_plots(dom, fails, min_plots):
    scan = PlotScan()
    scan.feed(dom)
    scan.close()
    drawn, nodata, colours = 0, 0, []
    for i, svg in enumerate(scan.svgs, 1):
        best = -1
        for p in svg["paths"]:
            n = path_points(p.get("d") or "")
            if n < 0:
                fails.add("svg", "svg %d: malformed path data: %.60s" % (i, p.get("d")))
            elif n >= 2 and n > best:
                best = n
                colours.append(p.get("stroke") or "")
        if best >= 2:
            drawn += 1
        elif "nodata" in svg["class"].split() and "no data" in svg["text"]:
            nodata += 1
        else:
            fails.add("svg", "svg %d (class '%s') has no path of 2 points or more"
                      % (i, svg["class"]))
    if drawn < min_plots:
        fails.add("svg", "%d plots drawn, at least %d wanted" % (drawn, min_plots))
    return len(scan.svgs), drawn, nodata, colours


# ---------------------------------------------------------------- PNG

def _swar_masks(n):
    hi = int.from_bytes(b"\x80" * n, "big")
    return hi, hi ^ int.from_bytes(b"\xff" * n, "big")


def _add_bytes(a, b, hi, lo):
    """Bytewise a + b mod 256 of two big-endian packed integers."""
    return ((a & lo) + (b & lo)) ^ ((a ^ b) & hi)


def _unfilter(ftype, raw, prev, bpp, masks):
    n = len(raw)
    if ftype == 0:
        return raw
    hi, lo = masks
    if ftype == 2:
        s = _add_bytes(int.from_bytes(raw, "big"), int.from_bytes(prev, "big"), hi, lo)
        return s.to_bytes(n, "big")
    if ftype == 1:   # a prefix sum per channel: log2(width) packed additions
        x, shift = int.from_bytes(raw, "big"), 8 * bpp
        while shift < 8 * n:
            x = _add_bytes(x, x >> shift, hi, lo)
            shift *= 2
        return x.to_bytes(n, "big")
    if ftype == 3:
        return _unfilter_average(raw, prev, bpp)
    if ftype == 4:
        return _unfilter_paeth(raw, prev, bpp)
    raise ValueError("unknown PNG filter %d" % ftype)


def _unfilter_average(raw, prev, bpp):
    out = bytearray(raw)
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        out[i] = (out[i] + ((left + prev[i]) >> 1)) & 0xFF
    return bytes(out)


def _unfilter_paeth(raw, prev, bpp):
    """The Paeth predictor, byte by byte (the slow part of decoding)."""
    out = bytearray(raw)
    for i in range(bpp):   # no left neighbour: the predictor is the byte above
        out[i] = (out[i] + prev[i]) & 0xFF
    for i in range(bpp, len(out)):
        a, b, c = out[i - bpp], prev[i], prev[i - bpp]
        pa, pb = abs(b - c), abs(a - c)
        pc = abs(a + b - c - c)
        if pa <= pb and pa <= pc:
            out[i] = (out[i] + a) & 0xFF
        elif pb <= pc:
            out[i] = (out[i] + b) & 0xFF
        else:
            out[i] = (out[i] + c) & 0xFF
    return bytes(out)


def png_rows(data):
    """(width, height, bytes per pixel, rows): rows as bytes, RGB or RGBA."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        length, ctype = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        if zlib.crc32(ctype + body) & 0xFFFFFFFF != crc:
            raise ValueError("PNG chunk %r: bad CRC" % ctype)
        if ctype == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif ctype == b"IDAT":
            idat.append(body)
        elif ctype == b"IEND":
            break
        pos += 12 + length
    if ihdr is None:
        raise ValueError("PNG without IHDR")
    w, h, depth, colour, _, _, interlace = ihdr
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise ValueError("PNG depth %d colour type %d interlace %d: only 8-bit RGB/RGBA, "
                         "not interlaced" % (depth, colour, interlace))
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("PNG data is %d bytes, want %d" % (len(raw), h * (stride + 1)))
    masks = _swar_masks(stride)
    rows, prev = [], bytes(stride)
    for y in range(h):
        off = y * (stride + 1)
        prev = _unfilter(raw[off], raw[off + 1:off + 1 + stride], prev, bpp, masks)
        rows.append(prev)
    return w, h, bpp, rows


def _near_table(v, tol):
    return bytes(1 if abs(i - v) <= tol else 0 for i in range(256))


def count_near(rows, bpp, rgb, tol):
    """Pixels whose every channel is within tol of rgb."""
    tables = [_near_table(c, tol) for c in rgb]
    total = 0
    for row in rows:
        flags = None
        for ch in range(3):
            x = int.from_bytes(row[ch::bpp].translate(tables[ch]), "big")
            flags = x if flags is None else flags & x
        total += bin(flags).count("1")
    return total


def background(rows, w, bpp):
    counts = {}
    for row in rows[::SAMPLE_STEP]:
        for x in range(0, w, SAMPLE_STEP):
            px = row[x * bpp:x * bpp + 3]
            counts[px] = counts.get(px, 0) + 1
    return tuple(max(counts, key=counts.get))


def check_png(path, fails, line_rgb, want_line):
    try:
        with open(path, "rb") as f:
            w, h, bpp, rows = png_rows(f.read())
    except (OSError, ValueError, zlib.error) as e:
        fails.add("blank", "screenshot %s: %s" % (path, e))
        return ""
    bg = background(rows, w, bpp)
    content = 1 - count_near(rows, bpp, bg, BG_TOLERANCE) / float(w * h)
    line_px = count_near(rows, bpp, line_rgb, LINE_TOLERANCE)
    if content < MIN_CONTENT:
        fails.add("blank", "the screenshot is blank: %.2f %% of %dx%d pixels differ from the "
                  "background #%02x%02x%02x (floor %.2f %%)"
                  % (content * 100, w, h, bg[0], bg[1], bg[2], MIN_CONTENT * 100))
    if want_line and line_px < MIN_LINE_PX:
        fails.add("line", "%d pixels of the line colour #%02x%02x%02x, at least %d wanted"
                  % (line_px, line_rgb[0], line_rgb[1], line_rgb[2], MIN_LINE_PX))
    return "%dx%d screenshot, %.1f %% drawn, %d pixels of the line colour" % (
        w, h, content * 100, line_px)


# ---------------------------------------------------------------- Chromium

def find_chromium():
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def run_chromium(exe, page, png, netlog, profile, height):
    cmd = [exe, *CHROMIUM_FLAGS, "--user-data-dir=" + profile, "--log-net-log=" + netlog,
           "--window-size=%d,%d" % (WINDOW_W, height), "--screenshot=" + png, "--dump-dom",
           "file://" + os.path.abspath(page)]
    # its own HOME too: Chromium keeps certificate and font caches there
    home = os.path.join(profile, "home")
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"))
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env=env)
    try:
        out, err = proc.communicate(timeout=CHROMIUM_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RuntimeError("chromium did not finish in %d s" % CHROMIUM_TIMEOUT_S)
    finally:
        try:   # helpers it left behind (crash handler, zygote)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), \
        time.monotonic() - t0


def check_console(stderr, fails):
    n = 0
    for line in stderr.splitlines():
        if "CONSOLE" in line or "Uncaught" in line:
            fails.add("console", "console message: %s" % line.strip()[:200])
            n += 1
    return n


def page_requests(netlog_path):
    """URLs the page asked for (not the browser's own background requests)."""
    try:
        with open(netlog_path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    try:
        log = json.loads(text)
    except ValueError:   # cut short when the browser was killed: close it
        try:
            log = json.loads(text.rstrip().rstrip(",") + "]}")
        except ValueError:
            return None
    urls = []
    for ev in log.get("events", []):
        p = ev.get("params") or {}
        url = p.get("url")
        if not isinstance(url, str) or url.startswith(("file:", "data:", "about:", "chrome")):
            continue
        initiator = str(p.get("initiator", ""))
        nik = str(p.get("network_isolation_key", ""))
        browser_own = initiator == "not an origin" and "file://" not in nik
        if ("initiator" in p or "network_isolation_key" in p) and not browser_own:
            if url not in urls:
                urls.append(url)
    return urls


def estimate_height(scan):
    h = PAGE_H + CARD_H * scan.cards + PLOT_ROW_H * ((scan.svgs + 1) // 2)
    return max(WINDOW_H_MIN, min(WINDOW_H_MAX, h))


def parse_rgb(text):
    m = re.fullmatch(r"#?([0-9a-fA-F]{6})", text or "")
    if not m:
        return None
    v = m.group(1)
    return tuple(int(v[i:i + 2], 16) for i in (0, 2, 4))


def check_page(page, exe, screenshot=None, min_plots=0, line_color=None, height=None):
    """Runs every check on the page; returns (Failures, summary line)."""
    fails = Failures()
    with open(page, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        fails.add("static", "not UTF-8: %s" % e)
        text = raw.decode("utf-8", "replace")
    scan = check_static(text, fails)
    tmp = tempfile.mkdtemp(prefix="html-check.")
    try:
        png = screenshot or os.path.join(tmp, "shot.png")
        rc, dom, err, secs = run_chromium(exe, page, png, os.path.join(tmp, "net.json"),
                                          os.path.join(tmp, "profile"),
                                          height or estimate_height(scan))
        if rc != 0 or not dom.strip():
            fails.add("chromium", "chromium exited with %d, DOM of %d bytes: %s"
                      % (rc, len(dom), err.strip()[-300:]))
        nconsole = check_console(err, fails)
        reqs = page_requests(os.path.join(tmp, "net.json"))
        if reqs is None:
            fails.add("network", "chromium wrote no readable net log")
            reqs = []
        for url in reqs:
            fails.add("network", "the page requested %s" % url[:120])
        nsvg, drawn, nodata, colours = check_plots(dom, fails, min_plots)
        rgb = parse_rgb(line_color) or next(filter(None, map(parse_rgb, colours)), None) \
            or parse_rgb(DEFAULT_LINE)
        shot = check_png(png, fails, rgb, drawn > 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    summary = ("%d svg (%d drawn, %d declared no data), %s, %d console messages, "
               "%d page requests, chromium %.1f s" % (nsvg, drawn, nodata, shot, nconsole,
                                                      len(reqs), secs))
    return fails, summary


# ---------------------------------------------------------------- self-test

GOOD_SVG = ('<svg class="plot" viewBox="0 0 400 200" width="400" height="200">'
            '<rect x="0" y="0" width="400" height="200" fill="#ffffff"/>'
            '<path fill="none" stroke="#1f5fbf" stroke-width="2" d="%s"/>'
            '<text x="10" y="20">a plot</text></svg>')
GOOD_D = "M10 150L60 120L110 130L160 40L210 60L260 90L310 80L360 100"


def page(body, head=""):
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title>'
            '%s</head><body style="background:#f1f3f5">%s</body></html>' % (head, body))


SELF_TESTS = (
    # name, page, tag that must fail (None: must pass)
    ("a good page", page("<h1>report</h1>" + GOOD_SVG % GOOD_D), None),
    ("console.error", page("<h1>report</h1>" + GOOD_SVG % GOOD_D +
                           '<script>console.error("deliberate")</script>'), "console"),
    ("an uncaught exception", page("<h1>report</h1>" + GOOD_SVG % GOOD_D +
                                   "<script>null.f()</script>"), "console"),
    ("an empty path", page("<h1>report</h1>" + GOOD_SVG % ""), "svg"),
    ("a path of one point", page("<h1>report</h1>" + GOOD_SVG % "M10 10"), "svg"),
    ("a path with NaN", page("<h1>report</h1>" + GOOD_SVG % "M10 10LNaN 20"), "svg"),
    ("a blank page", page(""), "blank"),
    ("a line that does not show", page("<h1>report</h1>" + (GOOD_SVG % GOOD_D).replace(
        "<path ", '<path visibility="hidden" ')), "line"),
    ("a network request", page('<h1>report</h1><img src="http://example.invalid/x.png">' +
                               GOOD_SVG % GOOD_D), "network"),
)


def _paeth_pred(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def png_encode(rows, w, bpp, filters):
    """A PNG of rows filtered as the spec says, row y with filters[y % len]."""
    data, prev = bytearray(), bytes(w * bpp)
    for y, row in enumerate(rows):
        ft = filters[y % len(filters)]
        data.append(ft)
        for i, x in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            c = prev[i - bpp] if i >= bpp else 0
            pred = (0, a, prev[i], (a + prev[i]) // 2, _paeth_pred(a, prev[i], c))[ft]
            data.append((x - pred) & 0xFF)
        prev = row

    def chunk(ctype, body):
        return struct.pack(">I", len(body)) + ctype + body + \
            struct.pack(">I", zlib.crc32(ctype + body) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", w, len(rows), 8, 2 if bpp == 3 else 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + \
        chunk(b"IDAT", zlib.compress(bytes(data))) + chunk(b"IEND", b"")


def png_self_test():
    """The decoder undoes each of the five filters, RGB and RGBA, any width."""
    seed = 12345
    for bpp in (3, 4):
        for w in (1, 2, 7, 61):
            rows = []
            for _ in range(11):
                row = bytearray()
                for _ in range(w * bpp):
                    seed = (seed * 1103515245 + 12345) % 2 ** 31
                    row.append((seed >> 16) & 0xFF if seed % 3 else 255 * (seed % 2))
                rows.append(bytes(row))
            got = png_rows(png_encode(rows, w, bpp, (0, 1, 2, 3, 4, 4, 3, 1, 2)))
            if got != (w, len(rows), bpp, rows):
                return "decoding %d-byte pixels, width %d, differs" % (bpp, w)
    return None


def self_test(exe):
    bad = 0
    err = png_self_test()
    print("%s - self-test: the PNG decoder undoes filters 0-4 (RGB, RGBA)%s"
          % ("not ok" if err else "ok", ": " + err if err else ""))
    bad += err is not None
    tmp = tempfile.mkdtemp(prefix="html-check-self.")
    try:
        for i, (name, text, tag) in enumerate(SELF_TESTS):
            path = os.path.join(tmp, "p%d.html" % i)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            fails, summary = check_page(path, exe, height=WINDOW_H_MIN)
            got = fails.tags()
            ok = not got if tag is None else tag in got
            verdict = "passes" if not got else "fails [%s]" % ",".join(sorted(got))
            print("%s - self-test: %s %s (%s)" % ("ok" if ok else "not ok", name, verdict,
                                                  summary))
            if not ok:
                bad += 1
                for t, msg in fails.items:
                    print("    # [%s] %s" % (t, msg))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if bad else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("html", nargs="?")
    ap.add_argument("--screenshot", metavar="PNG", help="keep the screenshot here")
    ap.add_argument("--min-plots", type=int, default=0, help="plots that must be drawn")
    ap.add_argument("--line-color", metavar="RRGGBB",
                    help="colour of the plot lines (default: the paths' stroke)")
    ap.add_argument("--self-test", action="store_true", help="prove that each check can fail")
    args = ap.parse_args()
    exe = find_chromium()
    if not exe:
        print("html_check: no chromium or chromium-browser in PATH: install the Debian "
              "package 'chromium' (scripts/install-deps.sh)", file=sys.stderr)
        return 2
    if args.self_test:
        return self_test(exe)
    if not args.html:
        ap.error("an HTML file is needed (or --self-test)")
    try:
        fails, summary = check_page(args.html, exe, args.screenshot, args.min_plots,
                                    args.line_color)
    except (OSError, RuntimeError) as e:
        print("html_check: %s: %s" % (args.html, e), file=sys.stderr)
        return 2
    for tag, msg in fails.items:
        print("html_check: FAIL [%s] %s" % (tag, msg))
    print("html_check: %s: %s: %s" % (args.html, "FAIL" if fails.items else "ok", summary))
    return 1 if fails.items else 0


if __name__ == "__main__":
    sys.exit(main())
