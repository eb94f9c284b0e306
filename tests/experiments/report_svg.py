# SPDX-License-Identifier: GPL-2.0
"""The plots of tests/experiments/report: one SVG per scenario and kernel.

Three panels on one time axis (seconds since the run's first sample):
the achieved rate of every tool (linear), max_sample_rate over time (log
axis: the kernel's during perf's run, kprof's own and the kernel's during
kprof's runs), and a raster band per tool with one tick per throttle.
Every legend is a strip inside the figure above its panel; the title is
wrapped, never cut.  Text is written as given (SVG has no subscript
markup to trip over), escaped, and sized by a width estimate that errs
long (FONT_W), so nothing is drawn outside the view box; the host test
tests/host/report-check renders each SVG and checks that.
"""
import math
from xml.sax.saxutils import escape

W = 960
LEFT, RIGHT = 88, 24
FONT = 13
FONT_W = 0.62 * FONT      # widest average glyph width of DejaVu Sans, rounded up
TITLE_FONT = 15
RATE_H, MAX_H, BAND_H = 190, 150, 22
COLOURS = {"perf": "#1f5fb4", "kprof": "#c62828", "kprof-ge": "#c62828",
           "kprof-gt": "#2e7d32"}
SPARE = ["#6a1b9a", "#ef6c00", "#00838f"]


def colour(tool, k):
    return COLOURS.get(tool, SPARE[k % len(SPARE)])


def width(k):
    """Line width of the k-th tool: later tools draw thinner, on top, so
    that lines which coincide (the tools agreeing) both stay visible."""
    return max(4.5 - 1.5 * k, 1.5)


def text_w(s, size=FONT):
    return len(s) * 0.62 * size


def wrap(s, width, size):
    """Lines of s, each narrower than width at font size (estimate)."""
    lines, cur = [], ""
    for word in s.split(" "):
        cand = word if not cur else cur + " " + word
        if text_w(cand, size) <= width or not cur:
            cur = cand
        else:
            lines.append(cur)
            cur = word
    lines.append(cur)
    return lines


def nice_step(span, n):
    raw = span / max(n, 1)
    mag = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    for m in (1, 2, 2.5, 5, 10):
        if raw <= m * mag:
            return m * mag
    return 10 * mag


def fmt(v):
    return ("%d" % v) if v == int(v) else ("%g" % v)


class Figure:
    def __init__(self, idp):
        self.parts = []
        self.idp = idp
        self.y = 0

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, size=FONT, anchor="start", cls="", extra=""):
        c = ' class="%s"' % cls if cls else ""
        self.add('<text x="%.1f" y="%.1f" font-size="%d" text-anchor="%s"%s%s>%s</text>'
                 % (x, y, size, anchor, c, extra, escape(s)))

    def legend(self, items, label):
        """A strip of (colour, dash, label) entries, wrapped to the width."""
        x, y = LEFT, self.y + FONT + 2
        self.text(x, y, label + ":", cls="legend-label", extra=' font-weight="bold"')
        x += text_w(label + ":") * 1.15 + 14      # bold is wider
        for col, dash, lab in items:
            w = 30 + text_w(lab) + 18
            if x + w > W - RIGHT and x > LEFT:
                x, y = LEFT, y + FONT + 6
            d = ' stroke-dasharray="%s"' % dash if dash else ""
            self.add('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2.5"%s/>'
                     % (x, y - 4, x + 24, y - 4, col, d))
            self.text(x + 30, y, lab, cls="legend")
            x += w
        self.y = y + 8

    def frame(self, top, h, label, ticks, ylab):
        """Axes box at top with height h; ticks: [(y_px, label)]."""
        self.add('<rect x="%d" y="%.1f" width="%d" height="%d" fill="none" stroke="#444"/>'
                 % (LEFT, top, W - LEFT - RIGHT, h))
        for y, lab in ticks:
            self.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>'
                     % (LEFT, y, W - RIGHT, y))
            self.text(LEFT - 6, y + 4, lab, size=11, anchor="end")
        # The y label runs up the left margin, centred on the panel.
        cy = top + h / 2
        self.text(16, cy, ylab, size=11, anchor="middle", cls="ylabel",
                  extra=' transform="rotate(-90 16 %.1f)"' % cy)

    def clip(self, name, top, h):
        cid = "%s-%s" % (self.idp, name)
        self.add('<clipPath id="%s"><rect x="%d" y="%.1f" width="%d" height="%d"/></clipPath>'
                 % (cid, LEFT, top, W - LEFT - RIGHT, h))
        return cid


def xmap(tmax):
    return lambda t: LEFT + (W - LEFT - RIGHT) * (t / tmax if tmax > 0 else 0)


def path(points):
    return " ".join(("M" if i == 0 else "L") + "%.1f,%.1f" % p for i, p in enumerate(points))


def step_points(series, tend):
    """(t, v) steps held until the next one, the last until tend."""
    pts = []
    for i, (t, v) in enumerate(series):
        if pts:
            pts.append((t, pts[-1][1]))
        pts.append((t, v))
        if i == len(series) - 1:
            pts.append((max(tend, t), v))
    return pts


def rate_panel(f, runs, x, tmax):
    items = [(colour(r["tool"], k), "", "%s achieved rate" % r["tool"])
             for k, r in enumerate(runs) if r["rate"]]
    if not items:
        items = [("#999", "", "no rate series")]
    f.legend(items, "rate")
    top = f.y
    vmax = max([v for r in runs for _, v in r["rate"]] + [1.0])
    step = nice_step(vmax, 5)
    ymax = step * math.ceil(vmax * 1.05 / step)
    ymap = lambda v: top + RATE_H - RATE_H * v / ymax
    ticks = [(ymap(i * step), fmt(i * step)) for i in range(int(round(ymax / step)) + 1)]
    f.frame(top, RATE_H, "rate", ticks, "samples/s per CPU")
    cid = f.clip("rate", top, RATE_H)
    for k, r in enumerate(runs):
        if r["rate"]:
            f.add('<path d="%s" fill="none" stroke="%s" stroke-width="%.1f" clip-path="url(#%s)"/>'
                  % (path([(x(t), ymap(v)) for t, v in r["rate"]]), colour(r["tool"], k),
                     width(k), cid))
    f.y = top + RATE_H + 10


def max_panel(f, runs, x, tmax):
    lines = []
    for k, r in enumerate(runs):
        col = colour(r["tool"], k)
        if r["tool"] == "perf":
            if r["maxrate"]:
                lines.append((col, "", "kernel's, during perf's run", r["maxrate"]))
        else:
            if r["maxrate"]:
                lines.append((col, "", "kprof's own, during %s's run" % r["tool"], r["maxrate"]))
            if r["kmaxrate"]:
                lines.append((col, "7,4", "kernel's, during %s's run" % r["tool"], r["kmaxrate"]))
    f.legend([(c, d, lab) for c, d, lab, _ in lines] or [("#999", "", "no max_sample_rate series")],
             "max_sample_rate")
    top = f.y
    vals = [v for *_, s in lines for _, v in s if v > 0] or [1000]
    # A decade of room beyond a value on a decade, so no line lies on the frame.
    lo = math.floor(math.log10(min(vals) * 0.9))
    hi = math.ceil(math.log10(max(vals) * 1.1))
    if hi - lo < 2:
        lo, hi = hi - 2, hi
    ymap = lambda v: top + MAX_H - MAX_H * (math.log10(max(v, 10 ** lo)) - lo) / (hi - lo)
    ticks = [(ymap(10 ** e), fmt(10 ** e)) for e in range(lo, hi + 1)]
    f.frame(top, MAX_H, "max", ticks, "max_sample_rate (log)")
    cid = f.clip("max", top, MAX_H)
    for i, (col, dash, _, s) in enumerate(lines):
        d = ' stroke-dasharray="%s"' % dash if dash else ""
        f.add('<path d="%s" fill="none" stroke="%s" stroke-width="%.1f"%s clip-path="url(#%s)"/>'
              % (path([(x(t), ymap(v)) for t, v in step_points(s, tmax)]), col, width(i), d,
                 cid))
    f.y = top + MAX_H + 10


def throttle_band(f, runs, x):
    f.legend([(colour(r["tool"], k), "", "%s: %d throttles" % (r["tool"], len(r["throttle"])))
              for k, r in enumerate(runs)], "throttles")
    top = f.y
    for k, r in enumerate(runs):
        y0 = top + k * BAND_H
        f.add('<rect x="%d" y="%.1f" width="%d" height="%d" fill="#f6f6f6" stroke="#444"/>'
              % (LEFT, y0, W - LEFT - RIGHT, BAND_H))
        f.text(LEFT - 6, y0 + BAND_H / 2 + 4, r["tool"], size=11, anchor="end")
        # One tick per throttle; ticks closer than half a pixel are one.
        xs = sorted({round(x(t) * 2) / 2 for t in r["throttle"]})
        xs = [v for v in xs if LEFT <= v <= W - RIGHT]
        if xs:
            d = "".join("M%.1f,%.1fv%d" % (v, y0 + 3, BAND_H - 6) for v in xs)
            f.add('<path d="%s" stroke="%s" stroke-width="1"/>' % (d, colour(r["tool"], k)))
    f.y = top + len(runs) * BAND_H + 8


def time_axis(f, tmax, x):
    step = nice_step(tmax, 8)
    top = f.y
    n = int(tmax / step + 1e-9)
    for i in range(n + 1):
        f.text(x(i * step), top + 12, fmt(round(i * step, 6)), size=11, anchor="middle")
    f.text((LEFT + W - RIGHT) / 2, top + 30, "seconds since the first sample", anchor="middle",
           cls="xlabel")
    f.y = top + 40


def figure(idp, title, runs):
    """The SVG text of one scenario on one kernel.  runs: dicts with tool,
    rate, maxrate, kmaxrate ([(t, v)]) and throttle ([t])."""
    f = Figure(idp)
    tl = wrap(title, W - 24, TITLE_FONT)
    f.y = 8
    for line in tl:
        f.y += TITLE_FONT + 4
        f.text(W / 2, f.y, line, size=TITLE_FONT, anchor="middle", cls="title")
    f.y += 8
    tmax = max([t for r in runs for t, _ in r["rate"]] +
               [t for r in runs for t in r["throttle"]] + [0.0])
    tmax = tmax if tmax > 0 else 1.0
    tmax = nice_step(tmax, 8) * math.ceil(tmax / nice_step(tmax, 8))
    x = xmap(tmax)
    rate_panel(f, runs, x, tmax)
    max_panel(f, runs, x, tmax)
    throttle_band(f, runs, x)
    time_axis(f, tmax, x)
    h = int(math.ceil(f.y + 6))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
            'font-family="DejaVu Sans, sans-serif">\n<title>%s</title>\n'
            '<rect x="0" y="0" width="%d" height="%d" fill="#fff"/>\n%s\n</svg>\n'
            % (W, h, W, h, escape(title), W, h, "\n".join(f.parts)))
