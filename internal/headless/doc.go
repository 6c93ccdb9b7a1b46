// Package headless starts a headless Chromium for tests that load a page
// and assert on its rendered DOM, through github.com/chromedp/chromedp.
//
// Find locates the browser: $CHROMIUM when set, else the first of
// chromium, chromium-browser, google-chrome and google-chrome-stable on
// PATH (Debian's package is chromium). Start runs it headless with a
// fresh profile in the given folder, without sandbox or GPU, with its
// background networking, component updates and sync off, and with every
// host name but localhost and 127.0.0.1 resolving to nothing, so a page
// under test reaches only the loopback server it was pointed at.
//
// Tests skip when Find finds no browser, unless Required: with
// ARTIST_REQUIRE_CHROMIUM=1 in the environment (as CI sets it) they fail
// instead, so a run that should have checked the page never passes
// silently.
package headless
