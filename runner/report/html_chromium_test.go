package report

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium. CI installs it (.ci/run), so there
// its absence is a failure, not a skip.
func chromiumPath(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/run installs it")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

// TestHTMLReportInChromium opens the written report.html in headless
// Chromium from the file alone, as a reader would offline, and checks what
// the reader sees: every chart decoded and drawn (the engines' colours in its
// pixels, not a blank box), and the key figures and warnings in the text.
func TestHTMLReportInChromium(t *testing.T) {
	exe := chromiumPath(t)
	res := sampleResult(t)
	dir := t.TempDir()
	rep := New(Input{Name: "sample.json", Result: res})
	if _, err := rep.Write(dir); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, HTMLFile)

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(1280, 1000), chromedp.Flag("disable-gpu", true),
		// Offline: any request beyond the file itself fails.
		chromedp.ProxyServer("127.0.0.1:9"))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+page)); err != nil {
		t.Fatalf("load %s: %v", page, err)
	}
	step, cancelStep := context.WithTimeout(ctx, time.Minute)
	defer cancelStep()

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
		// Every quarter, from the title down to the axis labels, has ink: an
		// image drawn only in part (a truncated file) leaves a band empty.
		bounds := pic.Bounds()
		for q := range 4 {
			band := pic.(interface {
				SubImage(image.Rectangle) image.Image
			}).SubImage(image.Rect(bounds.Min.X, bounds.Min.Y+q*bounds.Dy()/4, bounds.Max.X, bounds.Min.Y+(q+1)*bounds.Dy()/4))
			if ink := share(band, func(r, g, b uint32) bool { return r < 0xc000 || g < 0xc000 || b < 0xc000 }); ink < 0.005 {
				t.Errorf("%s: quarter %d of the chart is blank (%.2f%% ink)", id, q+1, 100*ink)
			}
		}
		for _, i := range engines {
			wr, wg, wb, _ := engineColor(i).RGBA()
			near := func(a, b uint32) bool { return max(a, b)-min(a, b) < 0x1800 }
			if s := share(pic, func(r, g, b uint32) bool { return near(r, wr) && near(g, wg) && near(b, wb) }); s < 0.001 {
				t.Errorf("%s: engine %d's colour covers %.3f%% of the chart; its line is not drawn", id, i, 100*s)
			}
		}
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

// share is the fraction of the image's pixels that match.
func share(img image.Image, match func(r, g, b uint32) bool) float64 {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if match(r, g, bl) {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}
