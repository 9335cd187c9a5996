package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"net/http"
	"path"
	"strings"
	"time"
)

// Base is the path the console is served under.
const Base = "/console"

//go:embed index.html
var index []byte

// Assets are the built script and stylesheet (make console writes them from
// console/; make console-check proves they are what the pinned packages
// build).
//
//go:embed dist/app.js dist/app.css
var Assets embed.FS

// contentSecurityPolicy allows the console's own script and stylesheet and
// calls to its own origin only: no inline script, no third party.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// asset is one file served with a strong ETag of its content.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

func newAsset(body []byte, contentType string) asset {
	sum := sha256.Sum256(body)
	return asset{body: body, contentType: contentType, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
}

// Handler serves GET and HEAD under Base: /console/assets/app.js and
// app.css, and the page itself for every other path, so each page's URL
// (/console/events?event_types=…) can be opened, reloaded and shared.
func Handler() http.Handler {
	files := map[string]asset{}
	for name, ct := range map[string]string{"app.js": "text/javascript; charset=utf-8", "app.css": "text/css; charset=utf-8"} {
		b, err := Assets.ReadFile("dist/" + name)
		if err != nil {
			panic("console: " + err.Error()) // embedded at build time: cannot happen
		}
		files[name] = newAsset(b, ct)
	}
	page := newAsset(index, "text/html; charset=utf-8")
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := path.Clean(r.URL.Path)
		if p != Base && !strings.HasPrefix(p, Base+"/") {
			http.NotFound(w, r)
			return
		}
		if name, ok := strings.CutPrefix(p, Base+"/assets/"); ok {
			a, found := files[name]
			if !found {
				http.NotFound(w, r)
				return
			}
			serve(w, r, a)
			return
		}
		serve(w, r, page)
	})
}

// serve answers with a, or 304 when the client's copy has its ETag. Every
// answer is revalidated (no-cache), so a deploy is seen at once.
func serve(w http.ResponseWriter, r *http.Request, a asset) {
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("ETag", a.etag)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
