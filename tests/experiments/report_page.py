# SPDX-License-Identifier: GPL-2.0
"""index.html and report.md of tests/experiments/report, from its context:
the kernels' runs, the plots, and the verdict and comparison functions."""
import os

STYLE = """
body { font-family: DejaVu Sans, sans-serif; margin: 1.5em; color: #222; max-width: 1400px; }
table { border-collapse: collapse; margin: 0.5em 0 1em; }
td, th { border: 1px solid #bbb; padding: 0.3em 0.6em; vertical-align: top; font-size: 90%; }
th { background: #eee; }
td.agree { background: #e6f4e6; }
td.differ { background: #fbe3e3; }
td.nodata { background: #eee; }
.v { font-weight: bold; }
.small { font-size: 85%; color: #444; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; font-size: 80%; }
.flames { display: flex; gap: 1em; flex-wrap: wrap; }
.flames figure { flex: 1 1 600px; margin: 0; display: flex; flex-direction: column; }
.flames figcaption { flex: 1; }  /* captions of any length: the graphs line up */
.flames object { width: 100%; height: 520px; border: 1px solid #ccc; }
"""


def cell_class(word):
    return {"agree": "agree", "differ": "differ"}.get(word, "nodata")


def tol_text(ctx):
    rel, pts = ctx["tol"]
    return ("kprof agrees with perf when its throttle count and achieved rate are within "
            "%g%% of perf's and its top symbol is perf's with a share within %g points; "
            "otherwise the cell says by how much it differs." % (rel * 100, pts))


def matrix_html(ctx):
    e = ctx["html"].escape
    ks = ctx["kernels"]
    out = ["<table><tr><th>scenario</th>"]
    out += ["<th>%s<br><span class=small>%s, %s</span></th>" % (e(k["label"]), e(k["release"]),
                                                                 e(k["clock"])) for k in ks]
    out.append("</tr>")
    for scen, _ in ctx["scenarios"]:
        out.append('<tr><th><a href="#%s">%s</a></th>' % (scen, scen))
        for k in ks:
            v = ctx["verdict"](k, scen)
            if not v:
                out.append('<td class=nodata>not run</td>')
                continue
            word, diffs, alls = v
            out.append('<td class=%s><span class=v>%s</span><br><span class=small>%s</span></td>'
                       % (cell_class(word), e(word), "<br>".join(e(t) for t in (diffs or alls))))
        out.append("</tr>")
    out.append("</table>")
    return "\n".join(out)


def table_html(e, head, body):
    out = ["<table><tr>" + "".join("<th>%s</th>" % e(h) for h in head) + "</tr>"]
    out += ["<tr>" + "".join("<td>%s</td>" % e(c) for c in r) + "</tr>" for r in body]
    return "\n".join(out) + "</table>"


def flames_html(ctx, k):
    e, b64 = ctx["html"].escape, ctx["b64"]
    figs = []
    for tool in ("perf", "kprof"):
        path = os.path.join(k["dir"], "no-throttle-%s.flame.svg" % tool)
        svg = ctx["read"](path)
        if not svg:
            figs.append("<figure><figcaption>%s: no flame graph in this run</figcaption></figure>"
                        % tool)
            continue
        uri = "data:image/svg+xml;base64," + b64.b64encode(svg.encode()).decode()
        how = ("kprofcat --flamegraph of kprof's capture" if tool == "kprof" else
               "perf's samples (perf report -D through perf2kpcap) drawn by kprofcat --flamegraph")
        figs.append('<figure><figcaption>%s on %s: %s</figcaption><object type="image/svg+xml" '
                    'data="%s">%s flame graph</object></figure>' % (tool, e(k["label"]), e(how),
                                                                     uri, tool))
    return '<div class=flames>%s</div>' % "".join(figs)


def scenario_html(ctx, scen, what):
    e = ctx["html"].escape
    out = ['<h2 id="%s">%s</h2>' % (scen, scen), "<p>%s</p>" % e(what), "<ul>"]
    for k in ctx["kernels"]:
        v = ctx["verdict"](k, scen)
        if v:
            out.append("<li><b>%s</b>: %s; %s</li>" % (e(k["label"]), e(v[0]), e("; ".join(v[2]))))
    out.append("</ul>")
    head, body = ctx["compare"](ctx["kernels"], scen)
    if body:
        out.append("<h3>Kernels side by side</h3>" + table_html(e, head, body))
        if scen in ("per-tick", "ge-vs-gt"):
            notes = [(k["label"], ctx["note"](k)) for k in ctx["kernels"] if ctx["note"](k)]
            out.append("<ul>%s</ul>" % "".join("<li><b>%s</b>: %s</li>" % (e(a), e(b))
                                               for a, b in notes))
    for k in ctx["kernels"]:
        p = ctx["plots"].get((scen, k["label"]))
        if not p:
            continue
        out.append("<h3>%s on %s</h3>" % (scen, e(k["label"])))
        out.append('<div class=plot>%s</div>' % p[1])
        if scen == "no-throttle":
            out.append(flames_html(ctx, k))
        why = ctx["why"](k, scen)
        if why:
            out.append("<p><b>Causes and conditions</b></p><ul>%s</ul>"
                       % "".join("<li>%s</li>" % e(w) for w in why))
        txt = ctx["read"](os.path.join(k["dir"], scen + ".txt"))
        out.append("<details><summary>table of the run</summary><pre>%s</pre></details>" % e(txt))
    return "\n".join(out)


def html_page(ctx):
    e = ctx["html"].escape
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>kprof against perf: throttling experiment</title>",
             "<style>%s</style></head><body>" % STYLE,
             "<h1>kprof against perf: throttling experiment</h1>",
             "<p>%s</p>" % e(tol_text(ctx)), matrix_html(ctx),
             "<p class=small>Each scenario's section below says what it tests, gives the verdict "
             "line and figures per kernel, the kernels side by side, the plots (achieved rate; "
             "max_sample_rate on a log axis; one tick per throttle) and the run's table.  "
             "report.md holds the same in text.</p>"]
    for scen, what in ctx["scenarios"]:
        parts.append(scenario_html(ctx, scen, what))
    if ctx["repeat"]:
        head, body, moved = ctx["repeat"]
        parts.append('<h2 id="repeat">Run to run</h2><p>%s</p>' % e(repeat_text(moved, body)))
        parts.append(table_html(e, head, body))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def repeat_text(moved, body):
    return ("This run against the earlier one given with --against: %d of %d rows moved by "
            "more than 1%% in rate, throttles or lowerings." % (moved, len(body)))


def md_table(head, body):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in body]
    return "\n".join(out)


def markdown(ctx):
    ks = ctx["kernels"]
    out = ["# kprof against perf: throttling experiment", "", tol_text(ctx), ""]
    body = []
    for scen, _ in ctx["scenarios"]:
        cells = []
        for k in ks:
            v = ctx["verdict"](k, scen)
            # As the page's matrix: what differs, or every figure compared.
            cells.append("not run" if not v else v[0] + ": " + "; ".join(v[1] or v[2]))
        body.append([scen] + cells)
    out += [md_table(["scenario"] + ["%s (%s, %s)" % (k["label"], k["release"], k["clock"])
                                     for k in ks], body), ""]
    for scen, what in ctx["scenarios"]:
        out += ["## " + scen, "", what, ""]
        for k in ks:
            v = ctx["verdict"](k, scen)
            if v:
                out.append("- **%s**: %s; %s" % (k["label"], v[0], "; ".join(v[2])))
        head, body = ctx["compare"](ks, scen)
        if body:
            out += ["", "Kernels side by side:", "", md_table(head, body)]
            if scen in ("per-tick", "ge-vs-gt"):
                out += [""] + ["- %s: %s" % (k["label"], ctx["note"](k)) for k in ks
                               if ctx["note"](k)]
        for k in ks:
            p = ctx["plots"].get((scen, k["label"]))
            if not p:
                continue
            out += ["", "### %s on %s" % (scen, k["label"]), "", "Plot: %s" % p[0]]
            if scen == "no-throttle":
                out.append("Flame graphs: %s" % ", ".join(
                    os.path.join(k["dir"], "no-throttle-%s.flame.svg" % t) for t in ("perf", "kprof")))
            out += ["", "```", ctx["read"](os.path.join(k["dir"], scen + ".txt")).rstrip(), "```"]
        out.append("")
    if ctx["repeat"]:
        head, body, moved = ctx["repeat"]
        out += ["## Run to run", "", repeat_text(moved, body), "", md_table(head, body), ""]
    return "\n".join(out) + "\n"
