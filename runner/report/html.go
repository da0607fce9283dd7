package report

import (
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
	"time"
)

// rendered is a chart drawn in both formats.
type rendered struct {
	Chart
	png, svg []byte
}

// render draws every chart.
func (rep *Report) render() ([]rendered, error) {
	var out []rendered
	for _, c := range rep.Charts() {
		p, err := c.PNG()
		if err != nil {
			return nil, err
		}
		s, err := c.SVG()
		if err != nil {
			return nil, err
		}
		out = append(out, rendered{Chart: c, png: p, svg: s})
	}
	return out, nil
}

// HTML writes the report as one self-contained page: styles inline, charts
// as embedded PNG images, no script and nothing fetched, so it opens
// offline and can be mailed as it is. It holds every table and warning of
// the Markdown, the charts, and each run's configuration, versions and seeds.
func (rep *Report) HTML(w io.Writer) error {
	charts, err := rep.render()
	if err != nil {
		return err
	}
	return rep.html(w, charts)
}

type htmlSection struct {
	ID    string
	Title string
	Parts []Part
}

type htmlFigure struct {
	ID, Title, Note string
	Src             template.URL
}

type htmlPage struct {
	Title    string
	Subtitle string
	Warnings []Warning
	Figures  []htmlFigure
	OverTime []htmlOverTime
	Groups   []htmlGroup
}

// htmlOverTime is a run's over-time chart and the values it plots.
type htmlOverTime struct {
	htmlFigure
	Head []string
	Rows []otRow
}

type htmlGroup struct {
	Title    string
	Sections []htmlSection
}

func (rep *Report) html(w io.Writer, charts []rendered) error {
	d := rep.document()
	page := htmlPage{Title: rep.title(), Warnings: Warnings(d.all())}
	var names []string
	for _, in := range rep.Inputs {
		names = append(names, fmt.Sprintf("%s (%s)", in.Name, in.Result.StartedAt.UTC().Format(time.DateTime)))
	}
	page.Subtitle = strings.Join(names, "; ")
	for _, c := range charts {
		f := htmlFigure{ID: "chart-" + c.Name, Title: c.Title, Note: c.Note,
			// The URL is built here from PNG bytes, never from input text.
			Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(c.png))}
		if c.ot != nil {
			page.OverTime = append(page.OverTime, htmlOverTime{htmlFigure: f, Head: c.ot.tableHead(), Rows: c.ot.rows()})
			continue
		}
		page.Figures = append(page.Figures, f)
	}
	ids := map[string]int{}
	group := func(title string, secs []Section) {
		if len(secs) == 0 {
			return
		}
		g := htmlGroup{Title: title}
		for _, s := range secs {
			g.Sections = append(g.Sections, htmlSection{ID: anchor(ids, s.Title), Title: s.Title, Parts: s.Parts})
		}
		page.Groups = append(page.Groups, g)
	}
	if d.summary != nil {
		group("Summary", []Section{*d.summary})
	}
	group("Shards", d.shards)
	group("Closed loop: mixed workload by users (Study A layout)", d.closed)
	group("Open loop: rate ladders (Study B layout)", d.ladders)
	group(kindsTitle, d.kinds)
	group(sweepsTitle, d.sweeps)
	group("Runs, engines and configuration", []Section{d.runs, d.engines, d.config})
	return pageTemplate.Execute(w, page)
}

// anchor makes a unique id from a title.
func anchor(seen map[string]int, title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "-"):
			b.WriteByte('-')
		}
	}
	id := strings.Trim(b.String(), "-")
	if id == "" {
		id = "section"
	}
	seen[id]++
	if n := seen[id]; n > 1 {
		id += "-" + strconv.Itoa(n)
	}
	return id
}

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #222; }
h1 { margin-bottom: 0.2em; }
.sub { color: #666; margin-top: 0; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
tr:nth-child(even) td { background: #fafafa; }
.warning { background: #fff4e0; border-left: 4px solid #e8a33d; padding: 0.3em 0.7em; margin: 0.3em 0; }
.warnings { background: #fff4e0; border: 1px solid #e8a33d; padding: 0.5em 1em; }
.warnings li { margin: 0.2em 0; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(540px, 1fr)); gap: 1em 1.5em; }
figure { margin: 0.5em 0 1em; }
figure img { width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; }
.ok { color: #2a7a2a; }
</style>
</head>
<body>
<h1>{{.Title}}</h1>
<p class="sub">{{.Subtitle}}</p>
{{if .Warnings}}<div class="warnings" id="warnings"><strong>{{len .Warnings}} warning(s)</strong>
<ul>{{range .Warnings}}<li>{{.}}</li>{{end}}</ul></div>
{{else}}<p class="ok" id="warnings">No warnings.</p>
{{end}}
{{if .Figures}}<h2 id="charts">Charts</h2>
<div class="charts">
{{range .Figures}}<figure id="{{.ID}}"><img src="{{.Src}}" alt="{{.Title}}"><figcaption><strong>{{.Title}}.</strong> {{.Note}}</figcaption></figure>
{{end}}</div>{{end}}{{if .OverTime}}
<h2 id="over-time">Over time</h2>
<p>Each engine run's measured windows end to end, interval by interval, each ticked in seconds from its start: throughput, p50 and p99 per operation, each interval's slowest call and its slow calls, errors, and the engine's sampled stats and its container's CPU and memory on one time axis.</p>
{{range .OverTime}}<figure id="{{.ID}}"><img src="{{.Src}}" alt="{{.Title}}" style="max-width: 1100px"><figcaption><strong>{{.Title}}.</strong> {{.Note}}</figcaption></figure>
<details style="margin-bottom: 1.5em"><summary>Values plotted in {{.Title}} ({{len .Rows}} rows)</summary>
<table class="overtime-values"><thead><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Rows}}<tr data-window="{{.Window}}" data-op="{{.Op}}" data-start="{{.Start}}" data-rate="{{.Rate}}" data-p50="{{.P50}}" data-p99="{{.P99}}" data-max="{{.Max}}" data-slow="{{.Slow}}" data-errors="{{.Err}}" data-shards="{{.Shards}}">{{range .Cells}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table></details>
{{end}}{{end}}
{{range .Groups}}<h2>{{.Title}}</h2>
{{range .Sections}}<section id="{{.ID}}">{{if .Title}}<h3>{{.Title}}</h3>{{end}}
{{range .Parts}}{{if .Table}}<table><thead><tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{else if .Warning}}<div class="warning">⚠ {{.Warning}}</div>
{{else}}<p>{{.Text}}</p>
{{end}}{{end}}</section>
{{end}}{{end}}
</body>
</html>
`))
