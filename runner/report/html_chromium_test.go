package report

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/searchbench/searchbench/runner/internal/chromiumtest"
	"github.com/searchbench/searchbench/runner/result"
)

// TestHTMLReportInChromium opens the written report.html in headless
// Chromium from the file alone, as a reader would offline, and checks what
// the reader sees: every chart decoded and drawn (the engines' colours in its
// pixels, not a blank box), and the key figures and warnings in the text.
func TestHTMLReportInChromium(t *testing.T) {
	t.Parallel()
	exe := chromiumtest.Path(t)
	res := sampleResult(t)
	dir := t.TempDir()
	rep := New(Input{Name: "sample.json", Result: res})
	if _, err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	step := openInChromium(t, exe, filepath.Join(dir, HTMLFile))

	type img struct {
		Figure           string
		Complete         bool
		Natural, Visible [2]float64
	}
	imgs, err := chromedp.Run(step, chromedp.Evaluate[[]img](`[...document.images].map(i => ({
		figure: i.closest('figure').id, complete: i.complete,
		natural: [i.naturalWidth, i.naturalHeight], visible: [i.width, i.height]}))`))
	if err != nil {
		t.Fatal(err)
	}
	charts := rep.Charts()
	if len(imgs) != len(charts) {
		t.Fatalf("%d images on the page; want one per chart (%d)", len(imgs), len(charts))
	}
	for _, im := range imgs {
		if !im.Complete || im.Natural != [2]float64{1200, 675} || im.Visible[0] < 300 {
			t.Errorf("%s: complete %v, natural size %v, shown %v; want a decoded 1200×675 image shown",
				im.Figure, im.Complete, im.Natural, im.Visible)
		}
	}

	// Each chart as the browser painted it: the lines of the engines it
	// shows are there in their colours.
	want := map[string][]int{"chart-latency-search": {0, 1}, "chart-latency-upsert-zoom": {0}, "chart-rps": {0, 1},
		"chart-ladder-p99": {2}, "chart-ladder-achieved": {2}}
	for id, engines := range want {
		var colors []color.Color
		for _, i := range engines {
			colors = append(colors, engineColor(i))
		}
		checkPainted(t, step, id, colors, 0.001)
	}

	text, err := chromedp.Run(step, chromedp.Text(chromedp.CSS("body")))
	if err != nil {
		t.Fatal(err)
	}
	beta500 := res.Engines[1].Levels[2]
	search, _ := beta500.Op("search")
	for _, s := range []string{
		rps(beta500.TotalRPS),       // a Total RPS cell
		num(search.Latency.P50),     // a p50 cell
		"Sustainable rate: 3920/s.", // the ladder's verdict
		"client-bound",              // the runner's warning
		"loaded first rung",         // a ladder warning
		"coarse ladder step ×1.4",   // a derived warning
		"3 timeout",                 // errors by class
		"v0.1.0+abc",                // provenance
		"faker-lorem-v1, seed 42",
		"sha256:0123456789abcdef0123456789abcdef",
	} {
		if !strings.Contains(text, s) {
			t.Errorf("page text lacks %q", s)
		}
	}
	if testing.Verbose() {
		if full, err := chromedp.Run(step, chromedp.FullScreenshot(80)); err == nil {
			os.WriteFile(filepath.Join(os.TempDir(), "searchbench-report.jpg"), full, 0o644)
		}
	}
}

// openInChromium opens page in headless Chromium, offline, and returns a
// context for the steps that read it (three minutes for them all: the
// over-time test screenshots two images of over 2,000 pixels at scale 2
// and reads every pixel of each several times, which under -race on a
// loaded 2-core machine took more than one).
func openInChromium(t *testing.T, exe, page string) context.Context {
	t.Helper()
	ctx := chromiumtest.Browser(t, exe, 1280, 1000)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("load %s: %v", page, err)
	}
	step, cancelStep := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancelStep)
	return step
}

// checkPainted screenshots the image of figure id as the browser painted
// it and checks that every quarter of it, from the title down to the axis
// labels, has ink (an image drawn only in part, a truncated file, leaves a
// band empty), and that each of colors covers at least minShare of it
// (the lines drawn in it are there).
func checkPainted(t *testing.T, step context.Context, id string, colors []color.Color, minShare float64) {
	t.Helper()
	// At scale 2 the browser paints the 1200-pixel image at about its
	// own size, so lines keep their colour rather than blur into grey.
	shot, err := chromedp.Run(step, chromedp.ScreenshotScale(chromedp.CSS("#"+id+" img"), 2))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", id, err)
	}
	pic, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("%s: screenshot does not decode: %v", id, err)
	}
	bounds := pic.Bounds()
	for q := range 4 {
		band := pic.(interface {
			SubImage(image.Rectangle) image.Image
		}).SubImage(image.Rect(bounds.Min.X, bounds.Min.Y+q*bounds.Dy()/4, bounds.Max.X, bounds.Min.Y+(q+1)*bounds.Dy()/4))
		if ink := chromiumtest.Share(band, func(r, g, b uint32) bool { return r < 0xc000 || g < 0xc000 || b < 0xc000 }); ink < 0.005 {
			t.Errorf("%s: quarter %d of the chart is blank (%.2f%% ink)", id, q+1, 100*ink)
		}
	}
	for i, c := range colors {
		wr, wg, wb, _ := c.RGBA()
		near := func(a, b uint32) bool { return max(a, b)-min(a, b) < 0x1800 }
		if s := chromiumtest.Share(pic, func(r, g, b uint32) bool { return near(r, wr) && near(g, wg) && near(b, wb) }); s < minShare {
			t.Errorf("%s: colour %d (%v) covers %.3f%% of the chart; its line is not drawn", id, i, c, 100*s)
		}
	}
}

// TestOverTimeInChromium opens a report of a merged result with timelines
// as a reader would and checks its over-time section: one tall chart per
// run with a timeline, each drawn in full (ink in every quarter, from the
// throughput panel down to the container's memory) with its operations'
// and its shards' lines in their colours, and the values table there.
func TestOverTimeInChromium(t *testing.T) {
	t.Parallel()
	exe := chromiumtest.Path(t)
	res := timelineResult(t)
	for _, l := range res.Engines[0].Levels {
		for k, iv := range l.Timeline.Intervals {
			var all int64
			for _, o := range iv.Ops {
				all += o.Count
			}
			l.Timeline.Intervals[k].Shards = []result.IntervalShard{{Shard: 0, Count: all / 3}, {Shard: 1, Count: all - all/3}}
		}
	}
	dir := t.TempDir()
	if _, err := New(Input{Name: "merged.json", Result: res}).Write(dir); err != nil {
		t.Fatal(err)
	}
	step := openInChromium(t, exe, filepath.Join(dir, HTMLFile))
	type img struct {
		Figure   string
		Complete bool
		Natural  [2]float64
	}
	imgs, err := chromedp.Run(step, chromedp.Evaluate[[]img](`[...document.querySelectorAll('#over-time ~ figure img')].map(i => ({
		figure: i.closest('figure').id, complete: i.complete, natural: [i.naturalWidth, i.naturalHeight]}))`))
	if err != nil {
		t.Fatal(err)
	}
	// alpha: throughput, latency, slowest call, errors, CPU, memory, queue
	// depth; gamma the same; beta has no timeline.
	want := []img{{"chart-overtime-alpha", true, [2]float64{1200, 7 * 315}}, {"chart-overtime-gamma", true, [2]float64{1200, 7 * 315}}}
	if len(imgs) != len(want) {
		t.Fatalf("over-time images %+v, want %+v", imgs, want)
	}
	for i := range want {
		if imgs[i] != want[i] {
			t.Errorf("over-time image %+v, want %+v", imgs[i], want[i])
		}
	}
	checkPainted(t, step, "chart-overtime-alpha", []color.Color{opColor(0), opColor(1), shardColor(0), shardColor(1)}, 0.0005)
	checkPainted(t, step, "chart-overtime-gamma", []color.Color{opColor(0), opColor(1)}, 0.0005)
	text, err := chromedp.Run(step, chromedp.Text(chromedp.CSS("#over-time")))
	if err != nil || text != "Over time" {
		t.Errorf("over-time heading %q, %v", text, err)
	}
	// The values table is in the page, folded.
	rows, err := chromedp.Run(step, chromedp.Evaluate[int](`document.querySelectorAll('#chart-overtime-alpha + details tr[data-op]').length`))
	if err != nil || rows != 3*5*2 {
		t.Errorf("alpha's values table has %d rows (%v), want 30 (3 levels × 5 intervals × 2 operations)", rows, err)
	}
}
