//go:build browser

package browser_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// browser is one headless Chromium for the whole test.
type browser struct {
	t        *testing.T
	ctx      context.Context // the browser's first tab
	shotsDir string
}

// chromiumPath is Debian's chromium (CHROMIUM_PATH overrides it).
func chromiumPath(t *testing.T) string {
	if p := os.Getenv("CHROMIUM_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium: apt-get install -y chromium (or set CHROMIUM_PATH)")
	return ""
}

// screenshotsDir is STREAMOPS_CONSOLE_SCREENSHOTS, or a directory under the
// system's temporary directory that outlives the test (its path is
// logged), so the pictures can be looked at afterwards.
func screenshotsDir(t *testing.T) string {
	dir := os.Getenv("STREAMOPS_CONSOLE_SCREENSHOTS")
	if dir == "" {
		var err error
		dir, err = os.MkdirTemp("", "streamops-console-screenshots-")
		require.NoError(t, err)
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	t.Logf("screenshots in %s", dir)
	return dir
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1366, 900),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(cancel)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")), "chromium does not start")
	return &browser{t: t, ctx: ctx, shotsDir: screenshotsDir(t)}
}

// tab is one browser tab (its own sessionStorage, so its own token) that
// records every console message, exception and browser log entry.
type tab struct {
	b   *browser
	ctx context.Context
	mu  sync.Mutex
	// messages since the last check.
	messages []string
}

func (b *browser) newTab(t *testing.T) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	tb := &tab{b: b, ctx: ctx}
	msgs := chromedp.Console(ctx)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate("about:blank")))
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			switch m.Type {
			case chromedp.ConsoleError, chromedp.ConsoleException, chromedp.ConsoleWarning:
				tb.mu.Lock()
				tb.messages = append(tb.messages, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				tb.mu.Unlock()
			}
		}
	}()
	return tb
}

// do runs actions in the tab, failing the test on error.
func (tb *tab) do(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, actions...))
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, tb *tab, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	require.NoError(t, err, expr)
	return v
}

// waitFor polls a JavaScript condition in the page for up to 20 s.
func (tb *tab) waitFor(t *testing.T, cond, what string) {
	t.Helper()
	require.NoError(t, tb.poll(cond, 20*time.Second), "waiting for %s (%s); page text:\n%s", what, cond, tb.text(t))
}

// poll evaluates cond in the page every 50 ms until it is true, for at
// most timeout.
func (tb *tab) poll(cond string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(tb.ctx, timeout+5*time.Second)
	defer cancel()
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](cond,
		chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(timeout)))
	return err
}

// text is the page's visible text.
func (tb *tab) text(t *testing.T) string {
	ctx, cancel := context.WithTimeout(tb.ctx, 5*time.Second)
	defer cancel()
	v, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	return v
}

// noConsoleErrors fails for any error, warning or exception the page
// reported since the last check, except those matching allowed.
func (tb *tab) noConsoleErrors(t *testing.T, allowed ...*regexp.Regexp) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // let the last events arrive
	tb.mu.Lock()
	msgs := tb.messages
	tb.messages = nil
	tb.mu.Unlock()
	var bad []string
next:
	for _, m := range msgs {
		for _, re := range allowed {
			if re.MatchString(m) {
				continue next
			}
		}
		bad = append(bad, m)
	}
	require.Empty(t, bad, "the page reported errors")
}

// screenshot writes the viewport as <name>.png.
func (tb *tab) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(tb.b.shotsDir, name+".png"), png, 0o644))
}

// signIn opens the console and pastes token into its sign-in form, as a
// person does once per tab.
func (tb *tab) signIn(t *testing.T, baseURL, token, who string) {
	t.Helper()
	tb.do(t, chromedp.Navigate(baseURL+"/console/events"),
		chromedp.WaitVisible(chromedp.CSS(`input[name=token]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=token]`), token),
		submit(`input[name=token]`))
	tb.waitFor(t, fmt.Sprintf(`document.querySelector('[data-testid=principal]')?.textContent === %q`, who), "signed in as "+who)
}

// submit submits the form of the element sel selects as a person does
// (its submit event fires; form.submit() would skip it).
func submit(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).form.requestSubmit()`, sel))
}

// click clicks the element sel selects (a person's click: the element's
// click handlers run, a link is followed by the console's router).
func click(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).click()`, sel))
}

// fill sets the value of the form field sel selects.
func fill(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).value = %q`, sel, value))
}

// open navigates to a console path and waits for cond.
func (tb *tab) open(t *testing.T, url, cond, what string) {
	t.Helper()
	tb.do(t, chromedp.Navigate(url))
	tb.waitFor(t, cond, what)
}

// count is the number of elements matching a CSS selector.
func count(t *testing.T, tb *tab, sel string) int {
	t.Helper()
	return eval[int](t, tb, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel))
}

// texts are the text contents of the elements matching a CSS selector.
func texts(t *testing.T, tb *tab, sel string) []string {
	t.Helper()
	return eval[[]string](t, tb, fmt.Sprintf(`[...document.querySelectorAll(%q)].map(e => e.textContent.trim())`, sel))
}

func contains(t *testing.T, tb *tab, want ...string) {
	t.Helper()
	// The text is what is laid out: Chromium may lay out a change (a
	// <details> just opened) only at its next frame, so this waits for it.
	js, err := json.Marshal(want)
	require.NoError(t, err)
	err = tb.poll(fmt.Sprintf(`%s.every(w => document.body && document.body.innerText.includes(w))`, js), 10*time.Second)
	if err == nil {
		return
	}
	text := tb.text(t)
	for _, w := range want {
		require.True(t, strings.Contains(text, w), "the page does not show %q:\n%s", w, text)
	}
	require.NoError(t, err, "the page shows %q only now", want)
}

// source is the text of the whole document, laid out or not (hidden,
// folded, not yet drawn): what a page must not hold is checked here, so
// a value that is present but not drawn yet does not pass.
func (tb *tab) source(t *testing.T) string {
	t.Helper()
	return eval[string](t, tb, `document.body ? document.body.textContent : ""`)
}
