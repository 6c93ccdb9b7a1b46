package headless

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/chromedp/chromedp"
)

// ErrNotFound is returned by Find when no Chromium is installed.
var ErrNotFound = errors.New("headless: no Chromium found: install Debian's chromium (apt-get install chromium) or set $CHROMIUM")

// Required reports whether ARTIST_REQUIRE_CHROMIUM=1 asks tests to fail,
// not skip, without a browser.
func Required() bool { return os.Getenv("ARTIST_REQUIRE_CHROMIUM") == "1" }

// Find returns the path of the Chromium binary.
func Find() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("headless: $CHROMIUM: %w", err)
		}
		return p, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// Start launches the browser at bin with a fresh profile in userDataDir
// and a width x height window, and returns a chromedp context for one
// tab. cancel closes the browser.
func Start(ctx context.Context, bin, userDataDir string, width, height int) (context.Context, context.CancelFunc) {
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.UserDataDir(userDataDir),
		chromedp.WindowSize(width, height),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"),
		chromedp.Flag("hide-scrollbars", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	bctx, cancelTab := chromedp.NewContext(actx)
	return bctx, func() { cancelTab(); cancelAlloc() }
}
