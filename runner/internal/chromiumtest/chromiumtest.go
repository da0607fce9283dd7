// Package chromiumtest is what the tests that look at a page in headless
// Chromium share (the HTML report's, the live view's): finding Debian's
// chromium, starting it offline, and measuring what it painted.
package chromiumtest

import (
	"context"
	"image"
	"os"
	"os/exec"
	"testing"

	"github.com/chromedp/chromedp"
)

// Path finds Debian's chromium. The README's test command installs it, so
// under CI its absence is a failure, not a skip.
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed; .ci/test installs it")
	}
	t.Skip("chromium is not installed (apt-get install chromium, or run bash .ci/test)")
	return ""
}

// Browser starts headless Chromium from exe with a window of w×h and
// returns its first tab; both end with the test. It is offline: every
// request but a file's or a loopback server's goes to a proxy that is not
// there (Chromium never sends loopback requests through a proxy).
func Browser(t testing.TB, exe string, w, h int) context.Context {
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.WindowSize(w, h), chromedp.Flag("disable-gpu", true), chromedp.ProxyServer("127.0.0.1:9"))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	tab, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	return tab
}

// Share is the fraction of the image's pixels that match. It reads them by
// RGBA64At where the image has it (every decoded PNG does): the values of
// At(x, y).RGBA() without a colour boxed per pixel, of which a screenshot
// at scale 2 has millions (minutes of a test under -race).
func Share(img image.Image, match func(r, g, b uint32) bool) float64 {
	px, fast := img.(image.RGBA64Image)
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			var r, g, bl uint32
			if fast {
				c := px.RGBA64At(x, y)
				r, g, bl = uint32(c.R), uint32(c.G), uint32(c.B)
			} else {
				r, g, bl, _ = img.At(x, y).RGBA()
			}
			if match(r, g, bl) {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}
