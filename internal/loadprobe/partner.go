package loadprobe

import (
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync/atomic"

	"github.com/streamops/streamops/internal/outbox"
)

// Partner is a partner endpoint on loopback that answers every delivery
// 200 and counts them: what a soak's deliver steps send to.
type Partner struct {
	srv      *http.Server
	ln       net.Listener
	received atomic.Int64
}

// StartPartner listens on a free loopback port and serves.
func StartPartner() (*Partner, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Partner{ln: ln}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		p.received.Add(1)
	})}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// URL is the endpoint's address.
func (p *Partner) URL() string { return "http://" + p.ln.Addr().String() }

// Received is how many deliveries it has answered.
func (p *Partner) Received() int64 { return p.received.Load() }

// Close stops it.
func (p *Partner) Close() error { return p.srv.Close() }

// WritePartnersFile writes, under dir, a partners file
// (STREAMOPS_PARTNERS_FILE) that names p as AcmePartner, and returns its
// path.
func (p *Partner) WritePartnersFile(dir string) (string, error) {
	raw, err := json.Marshal([]outbox.Partner{{ID: AcmePartner, Name: "Acme Corp (soak)", URL: p.URL()}})
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "partners.json")
	return path, os.WriteFile(path, raw, 0o600)
}
