// Package browser holds the operations console's tests in a real browser:
// headless Chromium (Debian's chromium, driven by chromedp) against the
// local stack started in the test process, with data created through the
// public routes. They are behind the build tag "browser" (make
// test-console), since they need the chromium binary.
//
// What must not live here: production code.
package browser
