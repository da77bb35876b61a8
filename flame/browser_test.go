package flame

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"github.com/pfold/pfold/internal/testenv"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

var screenshot = flag.String("screenshot", "", "write the browser test's screenshots to `PREFIX`-*.png")

// browser returns the path of a Chromium or Chrome, or skips the test.
func browser(t *testing.T) string {
	return testenv.NeedTool(t, "Debian package chromium: the browser test of the flame graph's script",
		"chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
}

// TestBrowser opens a flame graph in headless Chromium and uses it as a
// person would: it counts the frames drawn, reads the root's tooltip,
// clicks a frame and checks it now spans the width with its ancestors
// still shown, searches with Ctrl-F and counts the highlighted frames.
func TestBrowser(t *testing.T) {
	exe := browser(t)
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	svg := render(t, readFile(t, "vertx-unsorted.folded"), DefaultOptions())
	frames, _ := parseSVG(t, svg)
	ctx := open(t, exe, svg)

	// Ctrl-F opens a prompt: a second goroutine answers it with the
	// search term, as a person would type it.
	const term = "^tcp_"
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range dialogs {
			if err != nil {
				return
			}
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true, PromptText: term})
		}
	}()

	drawn := eval[int](t, ctx, `document.querySelectorAll("#frames > g").length`)
	if drawn != len(frames) {
		t.Errorf("browser draws %d frames, the SVG holds %d", drawn, len(frames))
	}
	if got, want := eval[string](t, ctx, `document.querySelector("#frames > g > title").textContent`), "all (286 samples, 100%)"; got != want {
		t.Errorf("root title %q, want %q", got, want)
	}
	shoot(t, ctx, "initial")

	// Click the middle of a frame two levels up that is not full width.
	type clicked struct {
		Index      int
		X, Y       float64
		Name       string
		OrigWidth  float64
		Width      float64
		RectX      float64
		Visible    int
		ParentDim  int
		RootWidth  float64
		RootHidden bool
	}
	target := eval[clicked](t, ctx, `(function () {
		var gs = document.querySelectorAll("#frames > g");
		var rootY = +gs[0].querySelector("rect").getAttribute("y");
		for (var i = 1; i < gs.length; i++) {
			var r = gs[i].querySelector("rect");
			var w = +r.getAttribute("width");
			if (+r.getAttribute("y") <= rootY - 32 && w > 100 && w < 600) {
				var b = r.getBoundingClientRect();
				return {Index: i, X: b.x + b.width / 2, Y: b.y + b.height / 2,
					Name: gs[i].querySelector("title").textContent, OrigWidth: w};
			}
		}
		return {Index: -1};
	})()`)
	if target.Index < 0 {
		t.Fatal("no frame to click found")
	}
	// Hovering shows the frame's name, count and share.
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, target.X, target.Y)); err != nil {
		t.Fatal(err)
	}
	if got, want := eval[string](t, ctx, `document.getElementById("details").textContent`), "Function: "+target.Name; got != want {
		t.Errorf("hover: details read %q, want %q", got, want)
	}
	if err := chromedp.Do(ctx, chromedp.MouseClickXY(target.X, target.Y)); err != nil {
		t.Fatal(err)
	}
	after := eval[clicked](t, ctx, fmt.Sprintf(`(function () {
		var gs = document.querySelectorAll("#frames > g");
		var r = gs[%d].querySelector("rect");
		var visible = 0, dim = 0;
		for (var i = 0; i < gs.length; i++) {
			if (!gs[i].classList.contains("hide")) visible++;
			if (gs[i].classList.contains("parent")) dim++;
		}
		return {Width: +r.getAttribute("width"), RectX: +r.getAttribute("x"),
			Visible: visible, ParentDim: dim,
			RootWidth: +gs[0].querySelector("rect").getAttribute("width"),
			RootHidden: gs[0].classList.contains("hide")};
	})()`, target.Index))
	if math.Abs(after.Width-1180) > 0.05 || math.Abs(after.RectX-10) > 0.05 {
		t.Errorf("clicked %q (%.1f px wide): now x=%v width=%v, want x=10 width=1180", target.Name, target.OrigWidth, after.RectX, after.Width)
	}
	if after.ParentDim < 2 || after.RootHidden || math.Abs(after.RootWidth-1180) > 0.05 {
		t.Errorf("after zoom: %d dimmed ancestors, root hidden %v, root width %v; want ≥2 ancestors and the root at full width",
			after.ParentDim, after.RootHidden, after.RootWidth)
	}
	if after.Visible >= drawn {
		t.Errorf("after zoom %d of %d frames visible; frames outside the zoomed one should hide", after.Visible, drawn)
	}
	shoot(t, ctx, "zoomed")

	// Reset the zoom, then search with Ctrl-F.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("unzoom"))); err != nil {
		t.Fatal(err)
	}
	if hidden := eval[int](t, ctx, `document.querySelectorAll("#frames > g.hide").length`); hidden != 0 ||
		!eval[bool](t, ctx, `document.getElementById("unzoom").classList.contains("hide")`) {
		t.Errorf("after Reset Zoom: %d frames still hidden, or the button still shows", hidden)
	}
	if err := chromedp.Do(ctx,
		chromedp.KeyEvent("f", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
	); err != nil {
		t.Fatal(err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById("matched").textContent.indexOf("Matched") === 0`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("no search result shown after Ctrl-F: %v", err)
	}
	highlighted := eval[int](t, ctx, `Array.prototype.filter.call(document.querySelectorAll("#frames rect"),
		function (r) { return r.getAttribute("fill") === "rgb(230,0,230)"; }).length`)
	matchedText := eval[string](t, ctx, `document.getElementById("matched").textContent`)
	// The matched share counts a match inside another match once.
	re := regexp.MustCompile(term)
	covered, end := 0.0, -1.0
	var hits []svgFrame
	for _, f := range frames {
		if re.MatchString(f.name) {
			hits = append(hits, f)
		}
	}
	slices.SortFunc(hits, func(a, b svgFrame) int { return cmp.Or(cmp.Compare(a.x, b.x), cmp.Compare(b.count, a.count)) })
	for _, h := range hits {
		if h.x >= end {
			covered += h.count
			end = h.x + h.count
		}
	}
	if want := len(hits); want == 0 || highlighted != want {
		t.Errorf("search %q highlights %d frames, want %d", term, highlighted, len(hits))
	}
	if wantText := fmt.Sprintf("Matched: %.1f%%", 100*covered/frames[0].count); matchedText != wantText {
		t.Errorf("matched text %q, want %q", matchedText, wantText)
	}
	shoot(t, ctx, "search")
}

// open opens svg in a headless Chromium at exe, 1200 pixels wide, and
// returns the page's context once the frames are there; the browser
// ends with the test.
func open(t *testing.T, exe string, svg []byte) context.Context {
	t.Helper()
	path := filepath.Join(t.TempDir(), "graph.svg")
	if err := os.WriteFile(path, svg, 0o644); err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1200, 1200),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx,
		chromedp.Navigate("file://"+path),
		chromedp.WaitReady(chromedp.ID("frames")),
	); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// TestBrowserNameAttr: frames given attributes by --nameattr, one a link
// with its own tooltip, draw and zoom as the others do; the tooltip
// shows the title given.
func TestBrowserNameAttr(t *testing.T) {
	exe := browser(t)
	if testing.Short() {
		t.Skip("browser test skipped in -short mode")
	}
	opt := DefaultOptions()
	opt.NameAttr = map[string]FrameAttrs{
		"work": {Title: "work: see the docs", Href: "https://example.com/work?a=1&b=2", Class: "linked"},
		"idle": {ID: "idle-frame", GExtra: `data-note="x"`},
	}
	svg := render(t, []byte("main;work 30\nmain;idle 10\nmain;work;inner 20\n"), opt)
	ctx := open(t, exe, svg)
	if n := eval[int](t, ctx, `document.querySelectorAll("#frames > *").length`); n != 5 {
		t.Errorf("%d frames drawn, want 5", n)
	}
	link := eval[string](t, ctx, `document.querySelector("#frames > a.linked").getAttributeNS("http://www.w3.org/1999/xlink", "href")`)
	if link != "https://example.com/work?a=1&b=2" {
		t.Errorf("link %q", link)
	}
	if got := eval[string](t, ctx, `document.querySelector("#idle-frame > title").textContent + "|" + document.getElementById("idle-frame").getAttribute("data-note")`); got != "idle (10 samples, 16.67%)|x" {
		t.Errorf("idle frame: %q", got)
	}
	type box struct{ X, Y float64 }
	b := eval[box](t, ctx, `(function () {
		var r = document.querySelector("#frames > a.linked rect").getBoundingClientRect();
		return {X: r.x + r.width / 2, Y: r.y + r.height / 2};
	})()`)
	if err := chromedp.Do(ctx, chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, b.X, b.Y)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.getElementById("details").textContent`); got != "Function: work: see the docs" {
		t.Errorf("hover over the link: details %q", got)
	}
	eval[bool](t, ctx, `(pflame.zoom(Array.prototype.indexOf.call(document.getElementById("frames").children,
		document.querySelector("#frames > a.linked"))), true)`)
	if w := eval[float64](t, ctx, `+document.querySelector("#frames > a.linked rect").getAttribute("width")`); math.Abs(w-1180) > 0.05 {
		t.Errorf("zoomed into the link: width %v, want 1180", w)
	}
}

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// shoot saves a screenshot when -screenshot is given.
func shoot(t *testing.T, ctx context.Context, name string) {
	if *screenshot == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshot+"-"+name+".png", png, 0o644); err != nil {
		t.Fatal(err)
	}
}
