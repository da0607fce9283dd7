package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/png"
	"io"
	"strings"
	"testing"
)

// svgContent is what an SVG chart draws: the texts and, per stroke colour,
// the paths.
type svgContent struct {
	texts   []string
	strokes map[string][]string // #RRGGBB → path data
}

func parseSVG(t *testing.T, b []byte) svgContent {
	t.Helper()
	c := svgContent{strokes: map[string][]string{}}
	dec := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG does not parse: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			inText = e.Name.Local == "text"
			if e.Name.Local != "path" {
				continue
			}
			var d, style string
			for _, a := range e.Attr {
				switch a.Name.Local {
				case "d":
					d = a.Value
				case "style":
					style = a.Value
				}
			}
			if _, col, ok := strings.Cut(style, "stroke:"); ok && strings.HasPrefix(col, "#") {
				c.strokes[col[:7]] = append(c.strokes[col[:7]], d)
			}
		case xml.CharData:
			if inText {
				c.texts = append(c.texts, strings.TrimSpace(string(e)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return c
}

func hexColor(i int) string {
	r, g, b, _ := engineColor(i).RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// colorPixels counts the pixels of exactly the i-th engine's colour. It
// reads them by RGBA64At, the same values as At(x, y).RGBA() without a
// colour boxed per pixel: a million of those took seconds under -race.
func colorPixels(img image.RGBA64Image, i int) int {
	wr, wg, wb, _ := engineColor(i).RGBA()
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			c := img.RGBA64At(x, y)
			r, g, b := uint32(c.R), uint32(c.G), uint32(c.B)
			if r>>8 == wr>>8 && g>>8 == wg>>8 && b>>8 == wb>>8 {
				n++
			}
		}
	}
	return n
}

func TestChartsDrawOneLinePerEngine(t *testing.T) {
	t.Parallel()
	rep := New(Input{Name: "r.json", Result: sampleResult(t)})
	charts := map[string]Chart{}
	for _, c := range rep.Charts() {
		charts[c.Name] = c
	}
	var names []string
	for n := range charts {
		names = append(names, n)
	}
	for _, want := range []string{"latency-search", "latency-search-zoom", "latency-upsert", "latency-upsert-zoom",
		"latency-delete", "latency-delete-zoom", "rps", "ladder-p99", "ladder-achieved"} {
		if _, ok := charts[want]; !ok {
			t.Errorf("no chart %s; have %v", want, names)
		}
	}
	if len(charts) != 9 {
		t.Errorf("charts %v; want 9", names)
	}

	// Closed-loop charts: alpha (column 0) and beta (column 1), each with a
	// p50 and a p95 line through its three levels; gamma has no levels.
	for _, name := range []string{"latency-search", "latency-upsert", "rps"} {
		c := charts[name]
		svg, err := c.SVG()
		if err != nil {
			t.Fatal(err)
		}
		content := parseSVG(t, svg)
		text := strings.Join(content.texts, "|")
		for i, label := range []string{"alpha", "beta"} {
			if !strings.Contains(text, label) {
				t.Errorf("%s: legend lacks %s: %q", name, label, text)
			}
			// A line through three levels is one path of three points.
			lines := 0
			for _, d := range content.strokes[hexColor(i)] {
				if strings.Count(d, "L") == 2 && !strings.HasSuffix(d, "Z") {
					lines++
				}
			}
			want := 2 // p50 and p95
			if name == "rps" {
				want = 1
			}
			if lines != want {
				t.Errorf("%s: %d three-point lines in %s's colour %s; want %d", name, lines, label, hexColor(i), want)
			}
		}
		if strings.Contains(text, "gamma") {
			t.Errorf("%s: the ladder-only engine has a closed-loop line", name)
		}
		raw, err := c.PNG()
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("%s: PNG does not decode: %v", name, err)
		}
		if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 675 {
			t.Errorf("%s: PNG %v; want 1200×675 (8×4.5 in at 150 dpi)", name, b)
		}
		pixels, ok := img.(image.RGBA64Image)
		if !ok {
			t.Fatalf("%s: a PNG decoded to %T, which has no RGBA64At", name, img)
		}
		for i := range 2 {
			if n := colorPixels(pixels, i); n < 300 {
				t.Errorf("%s: %d pixels of engine %d's colour; the lines are not drawn", name, n, i)
			}
		}
	}

	// The zoomed view is cut just above alpha's p95 curve; beta's 500-user
	// p95 lies far above it.
	zoom := charts["latency-search-zoom"]
	if zoom.plot.Y.Max >= charts["latency-search"].plot.Y.Max/2 || !strings.Contains(zoom.Note, "lowest engine's peak p95") {
		t.Errorf("zoom to %g (full %g), note %q", zoom.plot.Y.Max, charts["latency-search"].plot.Y.Max, zoom.Note)
	}

	// Ladder charts: gamma's line and its sustainable rate marked.
	svg, err := charts["ladder-p99"].SVG()
	if err != nil {
		t.Fatal(err)
	}
	content := parseSVG(t, svg)
	text := strings.Join(content.texts, "|")
	if !strings.Contains(text, "gamma sustainable: 3920/s") {
		t.Errorf("ladder chart does not mark the sustainable rate: %q", text)
	}
	if len(content.strokes[hexColor(2)]) < 3 { // line, marker, error bars
		t.Errorf("ladder chart: %d paths in gamma's colour", len(content.strokes[hexColor(2)]))
	}
}

func TestZoomFallsBackToP50ForOneEngine(t *testing.T) {
	t.Parallel()
	r := sampleResult(t)
	r.Engines = r.Engines[:1]
	for _, c := range New(Input{Name: "r.json", Result: r}).Charts() {
		if c.Name == "latency-search-zoom" {
			if !strings.Contains(c.Note, "peak p50") {
				t.Errorf("one engine: zoom note %q; want the p50 cut", c.Note)
			}
			return
		}
	}
	t.Fatal("no zoomed search chart")
}

func TestTicks125(t *testing.T) {
	t.Parallel()
	var labels []string
	for _, tk := range (ticks125{}).Ticks(1800, 60000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, ","); got != "2000,5000,10000,20000,50000" {
		t.Errorf("labels %s", got)
	}
}
